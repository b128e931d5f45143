//go:build ignore

// gen_header writes header_gen.go from the header's field table in
// internal/headerfields. Run it with go generate.
package main

import (
	"log"
	"os"

	"github.com/keccakroot/keccakroot/adapter/internal/headerfields"
)

func main() {
	src, err := headerfields.Generate()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("header_gen.go", src, 0o644); err != nil {
		log.Fatal(err)
	}
}

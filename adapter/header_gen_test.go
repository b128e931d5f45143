package adapter

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/keccakroot/keccakroot/adapter/internal/headerfields"
)

// TestHeaderGenUpToDate checks that header_gen.go is what the header's field
// table generates: run go generate in adapter after changing the table.
func TestHeaderGenUpToDate(t *testing.T) {
	want, err := headerfields.Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("header_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("header_gen.go is stale: run go generate ./adapter")
	}
}

// TestHeaderFieldTable checks the table against go-ethereum's types.Header:
// the same fields in the same order, the optional ones exactly those that
// go-ethereum marks rlp:"optional".
func TestHeaderFieldTable(t *testing.T) {
	typ := reflect.TypeFor[types.Header]()
	var encoded []reflect.StructField
	for i := range typ.NumField() {
		if f := typ.Field(i); f.IsExported() && f.Tag.Get("rlp") != "-" {
			encoded = append(encoded, f)
		}
	}
	if len(encoded) != len(headerfields.Fields) {
		t.Fatalf("types.Header encodes %d fields, the table has %d", len(encoded), len(headerfields.Fields))
	}
	for i, f := range headerfields.Fields {
		g := encoded[i]
		optional := g.Tag.Get("rlp") == "optional"
		if g.Name != f.Go || optional != (f.Fork != "") {
			t.Errorf("field %d: types.Header has %s (optional %v), the table %s (fork %q)", i, g.Name, optional, f.Go, f.Fork)
		}
		if name, _, _ := bytes.Cut([]byte(g.Tag.Get("json")), []byte(",")); string(name) != f.JSON {
			t.Errorf("field %d: JSON name %q, the table %q", i, name, f.JSON)
		}
	}
}

package armsched

import (
	"flag"
	"log"
	"os"
)

// Generate is the main function of an arm64 generator: it builds the
// round, checks it for nstates states a register (Check), renders the
// kernel file with render and writes it to the file -out names, or to
// standard output. Any failure ends the program with the message prefixed
// by name, before anything is written.
func Generate(name string, nstates int, render func(round []Instr) []byte) {
	out := flag.String("out", "", "output file (default standard output)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix(name + ": ")

	round := Round()
	if err := Check(round, nstates); err != nil {
		log.Fatal(err)
	}
	text := render(round)
	var err error
	if *out == "" {
		_, err = os.Stdout.Write(text)
	} else {
		err = os.WriteFile(*out, text, 0o644)
	}
	if err != nil {
		log.Fatal(err)
	}
}

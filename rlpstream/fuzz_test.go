package rlpstream

import (
	"testing"
)

// addSeeds seeds a fuzz target with every vector of the ethereum/tests RLP
// files, valid and invalid, and a few inputs that reach the deep-nesting and
// long-form paths.
func addSeeds(f *testing.F) {
	for _, file := range []string{"rlptest.json", "invalidRLPTest.json"} {
		for _, v := range loadVectors(f, file) {
			f.Add(v.Out)
		}
	}
	f.Add(nest([]byte{0x80}, maxOpen+2))
	f.Add(nest(mustHex("8100"), maxOpen+2))
	f.Add(mustHex("f90100" + hexRepeat("01", 256)))
	f.Add(mustHex("c3c18100"))
	f.Add(mustHex("bf" + hexRepeat("ff", 8)))
}

// FuzzValidate checks that Validate accepts and rejects exactly what
// go-ethereum does (the recursive rlp.Split walk, with the same error kind and
// offset, and rlp.DecodeBytes into an interface value), and never panics. An
// accepted input, decoded by go-ethereum, must re-encode to itself with every
// encoder of this package, so the target fuzzes the encoders too.
func FuzzValidate(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		checkValidate(t, in)
	})
}

// FuzzSplit checks Split, CountValues and the iterator against rlp.Split and
// rlp.CountValues: same kind, content and rest, same error kind; and
// ReadHeader against Split.
func FuzzSplit(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		checkSplit(t, in)
		checkReadHeader(t, in)
	})
}

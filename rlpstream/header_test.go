package rlpstream

import (
	"errors"
	"testing"
)

func TestReadHeaderTable(t *testing.T) {
	tests := []struct {
		in          string
		kind        Kind
		headerSize  int
		contentSize uint64
		err         error
	}{
		{in: "00", kind: Byte, contentSize: 1},
		{in: "7f", kind: Byte, contentSize: 1},
		{in: "80", kind: String, headerSize: 1},
		{in: "83", kind: String, headerSize: 1, contentSize: 3}, // the header alone
		{in: "b7", kind: String, headerSize: 1, contentSize: 55},
		{in: "b838", kind: String, headerSize: 2, contentSize: 56},
		{in: "b90100ff", kind: String, headerSize: 3, contentSize: 256},
		{in: "c0", kind: List, headerSize: 1},
		{in: "f7", kind: List, headerSize: 1, contentSize: 55},
		{in: "f838", kind: List, headerSize: 2, contentSize: 56},
		{in: "fa012345", kind: List, headerSize: 4, contentSize: 0x012345},
		{in: "ff" + hexRepeat("ff", 8), kind: List, headerSize: 9, contentSize: 1<<64 - 1},
		// What needs the content is not ReadHeader's to check.
		{in: "817f", kind: String, headerSize: 1, contentSize: 1},
		// Errors; the kind is still the one the first byte announces.
		{in: "", err: ErrUnexpectedEnd},
		{in: "b8", kind: String, err: ErrUnexpectedEnd},
		{in: "bf" + hexRepeat("ff", 7), kind: String, err: ErrUnexpectedEnd},
		{in: "f901", kind: List, err: ErrUnexpectedEnd},
		{in: "b800", kind: String, err: ErrNonCanonicalSize},
		{in: "b837", kind: String, err: ErrNonCanonicalSize},
		{in: "f90038", kind: List, err: ErrNonCanonicalSize},
		{in: "f837", kind: List, err: ErrNonCanonicalSize},
	}
	for _, tt := range tests {
		k, hs, cs, err := ReadHeader(mustHex(tt.in))
		if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
			t.Errorf("ReadHeader(%s): error %v, want %v", tt.in, err, tt.err)
			continue
		}
		if k != tt.kind || hs != tt.headerSize || cs != tt.contentSize {
			t.Errorf("ReadHeader(%s) = %v %d %d, want %v %d %d", tt.in, k, hs, cs, tt.kind, tt.headerSize, tt.contentSize)
		}
		if err != nil && offsetOf(err) != 0 {
			t.Errorf("ReadHeader(%s): error at offset %d, want 0", tt.in, offsetOf(err))
		}
	}
}

// checkReadHeader checks ReadHeader against Split on in: where Split reads
// an item, ReadHeader reads the same header from in and from in's first
// headerSize bytes alone; where ReadHeader fails, Split fails with the same
// sentinel; and where ReadHeader succeeds but Split fails, the content is
// what is wrong.
func checkReadHeader(t *testing.T, in []byte) {
	t.Helper()
	k, hs, cs, err := ReadHeader(in)
	sk, content, rest, serr := Split(in)
	if err != nil {
		if !errors.Is(serr, errors.Unwrap(err)) {
			t.Fatalf("ReadHeader(%x): %v; Split: %v", in, err, serr)
		}
		if len(in) > 0 && k != announcedKind(in[0]) {
			t.Fatalf("ReadHeader(%x): kind %v on error, the first byte announces %v", in, k, announcedKind(in[0]))
		}
		return
	}
	if serr != nil {
		fits := cs <= uint64(len(in)-hs)
		wrapsByte := fits && k == String && cs == 1 && in[1] < 0x80 // fits: in[1] is there
		if fits && !wrapsByte {
			t.Fatalf("ReadHeader(%x) = %v %d %d, but Split fails: %v", in, k, hs, cs, serr)
		}
		return
	}
	if k != sk || hs != len(in)-len(rest)-len(content) || cs != uint64(len(content)) {
		t.Fatalf("ReadHeader(%x) = %v %d %d; Split gives %v, content %x", in, k, hs, cs, sk, content)
	}
	prefix := in[:max(hs, 1)]
	if pk, phs, pcs, perr := ReadHeader(prefix); perr != nil || pk != k || phs != hs || pcs != cs {
		t.Fatalf("ReadHeader(%x), the header alone, = %v %d %d %v; want %v %d %d", prefix, pk, phs, pcs, perr, k, hs, cs)
	}
}

// announcedKind is the kind that an item's first byte announces, from the
// ranges of the RLP specification.
func announcedKind(c byte) Kind {
	switch {
	case c < 0x80:
		return Byte
	case c < 0xc0:
		return String
	default:
		return List
	}
}

func TestReadHeaderAgainstSplit(t *testing.T) {
	for _, file := range []string{"rlptest.json", "invalidRLPTest.json"} {
		for _, v := range loadVectors(t, file) {
			checkReadHeader(t, v.Out)
		}
	}
	g := newGen(13)
	for range 2000 {
		b := g.bytes()
		checkReadHeader(t, b)
		for n := range min(len(b), 10) {
			checkReadHeader(t, b[:n])
		}
	}
}

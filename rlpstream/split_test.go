package rlpstream

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
)

func TestSplitTable(t *testing.T) {
	tests := []struct {
		in      string
		kind    Kind
		content string
		rest    string
		err     error
		off     int
	}{
		{in: "00", kind: Byte, content: "00"},
		{in: "7f01", kind: Byte, content: "7f", rest: "01"},
		{in: "80", kind: String, content: ""},
		{in: "8180", kind: String, content: "80"},
		{in: "83646f6701", kind: String, content: "646f67", rest: "01"},
		{in: "c0", kind: List, content: ""},
		{in: "c3010203ff", kind: List, content: "010203", rest: "ff"},
		{in: "b838" + hexRepeat("aa", 56), kind: String, content: hexRepeat("aa", 56)},
		{in: "f838" + hexRepeat("01", 56), kind: List, content: hexRepeat("01", 56)},
		// Errors.
		{in: "", err: ErrUnexpectedEnd},
		{in: "81", err: ErrValueTooLarge},
		{in: "8100", err: ErrNonCanonicalSize},
		{in: "817f", err: ErrNonCanonicalSize},
		{in: "83646f", err: ErrValueTooLarge},
		{in: "c1", err: ErrValueTooLarge},
		{in: "b8", err: ErrUnexpectedEnd},
		{in: "b901", err: ErrUnexpectedEnd},
		{in: "b90100", err: ErrValueTooLarge},
		{in: "b800", err: ErrNonCanonicalSize},
		{in: "b837" + hexRepeat("aa", 55), err: ErrNonCanonicalSize},
		{in: "b90038" + hexRepeat("aa", 56), err: ErrNonCanonicalSize},
		{in: "f800", err: ErrNonCanonicalSize},
		{in: "f90000", err: ErrNonCanonicalSize},
		{in: "b838" + hexRepeat("aa", 55), err: ErrValueTooLarge},
		// Sizes that would not fit an int on a 32-bit platform, or at all.
		{in: "bf" + hexRepeat("ff", 8) + "00", err: ErrValueTooLarge},
		{in: "ff" + hexRepeat("ff", 8) + "00", err: ErrValueTooLarge},
		{in: "bb80000000" + "00", err: ErrValueTooLarge},
		{in: "fbffffffff" + "00", err: ErrValueTooLarge},
		{in: "bc0100000000", err: ErrValueTooLarge},
	}
	for _, tt := range tests {
		in := mustHex(tt.in)
		k, content, rest, err := Split(in)
		gk, gcontent, grest, gerr := rlp.Split(in)
		if !sameError(err, gerr) {
			t.Errorf("Split(%s): error %v, go-ethereum %v", tt.in, err, gerr)
		}
		if tt.err != nil {
			if !errors.Is(err, tt.err) || offsetOf(err) != tt.off {
				t.Errorf("Split(%s): error %v, want %v at %d", tt.in, err, tt.err, tt.off)
			}
			if !bytes.Equal(rest, in) || content != nil {
				t.Errorf("Split(%s): on error returned content %x rest %x", tt.in, content, rest)
			}
			continue
		}
		if err != nil {
			t.Errorf("Split(%s): %v", tt.in, err)
			continue
		}
		if k != tt.kind || !bytes.Equal(content, mustHex(tt.content)) || !bytes.Equal(rest, mustHex(tt.rest)) {
			t.Errorf("Split(%s) = %v %x %x, want %v %s %s", tt.in, k, content, rest, tt.kind, tt.content, tt.rest)
		}
		if uint(gk) != uint(k) || !bytes.Equal(gcontent, content) || !bytes.Equal(grest, rest) {
			t.Errorf("Split(%s) disagrees with go-ethereum", tt.in)
		}
	}
}

func hexRepeat(s string, n int) string {
	return string(bytes.Repeat([]byte(s), n))
}

func TestSplitList(t *testing.T) {
	content, rest, err := SplitList(mustHex("c2010203"))
	if err != nil || !bytes.Equal(content, mustHex("0102")) || !bytes.Equal(rest, mustHex("03")) {
		t.Fatalf("got %x %x %v", content, rest, err)
	}
	for _, in := range []string{"01", "8180", "80"} {
		if _, _, err := SplitList(mustHex(in)); !errors.Is(err, ErrExpectedList) {
			t.Errorf("SplitList(%s): %v", in, err)
		}
	}
	if _, _, err := SplitList(mustHex("c5")); !errors.Is(err, ErrValueTooLarge) {
		t.Errorf("SplitList(c5): %v", err)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Byte: "Byte", String: "String", List: "List", 7: "Kind(invalid)"} {
		if k.String() != want {
			t.Errorf("%d: %q", k, k.String())
		}
	}
}

func TestValidateTable(t *testing.T) {
	tests := []struct {
		in  string
		err error
		off int
	}{
		{in: "80"},
		{in: "c0"},
		{in: "c4c2c0c0c0"},
		{in: "c7c0c1c0c3c0c1c0"},
		{in: "f838" + hexRepeat("01", 56)},
		{in: "", err: ErrUnexpectedEnd, off: 0},
		{in: "0000", err: ErrTrailingData, off: 1},
		{in: "c0c0", err: ErrTrailingData, off: 1},
		{in: "c28100", err: ErrNonCanonicalSize, off: 1},
		{in: "c3c18100", err: ErrValueTooLarge, off: 2}, // inner string runs past its list
		{in: "c3c281000000", err: ErrNonCanonicalSize, off: 2},
		{in: "c2c3000000", err: ErrValueTooLarge, off: 1},
		{in: "c401b800", err: ErrValueTooLarge, off: 0},
		{in: "c302b901", err: ErrUnexpectedEnd, off: 2},
		{in: "c3b800", err: ErrValueTooLarge, off: 0},
		{in: "c201b8", err: ErrUnexpectedEnd, off: 2},
		{in: "c401b80000", err: ErrNonCanonicalSize, off: 2},
		{in: "c3c0c0c1", err: ErrValueTooLarge, off: 3},
		{in: "c2c0c0" + "00", err: ErrTrailingData, off: 3},
		{in: "f838" + hexRepeat("01", 54) + "8100", err: ErrNonCanonicalSize, off: 56},
	}
	for _, tt := range tests {
		in := mustHex(tt.in)
		err := Validate(in)
		goff, gerr := gethValidate(in)
		if !sameError(err, gerr) || (gerr != nil && goff != offsetOf(err)) {
			t.Errorf("Validate(%s) = %v, go-ethereum %v at %d", tt.in, err, gerr, goff)
		}
		if tt.err == nil {
			if err != nil {
				t.Errorf("Validate(%s) = %v", tt.in, err)
			}
			continue
		}
		if !errors.Is(err, tt.err) || offsetOf(err) != tt.off {
			t.Errorf("Validate(%s) = %v, want %v at offset %d", tt.in, err, tt.err, tt.off)
		}
	}
}

// nest wraps item in depth lists, innermost first.
func nest(item []byte, depth int) []byte {
	for range depth {
		item = append(AppendListHeader(nil, len(item)), item...)
	}
	return item
}

// TestValidateDeep goes past the fixed stack of open lists, with the error
// at the bottom, and checks that the offset still counts from the input.
func TestValidateDeep(t *testing.T) {
	for _, depth := range []int{maxOpen - 1, maxOpen, maxOpen + 1, 3*maxOpen + 5, 5000} {
		good := nest([]byte{0x80}, depth)
		if err := Validate(good); err != nil {
			t.Fatalf("depth %d: %v", depth, err)
		}
		// Siblings after a deep list must be checked against the right end.
		two := append(append(AppendListHeader(nil, 2*len(good)), good...), good...)
		if err := Validate(two); err != nil {
			t.Fatalf("depth %d, two: %v", depth, err)
		}
		bad := nest(mustHex("8100"), depth)
		err := Validate(bad)
		goff, gerr := gethValidate(bad)
		if !errors.Is(err, ErrNonCanonicalSize) || !sameError(err, gerr) || offsetOf(err) != goff || goff != len(bad)-2 {
			t.Fatalf("depth %d: %v, go-ethereum %v at %d", depth, err, gerr, goff)
		}
		if rlp.DecodeBytes(bad, new(any)) == nil || rlp.DecodeBytes(good, new(any)) != nil {
			t.Fatalf("depth %d: go-ethereum's decoder disagrees", depth)
		}
	}
}

// TestReaderDifferential corrupts valid encodings byte by byte and compares
// Validate, Split and CountValues with go-ethereum on each result.
func TestReaderDifferential(t *testing.T) {
	g := newGen(5)
	rounds := 400
	if testing.Short() {
		rounds = 50
	}
	for range rounds {
		enc := mustEncode(t, g.list(4))
		if len(enc) > 4096 {
			continue
		}
		for range 8 {
			in := bytes.Clone(enc)
			switch g.r.IntN(4) {
			case 0:
				in[g.r.IntN(len(in))] = byte(g.r.Uint32())
			case 1:
				in = in[:g.r.IntN(len(in)+1)]
			case 2:
				in = append(in, byte(g.r.Uint32()))
			case 3:
				i := g.r.IntN(len(in))
				in[i] ^= 1 << g.r.IntN(8)
			}
			checkReader(t, in)
		}
		checkReader(t, enc)
	}
}

// checkReader compares every reading function of this package with its
// go-ethereum counterpart on one input.
func checkReader(t *testing.T, in []byte) {
	t.Helper()
	checkValidate(t, in)
	checkSplit(t, in)
}

// checkValidate compares Validate with the recursive rlp.Split walk (error
// kind and offset) and with go-ethereum's decoder (accept or reject).
func checkValidate(t *testing.T, in []byte) {
	t.Helper()
	err := Validate(in)
	goff, gerr := gethValidate(in)
	if !sameError(err, gerr) {
		t.Fatalf("Validate(%x) = %v, go-ethereum %v", in, err, gerr)
	}
	if err != nil && offsetOf(err) != goff {
		t.Fatalf("Validate(%x) = %v, go-ethereum at offset %d", in, err, goff)
	}
	if len(in) <= 1<<16 {
		var v any
		derr := rlp.DecodeBytes(in, &v)
		if (derr == nil) != (err == nil) {
			t.Fatalf("Validate(%x) = %v, rlp.DecodeBytes %v", in, err, derr)
		}
		// A canonical input re-encodes to itself with every sink.
		if derr == nil {
			enc, sum, eerr := encodeAll(t, v)
			if eerr != nil || !bytes.Equal(enc, in) || sum != crypto.Keccak256Hash(in) {
				t.Fatalf("re-encoding %x gave %x, %v", in, enc, eerr)
			}
		}
	}

}

// checkSplit compares Split, CountValues and the iterator with rlp.Split and
// rlp.CountValues.
func checkSplit(t *testing.T, in []byte) {
	t.Helper()
	k, content, rest, err := Split(in)
	gk, gcontent, grest, gerr := rlp.Split(in)
	if !sameError(err, gerr) {
		t.Fatalf("Split(%x) = %v, go-ethereum %v", in, err, gerr)
	}
	if err == nil && (uint(k) != uint(gk) || !bytes.Equal(content, gcontent) || !bytes.Equal(rest, grest) ||
		len(content)+len(rest) > len(in)) {
		t.Fatalf("Split(%x) = %v %x %x, go-ethereum %v %x %x", in, k, content, rest, gk, gcontent, grest)
	}

	// CountValues and the iterator against rlp.CountValues.
	n, err := CountValues(in)
	gn, gerr := rlp.CountValues(in)
	if !sameError(err, gerr) || (err == nil && n != gn) {
		t.Fatalf("CountValues(%x) = %d %v, go-ethereum %d %v", in, n, err, gn, gerr)
	}
	it := NewIterator(in)
	var m, total int
	for it.Next() {
		m++
		total += len(it.Raw())
		if !bytes.HasSuffix(it.Raw(), it.Content()) {
			t.Fatalf("iterator: content %x is not the tail of raw %x", it.Content(), it.Raw())
		}
	}
	if !sameError(it.Err(), gerr) || (gerr == nil && (m != gn || total != len(in))) {
		t.Fatalf("iterator over %x: %d items, %v; go-ethereum %d, %v", in, m, it.Err(), gn, gerr)
	}
	if err != nil && (m != n || offsetOf(it.Err()) != offsetOf(err)) {
		t.Fatalf("iterator and CountValues disagree on %x: %d %v, %d %v", in, m, it.Err(), n, err)
	}
}

func TestIterator(t *testing.T) {
	list := mustHex("c8" + "01" + "83646f67" + "c2c080")
	it, err := NewListIterator(list)
	if err != nil {
		t.Fatal(err)
	}
	type item struct {
		k       Kind
		content string
		raw     string
	}
	want := []item{{Byte, "01", "01"}, {String, "646f67", "83646f67"}, {List, "c080", "c2c080"}}
	var got []item
	for it.Next() {
		got = append(got, item{it.Kind(), hexOf(it.Content()), hexOf(it.Raw())})
	}
	if it.Err() != nil || len(got) != len(want) {
		t.Fatalf("got %v, %v", got, it.Err())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("item %d: %v, want %v", i, got[i], want[i])
		}
	}
	if it.Next() || it.Content() != nil || it.Raw() != nil {
		t.Fatal("Next after the end")
	}

	// Errors report the offset in the list's encoding.
	it, err = NewListIterator(mustHex("c401028100"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for it.Next() {
		n++
	}
	if n != 2 || !errors.Is(it.Err(), ErrNonCanonicalSize) || offsetOf(it.Err()) != 3 {
		t.Fatalf("%d items, %v", n, it.Err())
	}
	if it.Next() {
		t.Fatal("Next after an error")
	}

	for in, wantErr := range map[string]error{
		"":       ErrUnexpectedEnd,
		"01":     ErrExpectedList,
		"8180":   ErrExpectedList,
		"c0c0":   ErrTrailingData,
		"c20102": nil,
		"c3":     ErrValueTooLarge,
	} {
		_, err := NewListIterator(mustHex(in))
		if !errors.Is(err, wantErr) || (wantErr == nil) != (err == nil) {
			t.Errorf("NewListIterator(%s) = %v, want %v", in, err, wantErr)
		}
	}
	var zero Iterator
	if zero.Next() || zero.Err() != nil {
		t.Fatal("zero Iterator")
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	s := make([]byte, 0, 2*len(b))
	for _, c := range b {
		s = append(s, digits[c>>4], digits[c&15])
	}
	return string(s)
}

func TestCountValues(t *testing.T) {
	for in, want := range map[string]int{"": 0, "01": 1, "0102c0": 3, "c3010203c0": 2, "83646f6780": 2} {
		n, err := CountValues(mustHex(in))
		if err != nil || n != want {
			t.Errorf("CountValues(%s) = %d, %v; want %d", in, n, err, want)
		}
	}
	n, err := CountValues(mustHex("01028100"))
	if n != 2 || !errors.Is(err, ErrNonCanonicalSize) || offsetOf(err) != 2 {
		t.Errorf("CountValues(01028100) = %d, %v", n, err)
	}
}

func TestErrorMessage(t *testing.T) {
	err := Validate(mustHex("c28100"))
	if got, want := err.Error(), "rlpstream: non-canonical size information at offset 1"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}

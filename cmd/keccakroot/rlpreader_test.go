package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/keccakroot/keccakroot/rlpstream"
)

// TestBlockReaderFraming splits streams into RLP lists and checks each
// fault's sentinel, block index and offset: the header is read from the
// first bytes of the stream, whatever is left of them, and however the
// stream hands them over (all at once or a byte a read).
func TestBlockReaderFraming(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		limit  int
		blocks []string // the blocks read before the end or the fault
		err    error    // nil: the stream ends cleanly
		offset int64    // of the faulty block
		detail string   // in the error
	}{
		{name: "empty", in: ""},
		{name: "lists", in: "c0" + "c20180" + "f838" + strings.Repeat("01", 56), blocks: []string{"c0", "c20180", "f838" + strings.Repeat("01", 56)}},
		{name: "at the limit", in: "c3010203", limit: 3, blocks: []string{"c3010203"}},
		{name: "over the limit", in: "c401020304", limit: 3, err: errBlockTooLarge, detail: "claims 4 bytes, over the limit of 3"},
		{name: "huge", in: "ff7fffffffffffffff", err: errBlockTooLarge},
		{name: "byte", in: "c0" + "05", blocks: []string{"c0"}, err: errNotChain, offset: 1, detail: "byte 0x05 starts a single RLP byte"},
		{name: "string", in: "8568656c6c6f", err: errNotChain, detail: "byte 0x85 starts an RLP string"},
		{name: "long string cut short", in: "b901", err: errNotChain, detail: "byte 0xb9 starts an RLP string"},
		{name: "header cut short", in: "c0" + "f901", blocks: []string{"c0"}, err: errTruncated, offset: 1, detail: "ends inside the block's RLP header"},
		{name: "longest header cut short", in: "ff01020304050607", err: errTruncated, detail: "ends inside the block's RLP header"},
		{name: "content cut short", in: "c50102", err: errTruncated, detail: "claims 5 bytes of content, the file ends after 2"},
		{name: "leading zero", in: "f80100", err: errBadSize},
		{name: "long form under 56", in: "f837" + strings.Repeat("01", 55), err: errBadSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := hex.DecodeString(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			limit := tt.limit
			if limit == 0 {
				limit = maxBlockSize
			}
			for _, oneByte := range []bool{false, true} {
				var src io.Reader = bytes.NewReader(in)
				if oneByte {
					src = iotest.OneByteReader(src)
				}
				checkFraming(t, newBlockReader(src, limit), tt.blocks, tt.err, tt.offset, tt.detail)
			}
		})
	}
}

// checkFraming reads r to its end or first fault and checks the blocks read
// and the fault against what TestBlockReaderFraming wants.
func checkFraming(t *testing.T, r *blockReader, blocks []string, want error, wantOffset int64, detail string) {
	t.Helper()
	var got []string
	var offset int64
	var err error
	for {
		var block []byte
		block, offset, err = r.Append(nil)
		if err != nil {
			break
		}
		got = append(got, hex.EncodeToString(block))
	}
	if strings.Join(got, " ") != strings.Join(blocks, " ") {
		t.Errorf("blocks %v, want %v", got, blocks)
	}
	if want == nil {
		if !errors.Is(err, io.EOF) {
			t.Errorf("error %v, want io.EOF", err)
		}
		return
	}
	var fe *framingError
	if !errors.As(err, &fe) || !errors.Is(err, want) {
		t.Errorf("error %v, want a framing error %v", err, want)
		return
	}
	if fe.Index != len(blocks) || fe.Offset != wantOffset || offset != wantOffset {
		t.Errorf("fault at block %d, offset %d (returned %d); want block %d, offset %d", fe.Index, fe.Offset, offset, len(blocks), wantOffset)
	}
	if !strings.Contains(err.Error(), detail) {
		t.Errorf("error %q does not say %q", err, detail)
	}
}

// FuzzBlockReader checks the chain reader against rlpstream.Split on any
// input: it reads the lists that Split reads, one after the other, and stops
// with the framing error that matches where Split stops (or finds something
// other than a list); it never panics.
func FuzzBlockReader(f *testing.F) {
	for _, s := range []string{"", "c0c20180", "c0" + "05", "b901", "f901", "f80100", "c50102", "ff7fffffffffffffff", "8568656c6c6f"} {
		in, err := hex.DecodeString(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := newBlockReader(iotest.HalfReader(bytes.NewReader(in)), maxBlockSize)
		rest := in
		for {
			block, offset, err := r.Append(nil)
			if offset != int64(len(in)-len(rest)) {
				t.Fatalf("block at offset %d, want %d", offset, len(in)-len(rest))
			}
			if errors.Is(err, io.EOF) {
				if len(rest) != 0 {
					t.Fatalf("io.EOF with %x left", rest)
				}
				return
			}
			k, _, next, serr := rlpstream.Split(rest)
			if err != nil {
				checkFramingError(t, err, rest, k, serr)
				return
			}
			if serr != nil || k != rlpstream.List || !bytes.Equal(block, rest[:len(rest)-len(next)]) {
				t.Fatalf("read block %x from %x; Split: %v %v", block, rest, k, serr)
			}
			rest = next
		}
	})
}

// checkFramingError checks the reader's error on rest against what Split
// says of it: a first byte below 0xc0 is not a list, and a list's faults map
// onto the reader's sentinels.
func checkFramingError(t *testing.T, err error, rest []byte, k rlpstream.Kind, serr error) {
	t.Helper()
	var want []error
	switch {
	case rest[0] < 0xc0:
		want = []error{errNotChain}
	case errors.Is(serr, rlpstream.ErrNonCanonicalSize):
		want = []error{errBadSize}
	case errors.Is(serr, rlpstream.ErrUnexpectedEnd):
		want = []error{errTruncated}
	case errors.Is(serr, rlpstream.ErrValueTooLarge):
		want = []error{errTruncated, errBlockTooLarge}
	default:
		t.Fatalf("reader: %v on %x, which Split reads as a %v", err, rest, k)
	}
	for _, w := range want {
		if errors.Is(err, w) {
			return
		}
	}
	t.Fatalf("reader: %v on %x; Split: %v, want one of %v", err, rest, serr, want)
}

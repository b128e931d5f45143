package rlpstream

import (
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/holiman/uint256"
)

// TestStreamWriterWithoutSink: a StreamWriter made with a nil sink, and the
// zero StreamWriter, fail every write with errNoSink, which Err reports,
// instead of calling through the nil interface.
func TestStreamWriterWithoutSink(t *testing.T) {
	writes := []struct {
		name  string
		write func(s *StreamWriter) error // returns what the method returns, if anything
	}{
		{"WriteBytes", func(s *StreamWriter) error { s.WriteBytes([]byte("dog")); return nil }},
		{"WriteBytes one byte", func(s *StreamWriter) error { s.WriteBytes([]byte{1}); return nil }},
		{"WriteString", func(s *StreamWriter) error { s.WriteString("dog"); return nil }},
		{"WriteUint64", func(s *StreamWriter) error { s.WriteUint64(1000); return nil }},
		{"WriteBool", func(s *StreamWriter) error { s.WriteBool(true); return nil }},
		{"WriteBigInt", func(s *StreamWriter) error { return s.WriteBigInt(big.NewInt(1000)) }},
		{"WriteUint256", func(s *StreamWriter) error { s.WriteUint256(uint256.NewInt(1000)); return nil }},
		{"WriteListHeader", func(s *StreamWriter) error { s.WriteListHeader(3); return nil }},
		{"WriteTypedTxHeader", func(s *StreamWriter) error { s.WriteTypedTxHeader(2, 3); return nil }},
		{"WriteRaw", func(s *StreamWriter) error { s.WriteRaw([]byte{0xc0}); return nil }},
	}
	sinks := []struct {
		name string
		make func() *StreamWriter
	}{
		{"NewStreamWriter(nil)", func() *StreamWriter { return NewStreamWriter(nil) }},
		{"zero StreamWriter", func() *StreamWriter { return new(StreamWriter) }},
	}
	for _, sink := range sinks {
		for _, w := range writes {
			t.Run(sink.name+"/"+w.name, func(t *testing.T) {
				s := sink.make()
				panicked, returned := callRecovering(func() error { return w.write(s) })
				if panicked != nil {
					t.Fatalf("panics: %v", panicked)
				}
				if !errors.Is(s.Err(), errNoSink) {
					t.Errorf("Err() = %v, want errNoSink", s.Err())
				}
				if w.name == "WriteBigInt" && !errors.Is(returned, errNoSink) {
					t.Errorf("WriteBigInt returned %v, want errNoSink", returned)
				}
			})
		}
	}
}

// TestStreamWriterBigIntSinkError: WriteBigInt returns the error of a sink
// that fails during the write, as Err reports it, not nil.
func TestStreamWriterBigIntSinkError(t *testing.T) {
	large := new(big.Int).Lsh(big.NewInt(1), 300) // long enough for chunks
	cases := []struct {
		name  string
		x     *big.Int
		limit int // bytes the sink takes before it fails
	}{
		{"nil, sink full", nil, 0},
		{"small, sink full", big.NewInt(5), 0},
		{"uint64, sink full", big.NewInt(1000), 0},
		{"uint64, content fails", big.NewInt(1000), 1},
		{"large, sink full", large, 0},
		{"large, content fails", large, 1},
		{"large, last byte fails", large, BigIntSize(large) - 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sw := NewStreamWriter(&failWriter{limit: c.limit})
			if err := sw.WriteBigInt(c.x); !errors.Is(err, errSink) {
				t.Errorf("WriteBigInt = %v, want the sink's error %v", err, errSink)
			}
			if !errors.Is(sw.Err(), errSink) {
				t.Errorf("Err() = %v, want the sink's error %v", sw.Err(), errSink)
			}
		})
	}
}

// TestOffsetErrorWithoutErr: an OffsetError made without a sentinel has a
// message, and its Error does not dereference the nil Err.
func TestOffsetErrorWithoutErr(t *testing.T) {
	cases := []struct {
		err  *OffsetError
		want string
	}{
		{&OffsetError{}, "rlpstream: invalid input at offset 0"},
		{&OffsetError{Offset: 7}, "rlpstream: invalid input at offset 7"},
	}
	for _, c := range cases {
		var got string
		panicked, _ := callRecovering(func() error { got = c.err.Error(); return nil })
		if panicked != nil || got != c.want {
			t.Errorf("%#v.Error() = %q (panic %v), want %q", c.err, got, panicked, c.want)
		}
	}
}

// TestNegativeSizePanics: the size functions reject a negative content
// size as the header writers do, with a panic, instead of answering with
// the size of a short header as if the content were small.
func TestNegativeSizePanics(t *testing.T) {
	cases := []struct {
		name string
		size func() int
	}{
		{"HeaderSize(-1)", func() int { return HeaderSize(-1) }},
		{"HeaderSize(-100)", func() int { return HeaderSize(-100) }},
		{"ListSize(-1)", func() int { return ListSize(-1) }},
		{"ListSize(-60)", func() int { return ListSize(-60) }},
		{"TypedTxSize(-1)", func() int { return TypedTxSize(-1) }},
	}
	for _, c := range cases {
		var got int
		panicked, _ := callRecovering(func() error { got = c.size(); return nil })
		if fmt.Sprint(panicked) != "rlpstream: negative content size" {
			t.Errorf("%s = %d, panic %v; want the panic \"rlpstream: negative content size\"", c.name, got, panicked)
		}
	}
}

// callRecovering calls f and returns what it panicked with, nil if it did
// not, and otherwise its result.
func callRecovering(f func() error) (panicked any, err error) {
	defer func() { panicked = recover() }()
	return nil, f()
}

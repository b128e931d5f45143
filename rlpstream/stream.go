package rlpstream

import (
	"errors"
	"io"
	"math/big"

	"github.com/holiman/uint256"
)

// ByteWriter is what StreamWriter needs of its sink: Write for content and
// WriteByte for every header and every single byte. *bytes.Buffer and
// *bufio.Writer satisfy it, and so does *fastkeccak.Hasher (though Writer is
// the faster way to hash).
type ByteWriter interface {
	io.Writer
	io.ByteWriter
}

// StreamWriter encodes RLP straight into any ByteWriter. It produces the same
// bytes as Writer and the Append functions; use it for sinks other than a
// hasher, such as a buffered file or network writer.
//
// Writes cannot fail on their own, but the sink can: the first error it
// returns is kept, every later write is skipped, and Err reports it. A
// StreamWriter without a sink (NewStreamWriter(nil), or the zero
// StreamWriter) fails the same way at its first write, with an error that
// says it has no sink, where calling the nil sink would panic. Like
// every encoder of this package, StreamWriter writes front to back, so the
// size of a list's content must be known before its header is written (see
// ListSize and the other size functions).
type StreamWriter struct {
	w   ByteWriter
	sw  io.StringWriter // w, if it has WriteString; nil otherwise
	err error
}

// NewStreamWriter returns a StreamWriter that writes into w.
func NewStreamWriter(w ByteWriter) *StreamWriter {
	sw, _ := w.(io.StringWriter)
	return &StreamWriter{w: w, sw: sw}
}

// Err returns the first error of the sink or of WriteBigInt, or nil.
func (s *StreamWriter) Err() error { return s.err }

// errNoSink is the error of a StreamWriter that has no sink to write to.
var errNoSink = errors.New("rlpstream: StreamWriter without a sink")

// put, write and writeString skip their write once the sink has failed,
// and keep its first error: a value whose header failed must not reach a
// sink that recovers with its content alone.
func (s *StreamWriter) put(c byte) {
	if s.writable() {
		s.err = s.w.WriteByte(c)
	}
}

func (s *StreamWriter) write(p []byte) {
	if s.writable() {
		_, s.err = s.w.Write(p)
	}
}

// writable reports whether a write may go to the sink: none has failed,
// and there is one (without, the write fails with errNoSink, where a call
// through the nil interface would panic).
func (s *StreamWriter) writable() bool {
	if s.err == nil && s.w == nil {
		s.err = errNoSink
	}
	return s.err == nil
}

// putAll writes p one WriteByte a byte. It is for the pieces the
// primitives build on the stack: handed to the sink's Write, through an
// interface, they would escape and be allocated on the heap.
func (s *StreamWriter) putAll(p []byte) {
	for _, c := range p {
		s.put(c)
	}
}

func (s *StreamWriter) writeString(str string) {
	if s.sw != nil { // never set without a sink: put reports errNoSink
		if s.err == nil {
			_, s.err = s.sw.WriteString(str)
		}
		return
	}
	for i := 0; i < len(str) && s.err == nil; i++ {
		s.put(str[i])
	}
}

// header writes the header of a string (base 0x80) or list (base 0xc0) whose
// content is n bytes long.
func (s *StreamWriter) header(base byte, n int) {
	if uint(n) < 56 {
		s.put(base + byte(n))
		return
	}
	var buf [maxLongHeader]byte
	s.putAll(longHeader(&buf, base, n))
}

// WriteBytes writes b as a byte string: a single byte below 0x80 as itself,
// anything else (the empty string included) after a header. Fixed-size
// arrays such as addresses and hashes are written as WriteBytes(a[:]).
func (s *StreamWriter) WriteBytes(b []byte) {
	if s.err != nil {
		return
	}
	if len(b) == 1 && b[0] < 0x80 {
		s.put(b[0])
		return
	}
	s.header(0x80, len(b))
	if len(b) > 0 {
		s.write(b)
	}
}

// WriteString writes str as a byte string, exactly as WriteBytes would.
func (s *StreamWriter) WriteString(str string) {
	if s.err != nil {
		return
	}
	if len(str) == 1 && str[0] < 0x80 {
		s.put(str[0])
		return
	}
	s.header(0x80, len(str))
	if len(str) > 0 {
		s.writeString(str)
	}
}

// WriteUint64 writes x as an integer: its big-endian bytes without leading
// zeros as a byte string, so 0 is 0x80 and 1 to 127 are single bytes.
func (s *StreamWriter) WriteUint64(x uint64) {
	if s.err != nil {
		return
	}
	if x < 0x80 {
		s.put(smallInt(x))
		return
	}
	var buf [8]byte
	content := uint64Bytes(&buf, x)
	s.put(0x80 + byte(len(content)))
	s.putAll(content)
}

// WriteBool writes true as 0x01 and false as 0x80, as the integers 1 and 0.
func (s *StreamWriter) WriteBool(v bool) {
	if s.err != nil {
		return
	}
	s.put(boolByte(v))
}

// WriteBigInt writes x as an integer like WriteUint64; nil is written as zero.
// A negative x writes nothing and returns ErrNegativeBigInt, which Err then
// reports as well. After an earlier error it writes nothing and returns that
// error, and if the sink fails during this write it returns the sink's
// error: a nil result means x was written whole.
func (s *StreamWriter) WriteBigInt(x *big.Int) error {
	switch {
	case s.err != nil:
		return s.err
	case x == nil:
		// Here and below, s.err: the sink may have failed on this
		// write, and nil would tell the caller x was written.
		s.put(0x80)
		return s.err
	case x.Sign() < 0:
		s.err = ErrNegativeBigInt
		return ErrNegativeBigInt
	case x.BitLen() <= 64:
		s.WriteUint64(x.Uint64())
		return s.err
	}
	n := bigIntLen(x)
	s.header(0x80, n)
	var buf [bigIntChunk]byte
	for off := 0; off < n; off += bigIntChunk {
		chunk := buf[:min(bigIntChunk, n-off)]
		bigIntBytes(chunk, x, off, n)
		s.putAll(chunk)
	}
	return s.err
}

// WriteUint256 writes x as an integer like WriteUint64; nil is written as
// zero.
func (s *StreamWriter) WriteUint256(x *uint256.Int) {
	switch {
	case s.err != nil:
	case x == nil:
		s.put(0x80)
	case x.IsUint64():
		s.WriteUint64(x[0])
	default:
		var buf [32]byte
		content := uint256Bytes(&buf, x)
		s.put(0x80 + byte(len(content)))
		s.putAll(content)
	}
}

// WriteListHeader writes the header of a list whose content, written next by
// the caller, is contentSize bytes long. It panics if contentSize is negative.
func (s *StreamWriter) WriteListHeader(contentSize int) {
	if s.err != nil {
		return
	}
	s.header(0xc0, contentSize)
}

// WriteTypedTxHeader writes the start of a typed-transaction envelope as
// go-ethereum hashes it: the transaction type byte, then the header of the
// RLP list whose content, written next, is contentSize bytes long. It
// panics if contentSize is negative.
func (s *StreamWriter) WriteTypedTxHeader(txType byte, contentSize int) {
	if s.err != nil {
		return
	}
	s.put(txType)
	s.header(0xc0, contentSize)
}

// WriteRaw writes raw, an already encoded item (or several), unchanged. Its
// size is len(raw). The caller vouches that raw is valid RLP; see Validate.
func (s *StreamWriter) WriteRaw(raw []byte) {
	if s.err != nil || len(raw) == 0 {
		return
	}
	s.write(raw)
}

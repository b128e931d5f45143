package rlpstream

import (
	"io"
	"math/big"
	"math/bits"

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
// returns is kept, every later write is skipped, and Err reports it. Like
// every encoder of this package, StreamWriter writes front to back, so the
// size of a list's content must be known before its header is written (see
// ListSize and the other size functions).
type StreamWriter[W ByteWriter] struct {
	w   W
	err error
}

// NewStreamWriter returns a StreamWriter that writes into w.
func NewStreamWriter[W ByteWriter](w W) *StreamWriter[W] {
	return &StreamWriter[W]{w: w}
}

// Err returns the first error of the sink or of WriteBigInt, or nil.
func (s *StreamWriter[W]) Err() error { return s.err }

func (s *StreamWriter[W]) put(c byte) {
	if err := s.w.WriteByte(c); err != nil && s.err == nil {
		s.err = err
	}
}

func (s *StreamWriter[W]) write(p []byte) {
	if _, err := s.w.Write(p); err != nil && s.err == nil {
		s.err = err
	}
}

func (s *StreamWriter[W]) writeString(str string) {
	if sw, ok := any(s.w).(io.StringWriter); ok {
		if _, err := sw.WriteString(str); err != nil && s.err == nil {
			s.err = err
		}
		return
	}
	for i := 0; i < len(str) && s.err == nil; i++ {
		s.put(str[i])
	}
}

// header writes the header of a string (base 0x80) or list (base 0xc0) whose
// content is n bytes long.
func (s *StreamWriter[W]) header(base byte, n int) {
	if uint(n) < 56 {
		s.put(base + byte(n))
		return
	}
	l := longLen(n)
	s.put(base + 55 + byte(l))
	s.putUint(uint64(n), l)
}

// putUint writes the low l bytes of x big-endian, one WriteByte each.
func (s *StreamWriter[W]) putUint(x uint64, l int) {
	for i := l - 1; i >= 0; i-- {
		s.put(byte(x >> (8 * uint(i))))
	}
}

// WriteBytes writes b as a byte string: a single byte below 0x80 as itself,
// anything else (the empty string included) after a header. Fixed-size
// arrays such as addresses and hashes are written as WriteBytes(a[:]).
func (s *StreamWriter[W]) WriteBytes(b []byte) {
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
func (s *StreamWriter[W]) WriteString(str string) {
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
func (s *StreamWriter[W]) WriteUint64(x uint64) {
	if s.err != nil {
		return
	}
	if x < 0x80 {
		s.put(smallInt(x))
		return
	}
	l := uintLen(x)
	s.put(0x80 + byte(l))
	s.putUint(x, l)
}

// WriteBool writes true as 0x01 and false as 0x80, as the integers 1 and 0.
func (s *StreamWriter[W]) WriteBool(v bool) {
	if s.err != nil {
		return
	}
	s.put(boolByte(v))
}

// WriteBigInt writes x as an integer like WriteUint64; nil is written as zero.
// A negative x writes nothing and returns ErrNegativeBigInt, which Err then
// reports as well. After an earlier error it writes nothing and returns that
// error.
func (s *StreamWriter[W]) WriteBigInt(x *big.Int) error {
	if s.err != nil {
		return s.err
	}
	if x == nil {
		s.put(0x80)
		return nil
	}
	if x.Sign() < 0 {
		s.err = ErrNegativeBigInt
		return ErrNegativeBigInt
	}
	if x.BitLen() <= 64 {
		s.WriteUint64(x.Uint64())
		return nil
	}
	n := (x.BitLen() + 7) >> 3
	s.header(0x80, n)
	words := x.Bits()
	for i := n - 1; i >= 0; i-- {
		s.put(byte(words[i/wordBytes] >> (8 * uint(i%wordBytes))))
	}
	return nil
}

// WriteUint256 writes x as an integer like WriteUint64; nil is written as
// zero.
func (s *StreamWriter[W]) WriteUint256(x *uint256.Int) {
	if s.err != nil {
		return
	}
	if x == nil {
		s.put(0x80)
		return
	}
	bl := x.BitLen()
	if bl <= 7 {
		s.put(smallInt(x[0]))
		return
	}
	n := (bl + 7) >> 3
	s.put(0x80 + byte(n))
	for i := n - 1; i >= 0; i-- {
		s.put(byte(x[i>>3] >> (8 * uint(i&7))))
	}
}

// WriteListHeader writes the header of a list whose content, written next by
// the caller, is contentSize bytes long. It panics if contentSize is negative.
func (s *StreamWriter[W]) WriteListHeader(contentSize int) {
	if s.err != nil {
		return
	}
	s.header(0xc0, contentSize)
}

// WriteTypedTxHeader writes the start of a typed-transaction envelope as
// go-ethereum hashes it: the transaction type byte, then the header of the
// RLP list whose content, written next, is contentSize bytes long.
func (s *StreamWriter[W]) WriteTypedTxHeader(txType byte, contentSize int) {
	if s.err != nil {
		return
	}
	s.put(txType)
	s.header(0xc0, contentSize)
}

// WriteRaw writes raw, an already encoded item (or several), unchanged. Its
// size is len(raw). The caller vouches that raw is valid RLP; see Validate.
func (s *StreamWriter[W]) WriteRaw(raw []byte) {
	if s.err != nil || len(raw) == 0 {
		return
	}
	s.write(raw)
}

// smallInt returns the one-byte encoding of an integer below 0x80.
func smallInt[T uint64 | byte](x T) byte {
	if x == 0 {
		return 0x80
	}
	return byte(x)
}

// boolByte returns the encoding of a bool.
func boolByte(v bool) byte {
	if v {
		return 0x01
	}
	return 0x80
}

// longLen returns the number of bytes of the length field of a long-form
// header for n bytes of content. It panics on a negative size, which can only
// come from a bug in the caller's size arithmetic.
func longLen(n int) int {
	if n < 0 {
		panic("rlpstream: negative content size")
	}
	return uintLen(uint64(n))
}

// wordBytes is the size of a big.Word in bytes: 8, or 4 on 32-bit platforms.
const wordBytes = bits.UintSize / 8

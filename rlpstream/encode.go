package rlpstream

import (
	"math/big"

	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// Writer encodes RLP straight into a Keccak-256 hasher, so that hashing an
// RLP value needs no buffer and no allocation. Every header and every single
// byte goes through the hasher's one-byte fast path; string content goes
// through Write.
//
// Writer is a small value around a concrete *fastkeccak.Hasher, not an
// interface, so that the hasher's WriteByte inlines into its methods and the
// methods themselves cost no more than a direct call. It writes front to
// back: the size of a list's content must be known before its header is
// written, which the size functions (BytesSize, Uint64Size, ListSize and the
// rest) compute without encoding anything:
//
//	var h fastkeccak.Hasher
//	w := rlpstream.NewWriter(&h)
//	w.WriteListHeader(rlpstream.Uint64Size(nonce) + rlpstream.BytesSize(root[:]))
//	w.WriteUint64(nonce)
//	w.WriteBytes(root[:])
//	sum := h.Sum256()
//
// The hasher cannot fail, so only WriteBigInt returns an error. The zero
// Writer has no hasher and must not be used.
type Writer struct {
	h *fastkeccak.Hasher
}

// NewWriter returns a Writer that writes into h, which must not be nil (a
// Writer without a hasher is the zero Writer, which must not be used).
func NewWriter(h *fastkeccak.Hasher) Writer { return Writer{h: h} }

// Hasher returns the hasher the Writer writes into.
func (w Writer) Hasher() *fastkeccak.Hasher { return w.h }

// header writes the header of a string (base 0x80) or list (base 0xc0) whose
// content is n bytes long. The short form is one byte; the rare long form is
// out of line.
func (w Writer) header(base byte, n int) {
	if uint(n) < 56 {
		w.h.WriteByte(base + byte(n))
		return
	}
	w.longHeader(base, n)
}

// longHeader writes a long-form header, one WriteByte a byte.
func (w Writer) longHeader(base byte, n int) {
	var buf [maxLongHeader]byte
	for _, c := range longHeader(&buf, base, n) {
		w.h.WriteByte(c)
	}
}

// WriteBytes writes b as a byte string: a single byte below 0x80 as itself,
// anything else (the empty string included) after a header. Fixed-size
// arrays such as addresses and hashes are written as WriteBytes(a[:]).
func (w Writer) WriteBytes(b []byte) {
	if len(b) < 56 {
		if len(b) == 1 && b[0] < 0x80 {
			w.h.WriteByte(b[0])
			return
		}
		w.h.WriteByte(0x80 + byte(len(b)))
	} else {
		w.longHeader(0x80, len(b))
	}
	w.h.Write(b)
}

// WriteString writes s as a byte string, exactly as WriteBytes would.
func (w Writer) WriteString(s string) {
	if len(s) < 56 {
		if len(s) == 1 && s[0] < 0x80 {
			w.h.WriteByte(s[0])
			return
		}
		w.h.WriteByte(0x80 + byte(len(s)))
	} else {
		w.longHeader(0x80, len(s))
	}
	w.h.WriteString(s)
}

// WriteUint64 writes x as an integer: its big-endian bytes without leading
// zeros as a byte string, so 0 is 0x80 and 1 to 127 are single bytes.
func (w Writer) WriteUint64(x uint64) {
	if x < 0x80 {
		w.h.WriteByte(smallInt(x))
		return
	}
	w.writeUint64Long(x)
}

// writeUint64Long writes an integer of 0x80 or more: the header through
// WriteByte, then the value's bytes in one Write from the stack.
func (w Writer) writeUint64Long(x uint64) {
	var buf [8]byte
	content := uint64Bytes(&buf, x)
	w.h.WriteByte(0x80 + byte(len(content)))
	w.h.Write(content)
}

// WriteBool writes true as 0x01 and false as 0x80, as the integers 1 and 0.
func (w Writer) WriteBool(v bool) {
	w.h.WriteByte(boolByte(v))
}

// WriteBigInt writes x as an integer like WriteUint64; nil is written as zero.
// A negative x writes nothing and returns ErrNegativeBigInt.
func (w Writer) WriteBigInt(x *big.Int) error {
	switch {
	case x == nil:
		w.h.WriteByte(0x80)
		return nil
	case x.Sign() < 0:
		return ErrNegativeBigInt
	case x.BitLen() <= 64:
		w.WriteUint64(x.Uint64())
		return nil
	}
	n := bigIntLen(x)
	w.header(0x80, n)
	var buf [bigIntChunk]byte
	for off := 0; off < n; off += bigIntChunk {
		chunk := buf[:min(bigIntChunk, n-off)]
		bigIntBytes(chunk, x, off, n)
		w.h.Write(chunk)
	}
	return nil
}

// WriteUint256 writes x as an integer like WriteUint64; nil is written as
// zero.
func (w Writer) WriteUint256(x *uint256.Int) {
	switch {
	case x == nil:
		w.h.WriteByte(0x80)
	case x.IsUint64():
		w.WriteUint64(x[0])
	default:
		w.writeUint256Long(x)
	}
}

// writeUint256Long writes an integer of more than 64 bits.
func (w Writer) writeUint256Long(x *uint256.Int) {
	var buf [32]byte
	content := uint256Bytes(&buf, x)
	w.h.WriteByte(0x80 + byte(len(content)))
	w.h.Write(content)
}

// WriteListHeader writes the header of a list whose content, written next by
// the caller, is contentSize bytes long (see ListSize). It panics if
// contentSize is negative.
func (w Writer) WriteListHeader(contentSize int) {
	w.header(0xc0, contentSize)
}

// WriteTypedTxHeader writes the start of a typed-transaction envelope as
// go-ethereum hashes it (for the transaction hash and the signing hash): the
// transaction type byte, then the header of the RLP list whose content,
// written next, is contentSize bytes long. The envelope's size is
// TypedTxSize(contentSize). It panics if contentSize is negative.
func (w Writer) WriteTypedTxHeader(txType byte, contentSize int) {
	w.h.WriteByte(txType)
	w.header(0xc0, contentSize)
}

// WriteRaw writes raw, an already encoded item (or several), unchanged. Its
// size is len(raw). The caller vouches that raw is valid RLP; see Validate.
func (w Writer) WriteRaw(raw []byte) {
	w.h.Write(raw)
}

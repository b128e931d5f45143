package rlpstream

import (
	"math/big"
	"math/bits"

	"github.com/holiman/uint256"
)

// The size functions below return the number of bytes that the matching
// Write, Append or StreamWriter method produces for a value. They are plain
// arithmetic, so a caller can add up the sizes of a list's elements and write
// the list header before its content, which is what lets the encoder stream
// front to back without a buffer.

// HeaderSize returns the size of the header of a byte string or list whose
// content is n bytes long, for callers that write the content themselves
// (a byte string of one byte below 0x80 has no header; see BytesSize). It
// panics if n is negative, as the header writers do: a negative size can
// only come from a bug in the caller's size arithmetic.
func HeaderSize(n int) int {
	return headerSize(n)
}

// headerSize returns the size of the header of a string or list whose content
// is n bytes long. A negative n panics (in longLen), as in the header
// writers, rather than passing for a short size: a list size computed from
// it would be silently wrong.
func headerSize(n int) int {
	if uint(n) < 56 {
		return 1
	}
	return 1 + longLen(n)
}

// uintLen returns the number of bytes of x written big-endian without leading
// zero bytes; zero for x == 0.
func uintLen(x uint64) int {
	return (bits.Len64(x) + 7) >> 3
}

// BytesSize returns the size of the encoding of the byte string b. A single
// byte below 0x80 is its own encoding; any other string, including the empty
// one, gets a header. For a fixed-size array such as an address or a hash,
// pass a slice of it: BytesSize(addr[:]).
func BytesSize(b []byte) int {
	if len(b) == 1 && b[0] < 0x80 {
		return 1
	}
	return headerSize(len(b)) + len(b)
}

// StringSize returns the size of the encoding of s, which is encoded as a byte
// string exactly like BytesSize([]byte(s)).
func StringSize(s string) int {
	if len(s) == 1 && s[0] < 0x80 {
		return 1
	}
	return headerSize(len(s)) + len(s)
}

// Uint64Size returns the size of the encoding of x: the big-endian bytes of x
// without leading zeros, as a byte string (zero is the empty string).
func Uint64Size(x uint64) int {
	if x < 0x80 {
		return 1
	}
	return 1 + uintLen(x)
}

// BigIntSize returns the size of the encoding of x; nil encodes like zero. The
// sign is ignored: encoding a negative value fails with ErrNegativeBigInt.
func BigIntSize(x *big.Int) int {
	if x == nil {
		return 1
	}
	n := x.BitLen()
	if n <= 7 {
		return 1
	}
	n = (n + 7) >> 3
	return headerSize(n) + n
}

// Uint256Size returns the size of the encoding of x; nil encodes like zero.
func Uint256Size(x *uint256.Int) int {
	if x == nil {
		return 1
	}
	n := x.BitLen()
	if n <= 7 {
		return 1
	}
	return 1 + (n+7)>>3
}

// BoolSize returns the size of the encoding of a bool, which is always one
// byte (0x01 for true, 0x80 for false). It exists so that size computations
// read the same for every kind of value.
func BoolSize(bool) int { return 1 }

// ListSize returns the size of a list whose content (the concatenated
// encodings of its elements) is contentSize bytes long: the header plus the
// content. Nested lists compose: the content size of a list is the sum of
// the sizes of its elements, lists included. It panics if contentSize is
// negative.
func ListSize(contentSize int) int {
	return headerSize(contentSize) + contentSize
}

// TypedTxSize returns the size of a typed-transaction envelope whose RLP list
// has contentSize bytes of content: the type byte plus the list. It panics
// if contentSize is negative.
func TypedTxSize(contentSize int) int {
	return 1 + ListSize(contentSize)
}

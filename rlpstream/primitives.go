package rlpstream

import (
	"encoding/binary"
	"math/big"
	"math/bits"

	"github.com/holiman/uint256"
)

// The three encoders (Writer, StreamWriter and the Append functions) are
// written on the primitives below, which say once how each part of an
// encoding is formed. Each builds its bytes in a small array on the caller's
// stack, or in the caller's slice; the encoders only decide where the bytes
// go: a hasher's one-byte WriteByte and its Write, a sink's, or an append.

// maxLongHeader is the size of the longest header: the prefix byte and a
// length of up to eight bytes.
const maxLongHeader = 9

// longHeader builds in buf the long-form header of a string (base 0x80) or
// list (base 0xc0) whose content is n bytes long, n >= 56: 0xb7 or 0xf7 plus
// the length of the size, then the size big-endian. It panics on a negative
// size, which can only come from a bug in the caller's size arithmetic.
func longHeader(buf *[maxLongHeader]byte, base byte, n int) []byte {
	l := longLen(n)
	binary.BigEndian.PutUint64(buf[1:], uint64(n))
	buf[8-l] = base + 55 + byte(l)
	return buf[8-l:]
}

// uint64Bytes builds in buf the big-endian bytes of x without leading zeros:
// the content of the integer x, for x >= 0x80.
func uint64Bytes(buf *[8]byte, x uint64) []byte {
	binary.BigEndian.PutUint64(buf[:], x)
	return buf[8-uintLen(x):]
}

// uint256Bytes builds in buf the big-endian bytes of x without leading
// zeros: the content of the integer x, for x >= 0x80.
func uint256Bytes(buf *[32]byte, x *uint256.Int) []byte {
	x.PutUint256(buf[:])
	return buf[32-(x.BitLen()+7)>>3:]
}

// bigIntLen returns the number of big-endian bytes of x without leading
// zeros, the length of its content; x must not be negative.
func bigIntLen(x *big.Int) int { return (x.BitLen() + 7) >> 3 }

// bigIntBytes fills dst with the bytes off to off+len(dst) of the n-byte
// big-endian form of x (n = bigIntLen(x)), so that an encoder can write an
// integer of any size through a fixed buffer. The whole form at once is
// big.Int's FillBytes; a part is read from the words.
func bigIntBytes(dst []byte, x *big.Int, off, n int) {
	if off == 0 && len(dst) == n {
		x.FillBytes(dst)
		return
	}
	words := x.Bits()
	for i := range dst {
		k := n - 1 - off - i // byte k of x, counted from the least significant
		dst[i] = byte(words[k/wordBytes] >> (8 * uint(k%wordBytes)))
	}
}

// bigIntChunk is the part of a big integer's content that the streaming
// encoders build on their stack at a time: a 256-bit integer in one piece.
const bigIntChunk = 32

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

package rlpstream

import (
	"math/big"
	"slices"

	"github.com/holiman/uint256"
)

// The Append functions encode into a byte slice, in the manner of
// strconv.AppendInt: each appends the encoding of one value to dst and
// returns the extended slice. They produce the same bytes as Writer and
// StreamWriter, and allocate only when dst has to grow; size the slice with
// the size functions to avoid even that.

// appendHeader appends the header of a string (base 0x80) or list (base
// 0xc0) whose content is n bytes long.
func appendHeader(dst []byte, base byte, n int) []byte {
	if uint(n) < 56 {
		return append(dst, base+byte(n))
	}
	var buf [maxLongHeader]byte
	return append(dst, longHeader(&buf, base, n)...)
}

// AppendBytes appends the encoding of the byte string b (see
// StreamWriter.WriteBytes).
func AppendBytes(dst, b []byte) []byte {
	if len(b) == 1 && b[0] < 0x80 {
		return append(dst, b[0])
	}
	return append(appendHeader(dst, 0x80, len(b)), b...)
}

// AppendString appends the encoding of s as a byte string.
func AppendString(dst []byte, s string) []byte {
	if len(s) == 1 && s[0] < 0x80 {
		return append(dst, s[0])
	}
	return append(appendHeader(dst, 0x80, len(s)), s...)
}

// AppendUint64 appends the encoding of the integer x (see
// StreamWriter.WriteUint64).
func AppendUint64(dst []byte, x uint64) []byte {
	if x < 0x80 {
		return append(dst, smallInt(x))
	}
	var buf [8]byte
	content := uint64Bytes(&buf, x)
	return append(append(dst, 0x80+byte(len(content))), content...)
}

// AppendBool appends the encoding of v: 0x01 for true, 0x80 for false.
func AppendBool(dst []byte, v bool) []byte {
	return append(dst, boolByte(v))
}

// AppendBigInt appends the encoding of the integer x; nil is encoded as zero. A
// negative x appends nothing and returns ErrNegativeBigInt.
func AppendBigInt(dst []byte, x *big.Int) ([]byte, error) {
	switch {
	case x == nil:
		return append(dst, 0x80), nil
	case x.Sign() < 0:
		return dst, ErrNegativeBigInt
	case x.BitLen() <= 64:
		return AppendUint64(dst, x.Uint64()), nil
	}
	n := bigIntLen(x)
	dst = appendHeader(dst, 0x80, n)
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	bigIntBytes(dst[start:], x, 0, n)
	return dst, nil
}

// AppendUint256 appends the encoding of the integer x; nil is encoded as
// zero.
func AppendUint256(dst []byte, x *uint256.Int) []byte {
	switch {
	case x == nil:
		return append(dst, 0x80)
	case x.IsUint64():
		return AppendUint64(dst, x[0])
	}
	var buf [32]byte
	content := uint256Bytes(&buf, x)
	return append(append(dst, 0x80+byte(len(content))), content...)
}

// AppendStringHeader appends the header of a byte string whose content,
// appended next by the caller, is size bytes long. A single byte below 0x80
// takes no header; the caller leaves it out in that case. It panics if size
// is negative.
func AppendStringHeader(dst []byte, size int) []byte {
	return appendHeader(dst, 0x80, size)
}

// AppendListHeader appends the header of a list whose content, appended next
// by the caller, is contentSize bytes long. It panics if contentSize is
// negative.
func AppendListHeader(dst []byte, contentSize int) []byte {
	return appendHeader(dst, 0xc0, contentSize)
}

// AppendTypedTxHeader appends the start of a typed-transaction envelope: the
// type byte, then the header of a list of contentSize bytes of content. It
// panics if contentSize is negative.
func AppendTypedTxHeader(dst []byte, txType byte, contentSize int) []byte {
	return appendHeader(append(dst, txType), 0xc0, contentSize)
}

// AppendRaw appends raw, an already encoded item, unchanged.
func AppendRaw(dst, raw []byte) []byte {
	return append(dst, raw...)
}

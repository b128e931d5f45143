package triehash

import (
	"math/bits"
	"slices"

	"github.com/keccakroot/keccakroot/rlpstream"
)

// Node encodings, written straight from the key bytes without converting the
// key to nibbles first. A trie node is an RLP list: a leaf is [path, value],
// an extension [path, child], a branch [child0..child15, value]. Paths use
// the compact (hex-prefix) encoding of the Ethereum yellow paper, appendix C:
// a flag nibble (2 for a leaf, +1 when the nibble count is odd, followed by
// the first nibble in that case), then the nibbles packed two per byte.

// compactSize is the RLP size of the compact encoding of n nibbles.
func compactSize(n int) int {
	size := n/2 + 1
	if size == 1 {
		return 1 // the flag byte is at most 0x3f: an RLP single byte
	}
	return rlpstream.HeaderSize(size) + size
}

// appendCompact appends, as an RLP string, the compact encoding of nibbles
// [from, to) of key, with the leaf flag if leaf.
func appendCompact(dst, key []byte, from, to int, leaf bool) []byte {
	n := to - from
	if size := n/2 + 1; size > 1 {
		dst = rlpstream.AppendStringHeader(dst, size)
	}
	flag := byte(0x00)
	if leaf {
		flag = 0x20
	}
	if n%2 == 1 {
		dst = append(dst, flag|0x10|nibble(key, from))
		from++
	} else {
		dst = append(dst, flag)
	}
	if from%2 == 0 {
		// Byte-aligned: the packed nibbles are the key's own bytes. Leaves
		// always land here, since keys have an even number of nibbles.
		return append(dst, key[from/2:to/2]...)
	}
	for i := from; i < to; i += 2 {
		dst = append(dst, nibble(key, i)<<4|nibble(key, i+1))
	}
	return dst
}

// refSize is the RLP size of a child reference inside its parent.
func refSize(r *ref) int {
	switch r.size {
	case 0:
		return 1 // the empty string
	case 32:
		return 33
	default:
		return int(r.size) // an embedded node is written raw
	}
}

func appendRef(dst []byte, r *ref) []byte {
	switch r.size {
	case 0:
		return append(dst, 0x80)
	case 32:
		dst = append(dst, 0xa0)
		return append(dst, r.data[:]...)
	default:
		return append(dst, r.data[:r.size]...)
	}
}

// appendLeaf appends the leaf node for nibbles [from, end) of key.
func appendLeaf(dst, key []byte, from int, value []byte) []byte {
	to := 2 * len(key)
	dst = rlpstream.AppendListHeader(dst, compactSize(to-from)+rlpstream.BytesSize(value))
	dst = appendCompact(dst, key, from, to, true)
	return rlpstream.AppendBytes(dst, value)
}

// appendExtension appends the extension node for nibbles [from, to) of key
// leading to child.
func appendExtension(dst, key []byte, from, to int, child *ref) []byte {
	dst = rlpstream.AppendListHeader(dst, compactSize(to-from)+refSize(child))
	dst = appendCompact(dst, key, from, to, false)
	return appendRef(dst, child)
}

// appendBranch appends the branch node br.
func appendBranch(dst []byte, br *branch) []byte {
	return appendBranchAt(dst, br, nil)
}

// appendBranchAt is appendBranch that also sets, if offsets is not nil,
// offsets[i] for every hashed child i to where its 32 hash bytes begin in
// the encoding: the hole a hash that is not known yet goes into.
func appendBranchAt(dst []byte, br *branch, offsets *[16]uint16) []byte {
	valueSize := 1 // the value slot, empty
	if br.hasValue {
		valueSize = rlpstream.BytesSize(br.value)
	}
	size := valueSize + 16
	for m := br.childMask; m != 0; m &= m - 1 {
		size += refSize(&br.children[bits.TrailingZeros16(m)]) - 1
	}
	start := len(dst)
	dst = rlpstream.AppendListHeader(dst, size)
	// One growth for the whole node, then stores by index instead of an
	// append per child.
	at := len(dst)
	dst = slices.Grow(dst, size)[:at+size-valueSize]
	out := dst[at:]
	p := 0
	for i := range br.children {
		if br.childMask&(1<<i) == 0 {
			out[p] = 0x80
			p++
			continue
		}
		r := &br.children[i]
		switch r.size {
		case 0:
			out[p] = 0x80
			p++
		case 32:
			out[p] = 0xa0
			if offsets != nil {
				offsets[i] = uint16(at + p + 1 - start)
			}
			p += 1 + copy(out[p+1:p+33], r.data[:])
		default:
			p += copy(out[p:], r.data[:r.size])
		}
	}
	if br.hasValue {
		return rlpstream.AppendBytes(dst, br.value)
	}
	return append(dst, 0x80)
}

package triehash

import (
	"encoding/binary"
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

// appendHashRef appends a reference by hash: 0xa0 and the 32 bytes of h.
func appendHashRef(dst []byte, h *[32]byte) []byte {
	p := len(dst)
	if p+33 > cap(dst) {
		dst = slices.Grow(dst, 33)
	}
	dst = dst[:p+33]
	putHashRef(dst[p:p+33], h)
	return dst
}

// putHashRef writes 0xa0 and the 32 bytes of h to out[:33]. The hash
// moves as four words, in registers: an append or an array assignment of
// the 32 bytes compiles to a call of memmove, which, with the registers
// saved around it, took much of the time of encoding a branch.
func putHashRef(out []byte, h *[32]byte) {
	_ = out[32]
	out[0] = 0xa0
	binary.LittleEndian.PutUint64(out[1:], binary.LittleEndian.Uint64(h[0:]))
	binary.LittleEndian.PutUint64(out[9:], binary.LittleEndian.Uint64(h[8:]))
	binary.LittleEndian.PutUint64(out[17:], binary.LittleEndian.Uint64(h[16:]))
	binary.LittleEndian.PutUint64(out[25:], binary.LittleEndian.Uint64(h[24:]))
}

func appendRef(dst []byte, r *ref) []byte {
	switch r.size {
	case 0:
		return append(dst, 0x80)
	case 32:
		return appendHashRef(dst, &r.data)
	default:
		return append(dst, r.data[:r.size]...)
	}
}

// appendLeaf appends the leaf node for nibbles [from, end) of key. It is
// the node most of a trie is made of, so it grows dst once and stores by
// index, where appendExtension goes through the append helpers.
func appendLeaf(dst, key []byte, from int, value []byte) []byte {
	n := 2*len(key) - from
	pathBytes := n/2 + 1
	pathSize := pathBytes // a flag byte alone is below 0x80: no header
	if pathBytes > 1 {
		pathSize += rlpstream.HeaderSize(pathBytes)
	}
	payload := pathSize + rlpstream.BytesSize(value)
	at := len(dst)
	total := rlpstream.HeaderSize(payload) + payload
	dst = slices.Grow(dst, total)[:at+total]
	out := dst[at:]
	p := putHeader(out, 0xc0, payload)
	if pathBytes > 1 {
		p += putHeader(out[p:], 0x80, pathBytes)
	}
	if n%2 == 1 {
		out[p] = 0x30 | nibble(key, from)
		from++
	} else {
		out[p] = 0x20
	}
	p++
	// Keys have an even number of nibbles: the rest of the path is the
	// key's own bytes.
	p += copy(out[p:], key[from/2:])
	if len(value) == 1 && value[0] < 0x80 {
		out[p] = value[0]
		return dst
	}
	p += putHeader(out[p:], 0x80, len(value))
	copy(out[p:], value)
	return dst
}

// leafRoom is the most room that the headers and the path of a leaf take
// in front of its value, for a key of keyLen bytes and a value of valueLen:
// see prependLeaf. A leaf hangs one nibble at least below the top of the
// trie, so its path is keyLen compact bytes at most. It is computed for
// every key, so the common case, a key and a value short enough that no
// header takes more than two bytes, is a sum the compiler inlines: the
// path's header is then one byte and the others two at most, a byte more
// than exact for a value under 56 bytes.
func leafRoom(keyLen, valueLen int) int {
	if keyLen < 56 && valueLen < 256-56-3 {
		return 1 + keyLen + 2 + 2
	}
	return longLeafRoom(keyLen, valueLen)
}

// longLeafRoom is leafRoom for any lengths, exact.
func longLeafRoom(keyLen, valueLen int) int {
	path := rlpstream.HeaderSize(keyLen) + keyLen
	valueHeader := rlpstream.HeaderSize(valueLen)
	return rlpstream.HeaderSize(path+valueHeader+valueLen) + path + valueHeader
}

// prependLeaf writes the leaf node for nibbles [from, end) of key, from >=
// 1, whose value is buf[valueStart:valueEnd], in front of the value: the
// leaf is buf[start:valueEnd], the same bytes appendLeaf appends, and the
// leafRoom bytes before valueStart must be free for it.
func prependLeaf(buf []byte, valueStart, valueEnd int, key []byte, from int) (start int) {
	value := buf[valueStart:valueEnd]
	p := valueStart
	if len(value) != 1 || value[0] >= 0x80 {
		p = prependHeader(buf, p, 0x80, len(value))
	}
	// Keys have an even number of nibbles: after the flag byte, and the
	// first nibble if the count is odd, the path is the key's own bytes.
	rest := key[(from+1)/2:]
	if len(key) == 32 {
		// A state trie's key: all of it, in one fixed-size copy that the
		// compiler inlines (copy calls memmove), ending where the path
		// ends. Its bytes before the rest of the path land in the room
		// leafRoom leaves, which the flag byte and the headers overwrite
		// or leave out of the leaf.
		*(*[32]byte)(buf[p-32 : p]) = [32]byte(key)
	} else {
		copy(buf[p-len(rest):], rest)
	}
	p -= len(rest)
	p--
	if from%2 == 1 {
		buf[p] = 0x30 | nibble(key, from)
	} else {
		buf[p] = 0x20
	}
	if pathBytes := len(rest) + 1; pathBytes > 1 {
		p = prependHeader(buf, p, 0x80, pathBytes)
	}
	return prependHeader(buf, p, 0xc0, valueEnd-p)
}

// prependHeader writes the RLP header of a string (base 0x80) or list
// (base 0xc0) of n bytes in the bytes before buf[end], and returns where it
// starts. It is small enough to inline: a leaf needs three headers.
func prependHeader(buf []byte, end int, base byte, n int) (start int) {
	start = end - 1
	if n < 56 {
		buf[start] = base + byte(n)
		return start
	}
	for ; n > 0; n >>= 8 {
		buf[start] = byte(n)
		start--
	}
	buf[start] = base + 55 + byte(end-1-start)
	return start
}

// putHeader writes at the start of out the RLP header of a string (base
// 0x80) or list (base 0xc0) of n bytes, and returns its size, which out
// must have room for (rlpstream.HeaderSize).
func putHeader(out []byte, base byte, n int) int {
	size := rlpstream.HeaderSize(n)
	prependHeader(out, size, base, n)
	return size
}

// appendExtension appends the extension node for nibbles [from, to) of key
// leading to child.
func appendExtension(dst, key []byte, from, to int, child *ref) []byte {
	dst = rlpstream.AppendListHeader(dst, compactSize(to-from)+refSize(child))
	dst = appendCompact(dst, key, from, to, false)
	return appendRef(dst, child)
}

// emptySlots is a branch's sixteen slots, all empty.
var emptySlots = [16]byte{
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
}

// putEmptySlots writes n <= 16 empty strings at out[p:] and returns the
// position after them. Where out has room, it writes all sixteen in one
// store whatever n is: the bytes past the n belong to the rest of the
// node, which the caller writes after them, in order, up to len(out).
func putEmptySlots(out []byte, p, n int) int {
	if len(out)-p >= len(emptySlots) {
		*(*[16]byte)(out[p:]) = emptySlots
	} else {
		copy(out[p:], emptySlots[:n])
	}
	return p + n
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
	// One growth for the whole node, then stores by index instead of an
	// append per child.
	start := len(dst)
	total := rlpstream.HeaderSize(size) + size
	dst = slices.Grow(dst, total)[:start+total-valueSize]
	out := dst[start:]
	p := putHeader(out, 0xc0, size)
	// Children by their bits, the empty slots before each written in one
	// go: which slots are empty is as good as random in a trie of hashed
	// keys, and a test per slot mispredicted several times a branch.
	next := 0 // the first slot not written yet
	for m := br.childMask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros16(m)
		p = putEmptySlots(out, p, i-next)
		next = i + 1
		r := &br.children[i]
		switch r.size {
		case 0:
			out[p] = 0x80
			p++
		case 32:
			out[p] = 0xa0
			if offsets != nil {
				offsets[i] = uint16(p + 1)
			}
			*(*[32]byte)(out[p+1 : p+33]) = r.data
			p += 33
		default:
			p += copy(out[p:], r.data[:r.size])
		}
	}
	putEmptySlots(out, p, 16-next)
	if br.hasValue {
		return rlpstream.AppendBytes(dst, br.value)
	}
	return append(dst, 0x80)
}

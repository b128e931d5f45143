package triehash

import (
	"slices"

	"github.com/keccakroot/keccakroot/rlpstream"
)

// Encodings of a Trie's nodes, as go-ethereum's trie writes them: a leaf is
// [compact key, value], an extension [compact key, child], a branch
// [child0 .. child15, value]. A child is referred to by its hash (a 32-byte
// string), or written in place when its own encoding is shorter than 32
// bytes. Every child must be hashed (its cache filled) before its parent is
// encoded; Hash does that bottom-up.

// childRefSize is the size of child's reference inside its parent.
func childRefSize(child node) int {
	switch c := child.(type) {
	case nil:
		return 1
	case *hashNode:
		return 33
	case valueNode:
		return rlpstream.BytesSize(c)
	}
	c := cacheOf(child)
	if c.refLen == 0 {
		ensureRef(child)
	}
	if c.hashed() {
		return 33
	}
	return int(c.refLen)
}

// appendChildRef appends child's reference inside its parent, whose size
// childRefSize has computed (and with it any missing cache).
func appendChildRef(dst []byte, child node) []byte {
	switch c := child.(type) {
	case nil:
		return append(dst, 0x80)
	case *hashNode:
		return appendHashRef(dst, (*[32]byte)(c))
	case valueNode:
		return rlpstream.AppendBytes(dst, c)
	}
	return appendCachedRef(dst, cacheOf(child))
}

// appendCachedRef appends the reference that the filled cache c holds.
func appendCachedRef(dst []byte, c *nodeCache) []byte {
	if c.hashed() {
		return appendHashRef(dst, &c.ref)
	}
	return append(dst, c.ref[:c.refLen]...)
}

// appendNode appends the encoding of a short or full node.
func appendNode(dst []byte, n node) []byte {
	switch n := n.(type) {
	case *shortNode:
		size := compactSizeOf(n.key) + childRefSize(n.val)
		dst = rlpstream.AppendListHeader(dst, size)
		dst = appendCompactNibbles(dst, n.key)
		return appendChildRef(dst, n.val)
	case *fullNode:
		// One pass: the children go after room for the list header of
		// any branch without a value of 64 KiB, and the content moves back
		// over what the header leaves free.
		const room = 3
		start := len(dst)
		dst = slices.Grow(dst, room+17*33)[:start+room]
		for _, child := range &n.children {
			if h, ok := child.(*hashNode); ok {
				// appendHashRef, written out: the compiler does not
				// inline it, and this is the commonest child.
				p := len(dst)
				if p+33 > cap(dst) {
					dst = slices.Grow(dst, 33)
				}
				dst = dst[:p+33]
				putHashRef(dst[p:p+33], (*[32]byte)(h))
				continue
			}
			// One switch, where childRefSize and appendChildRef would
			// take two, for the children that are not stored hashes.
			var c *nodeCache
			switch child := child.(type) {
			case nil:
				dst = append(dst, 0x80)
				continue
			case valueNode:
				dst = rlpstream.AppendBytes(dst, child)
				continue
			case *shortNode:
				c = &child.cache
			case *fullNode:
				c = &child.cache
			}
			if c.refLen == 0 {
				ensureRef(child)
			}
			dst = appendCachedRef(dst, c)
		}
		size := len(dst) - start - room
		switch header := rlpstream.HeaderSize(size); {
		case header < room:
			copy(dst[start+header:], dst[start+room:])
			dst = dst[:len(dst)-(room-header)]
		case header > room: // a value of 64 KiB or more
			dst = slices.Insert(dst, start+room, make([]byte, header-room)...)
		}
		rlpstream.AppendListHeader(dst[start:start], size)
		return dst
	}
	return dst
}

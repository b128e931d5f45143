package triehash

import "github.com/keccakroot/keccakroot/rlpstream"

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
		return append(append(dst, 0xa0), c[:]...)
	case valueNode:
		return rlpstream.AppendBytes(dst, c)
	}
	c := cacheOf(child)
	if c.hashed() {
		return append(append(dst, 0xa0), c.ref[:]...)
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
		size := 0
		for _, child := range &n.children {
			size += childRefSize(child)
		}
		dst = rlpstream.AppendListHeader(dst, size)
		for _, child := range &n.children {
			dst = appendChildRef(dst, child)
		}
		return dst
	}
	return dst
}

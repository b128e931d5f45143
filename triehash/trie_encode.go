package triehash

import (
	"math/bits"
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

// appendChildRef appends child's reference inside its parent, filling the
// child's cache first if it is empty (as childRefSize does): one switch,
// which a branch's encoder calls without childRefSize for each child.
func appendChildRef(dst []byte, child node) []byte {
	var c *nodeCache
	switch child := child.(type) {
	case nil:
		return append(dst, 0x80)
	case *hashNode:
		return appendHashRef(dst, (*[32]byte)(child))
	case valueNode:
		return rlpstream.AppendBytes(dst, child)
	case *shortNode:
		c = &child.cache
	case *fullNode:
		c = &child.cache
	}
	if c.refLen == 0 {
		ensureRef(child)
	}
	return appendCachedRef(dst, c)
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
		if n.overStored() {
			if n.storedHashes != 0 {
				return appendBranchOverHashes(dst, n)
			}
			if enc, ok := appendBranchOverStored(dst, n); ok {
				return enc
			}
		}
		// One pass: the children go after room for the list header, and
		// the content moves back over what the header leaves free.
		start := len(dst)
		dst = slices.Grow(dst, branchRoom+17*33)[:start+branchRoom]
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
			dst = appendChildRef(dst, child)
		}
		return closeBranchList(dst, start)
	}
	return dst
}

// branchRoom is the room a branch's encoding leaves for its list header
// before its children: enough for any branch without a value of 64 KiB.
const branchRoom = 3

// closeBranchList writes the list header of the branch whose children
// were appended to dst after branchRoom bytes at start, moving them back
// over what the header leaves free.
func closeBranchList(dst []byte, start int) []byte {
	size := len(dst) - start - branchRoom
	switch header := rlpstream.HeaderSize(size); {
	case header < branchRoom:
		copy(dst[start+header:], dst[start+branchRoom:])
		dst = dst[:len(dst)-(branchRoom-header)]
	case header > branchRoom: // a value of 64 KiB or more
		dst = slices.Insert(dst, start+branchRoom, make([]byte, header-branchRoom)...)
	}
	rlpstream.AppendListHeader(dst[start:start], size)
	return dst
}

// appendBranchOverStored appends the encoding of branch n from its stored
// encoding: the items of the children whose rewritten bit is clear are
// copied from there in runs, the others written from the children. A
// changed branch of a large trie has one or two children rewritten, so
// the encoder reads the stored encoding front to back, as one stream,
// and of the node only the lines of those children, where a walk of all
// 17 children reads the node's whole array too. It reports false, having
// appended nothing, if the stored encoding is not a branch whose items it
// can step over; the stored encodings it is called for, checked when
// they were decoded or written by Commit, always are.
func appendBranchOverStored(dst []byte, n *fullNode) ([]byte, bool) {
	items, _, err := rlpstream.SplitList(n.cache.stored)
	if err != nil {
		return dst, false
	}
	start := len(dst)
	dst = slices.Grow(dst, branchRoom+len(items)+17*33)[:start+branchRoom]
	copied, pos := 0, 0 // items[copied:pos] is still to be copied
	for i := range 16 {
		size := 0
		if pos < len(items) {
			size = childItemSize(items[pos])
		}
		if size == 0 || pos+size > len(items) {
			return dst[:start], false
		}
		if n.rewritten&(1<<i) != 0 {
			dst = append(dst, items[copied:pos]...)
			dst = appendChildRef(dst, n.children[i])
			copied = pos + size
		}
		pos += size
	}
	if pos == len(items) {
		return dst[:start], false // no value item
	}
	if n.rewritten&(1<<terminator) != 0 {
		dst = append(dst, items[copied:pos]...)
		dst = appendChildRef(dst, n.children[terminator])
		copied = len(items)
	}
	dst = append(dst, items[copied:]...)
	return closeBranchList(dst, start), true
}

// appendBranchOverHashes is appendBranchOverStored for a branch whose
// stored encoding is a branch of hashes, its layout in n.storedHashes: the
// encoder finds each rewritten child's item by arithmetic, without reading
// the items before it, and copies the runs between them whole.
func appendBranchOverHashes(dst []byte, n *fullNode) []byte {
	stored := n.cache.stored
	layout := layoutOfHashes(len(stored), n.storedHashes)
	start := len(dst)
	dst = slices.Grow(dst, branchRoom+len(stored)+17*33)[:start+branchRoom]
	copied := layout.header
	for rewritten := n.rewritten; rewritten != 0; rewritten &= rewritten - 1 {
		i := bits.TrailingZeros32(rewritten)
		at := layout.itemAt(i)
		dst = append(dst, stored[copied:at]...)
		dst = appendChildRef(dst, n.children[i])
		copied = at + layout.itemSize(i)
	}
	dst = append(dst, stored[copied:]...)
	return closeBranchList(dst, start)
}

// childItemSize returns the size of the branch child item whose first
// byte is b, in a canonical encoding: an empty string, a 32-byte hash, or
// an embedded node of under 32 bytes; 0 for anything else.
func childItemSize(b byte) int {
	switch {
	case b == 0x80:
		return 1
	case b == 0xa0:
		return 33
	case b >= 0xc0 && b < 0xc0+31:
		return 1 + int(b-0xc0)
	}
	return 0
}

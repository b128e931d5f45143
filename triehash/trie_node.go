package triehash

import (
	"bytes"
	"slices"

	"github.com/keccakroot/keccakroot/rlpstream"
)

// The in-memory nodes of a Trie. Keys are held as nibbles, one per byte,
// and a key that ends at a value carries the terminator nibble 16, so that
// a key which is a prefix of another still ends in a node of its own: the
// leaf of "ab" is [a b 16], and under a branch the terminator selects slot
// 16, the branch's value. Paths, as NodeSource and NodeFunc see them, are
// the nibbles from the root to a node, without a terminator.
//
// A node is one of:
//
//	*shortNode  a leaf (key ends with 16, val is a valueNode) or an
//	            extension (val is a *fullNode, or a hashNode for one)
//	*fullNode   a branch: 16 children and, in slot 16, a valueNode
//	hashNode    a stored node that has not been loaded yet
//	valueNode   a value, under a leaf or in a branch's slot 16
type node any

type (
	shortNode struct {
		key   []byte
		val   node
		cache nodeCache
	}
	fullNode struct {
		children [17]node
		cache    nodeCache
		// rewritten has bit i set once children[i] may differ from item
		// i of cache.stored, all 17 bits when no item may be taken from
		// there: the encoder copies the items whose bit is clear from the
		// stored encoding (see appendBranchOverStored). A child loaded in
		// place of its hash leaves the bit clear, since it refers to
		// itself by that hash until it changes, and then the branch's
		// slot is written again (see setChild).
		rewritten uint32
		// storedHashes has bit i set when item i of cache.stored is a
		// hash, when that encoding is a branch of hashes (every item a
		// hash or empty, no value): then the encoder finds each item by
		// arithmetic (see appendBranchOverHashes). It is 0 when the
		// stored encoding is not known to be one, and the encoder steps
		// over its items.
		storedHashes uint16
	}
	hashNode  [32]byte // often aliases the stored parent's encoding
	valueNode []byte
)

// terminator ends the nibbles of a key that leads to a value.
const terminator = 16

// allRewritten is fullNode.rewritten for a branch whose encoding is made
// from its children alone.
const allRewritten = 1<<17 - 1

// childSlots is the bits of fullNode.rewritten for the 16 child slots,
// without the value slot.
const childSlots = 1<<16 - 1

// changeableChildren returns the slots of the children of n that may have
// changed since its encoding was stored: the rewritten ones, or all
// sixteen if it has none stored (a branch made by an update).
func (n *fullNode) changeableChildren() uint32 {
	if n.cache.stored == nil {
		return childSlots
	}
	return n.rewritten & childSlots
}

// overStored reports whether n is encoded over its stored encoding (see
// appendBranchOverStored).
func (n *fullNode) overStored() bool {
	return n.cache.stored != nil && n.rewritten != allRewritten
}

// setChild puts child into slot i of n, as a change: the slot no longer
// encodes as the stored item.
func (n *fullNode) setChild(i int, child node) {
	n.children[i] = child
	n.rewritten |= 1 << i
}

// nodeCache is what a node knows about itself beyond its content.
type nodeCache struct {
	// ref is the node as its parent refers to it: its Keccak-256 hash when
	// refLen is 32, or its whole encoding when shorter (an embedded node).
	// refLen is 0 while the node has changed since it was last hashed.
	ref    [32]byte
	refLen uint8
	// dirty says the node changed since the trie was opened or committed,
	// so Commit must hand it over (or, if embedded, drop its stored copy).
	dirty bool
	// pending says the node is listed in its trie's pending nodes.
	pending bool
	// stored is the encoding the node source holds at the node's path,
	// nil if it holds none: the node was loaded from there, or handed over
	// by Commit. A node never moves to another path, so it keeps stored
	// while it changes (dirty), as the origin Commit reports for the path;
	// a node that leaves the trie, or whose place another node takes,
	// hands stored over to the trie's dropped list (see Trie.release).
	stored []byte
}

// loaded sets the cache of a node decoded from blob, stored under hash.
func (c *nodeCache) loaded(hash [32]byte, blob []byte) {
	c.ref, c.refLen, c.stored = hash, 32, blob
}

// hashed reports whether ref holds the node's current hash.
func (c *nodeCache) hashed() bool { return c.refLen == 32 }

// cacheOf returns the cache of a short or full node, nil for the others.
func cacheOf(n node) *nodeCache {
	switch n := n.(type) {
	case *shortNode:
		return &n.cache
	case *fullNode:
		return &n.cache
	}
	return nil
}

// isLeaf reports whether a short node's key ends at a value.
func (n *shortNode) isLeaf() bool {
	return len(n.key) > 0 && n.key[len(n.key)-1] == terminator
}

// keyNibbles returns key as nibbles with the terminator.
func keyNibbles(key []byte) []byte { return appendKeyNibbles(nil, key) }

// appendKeyNibbles appends key as nibbles, one per byte, and the
// terminator.
func appendKeyNibbles(dst, key []byte) []byte {
	start := len(dst)
	dst = slices.Grow(dst, 2*len(key)+1)[:start+2*len(key)+1]
	for i, b := range key {
		dst[start+2*i] = b >> 4
		dst[start+2*i+1] = b & 0x0f
	}
	dst[len(dst)-1] = terminator
	return dst
}

// sharedNibbles returns the length of the common prefix of a and b.
func sharedNibbles(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// compactSizeOf is the RLP size of the compact (hex-prefix) encoding of
// nibbles, terminator included.
func compactSizeOf(nibbles []byte) int {
	n := len(nibbles)
	if n > 0 && nibbles[n-1] == terminator {
		n--
	}
	return compactSize(n)
}

// appendCompactNibbles appends, as an RLP string, the compact (hex-prefix)
// encoding of nibbles: yellow paper, appendix C. A final terminator sets
// the leaf flag.
func appendCompactNibbles(dst, nibbles []byte) []byte {
	flag := byte(0)
	if n := len(nibbles); n > 0 && nibbles[n-1] == terminator {
		flag = 0x20
		nibbles = nibbles[:n-1]
	}
	if size := len(nibbles)/2 + 1; size > 1 {
		dst = rlpstream.AppendStringHeader(dst, size)
	}
	if len(nibbles)%2 == 1 {
		dst = append(dst, flag|0x10|nibbles[0])
		nibbles = nibbles[1:]
	} else {
		dst = append(dst, flag)
	}
	for i := 0; i < len(nibbles); i += 2 {
		dst = append(dst, nibbles[i]<<4|nibbles[i+1])
	}
	return dst
}

// appendNibblesOfCompact appends the nibbles of a compact (hex-prefix)
// key, with a terminator if its flag says leaf. It reads the flag as
// go-ethereum does, so that a node decodes to the same key in both: bit 1
// of the flag nibble (or any higher flag) makes a leaf, bit 0 says the
// first nibble is in the flag byte.
func appendNibblesOfCompact(dst, compact []byte) []byte {
	if len(compact) == 0 {
		return dst
	}
	flag := compact[0] >> 4
	if flag&1 == 1 {
		dst = append(dst, compact[0]&0x0f)
	}
	for _, b := range compact[1:] {
		dst = append(dst, b>>4, b&0x0f)
	}
	if flag >= 2 {
		dst = append(dst, terminator)
	}
	return dst
}

// inlineKeyNibbles is the longest key a short node carries in its own
// allocation: the 64 nibbles and terminator of a 32-byte key's leaf.
const inlineKeyNibbles = 65

// shortNodeWithKey is a short node allocated together with room for its
// key, so that the commonest node a Trie loads or makes, the leaf of a
// hashed key, costs one allocation and not two.
type shortNodeWithKey struct {
	shortNode
	room [inlineKeyNibbles]byte
}

// newShortNode returns a short node with a copy of key and val, its cache
// empty. Keys of a few nibbles (extensions, mostly) get an allocation of
// their own, which is smaller than the room.
func newShortNode(key []byte, val node) *shortNode {
	if !fitsRoom(key) {
		return &shortNode{key: bytes.Clone(key), val: val}
	}
	return new(shortNodeWithKey).with(key, val)
}

// fitsRoom reports whether a short node with key is allocated with room
// for it (see newShortNode).
func fitsRoom(key []byte) bool { return len(key) > 16 && len(key) <= inlineKeyNibbles }

// with sets the short node in n to a copy of key, in n's room, and val,
// and returns it.
func (n *shortNodeWithKey) with(key []byte, val node) *shortNode {
	// The capacity ends with the key, so that a key grown by a merge
	// moves out rather than writing past the room.
	n.key = append(n.room[:0:len(key)], key...)
	n.val = val
	return &n.shortNode
}

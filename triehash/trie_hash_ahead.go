package triehash

import (
	"math/bits"
	"unsafe"

	"github.com/keccakroot/keccakroot/internal/prefetch"
)

// Reading ahead for Hash. Encoding a chunk of nodes reads the nodes, then
// what they point to: a stored branch's encoding, a leaf's key and value.
// Each of those is a load that misses every cache once a block's changes
// are spread over a large trie, and loads that wait hold up the core, so
// levelHasher.hash asks for them with prefetch.Lines (which does not wait)
// a chunk or two before the encoder reaches them: the nodes two chunks
// ahead, and, one chunk ahead, what those nodes, by then fetched, point to.

// askNodes asks for the fields of chunk's nodes that the encoder and
// askContent read: a branch's cache and rewritten mask, which a branch
// encoded over its stored encoding needs of the node and which sit at its
// end, and the whole of a short node but its key's room.
func (h *levelHasher) askNodes(chunk []node) {
	for _, n := range chunk {
		switch n := n.(type) {
		case *fullNode:
			h.spans = append(h.spans, fullNodeTail(n))
		case *shortNode:
			h.spans = append(h.spans, unsafe.Slice((*byte)(unsafe.Pointer(n)), unsafe.Sizeof(*n)))
		}
	}
	h.askSpans()
}

// fullNodeTail returns the memory of n from its cache to its end.
func fullNodeTail(n *fullNode) []byte {
	const size = unsafe.Sizeof(*n) - unsafe.Offsetof(n.cache)
	return unsafe.Slice((*byte)(unsafe.Pointer(&n.cache)), size)
}

// askContent asks for what chunk's nodes point to and the encoder reads: a
// branch's stored encoding and the slots of its rewritten children if it
// is encoded over it, else all its children; a short node's key, and its
// value or its child's hash. The nodes' own
// fields, asked for by askNodes a chunk earlier, are read here.
func (h *levelHasher) askContent(chunk []node) {
	for _, n := range chunk {
		switch n := n.(type) {
		case *fullNode:
			if n.overStored() {
				h.spans = append(h.spans, n.cache.stored)
				// The slots of the rewritten children, which the
				// encoder reads from the node's array.
				for mask := n.rewritten; mask != 0; mask &= mask - 1 {
					slot := &n.children[bits.TrailingZeros32(mask)]
					h.spans = append(h.spans, unsafe.Slice((*byte)(unsafe.Pointer(slot)), unsafe.Sizeof(*slot)))
				}
			} else {
				h.spans = append(h.spans, unsafe.Slice((*byte)(unsafe.Pointer(&n.children)), unsafe.Sizeof(n.children)))
			}
		case *shortNode:
			h.spans = append(h.spans, n.key)
			switch v := n.val.(type) {
			case valueNode:
				h.spans = append(h.spans, v)
			case *hashNode:
				h.spans = append(h.spans, v[:])
			}
		}
	}
	h.askSpans()
}

// askSpans asks for h.spans and empties the list, which must not keep the
// memory it points to alive.
func (h *levelHasher) askSpans() {
	prefetch.Lines(h.spans)
	clear(h.spans)
	h.spans = h.spans[:0]
}

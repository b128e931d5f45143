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
// askContent read: of a branch its first byte (see fullNodeHead) and its
// cache and rewritten mask, which sit at its end and are all a branch
// encoded over its stored encoding needs of the node but the slots of its
// rewritten children; the whole of a short node but its key's room.
func (h *levelHasher) askNodes(chunk []node) {
	h.spans = appendNodeSpans(h.spans, chunk)
	h.askSpans()
}

// appendNodeSpans appends to spans the fields of the short and full nodes
// among nodes that the encoder reads, and Commit's walk (see askNodes).
func appendNodeSpans(spans [][]byte, nodes []node) [][]byte {
	for _, n := range nodes {
		switch n := n.(type) {
		case *fullNode:
			spans = append(spans, fullNodeHead(n), fullNodeTail(n))
		case *shortNode:
			spans = append(spans, memoryAt(unsafe.Pointer(n), 0, unsafe.Sizeof(*n)))
		}
	}
	return spans
}

// memoryAt returns the size bytes at offset from p, as a span to ask for.
// The address is computed with unsafe.Add, where taking the address of a
// field (&n.cache) would check n against nil by a load from its first
// byte: a load that would wait here for the line about to be asked for.
func memoryAt(p unsafe.Pointer, offset, size uintptr) []byte {
	return unsafe.Slice((*byte)(unsafe.Add(p, offset)), size)
}

// fullNodeHead returns the first byte of n. Taking the address of a
// field, as cacheOf does, checks the node against nil by a load from that
// byte, so its line is read for every node the encoder fills, though the
// encoder needs nothing else on it.
func fullNodeHead(n *fullNode) []byte { return memoryAt(unsafe.Pointer(n), 0, 1) }

// fullNodeTail returns the memory of n from its cache to its end.
func fullNodeTail(n *fullNode) []byte {
	return memoryAt(unsafe.Pointer(n), unsafe.Offsetof(n.cache), unsafe.Sizeof(*n)-unsafe.Offsetof(n.cache))
}

// childSlot returns the memory of slot i of n's children.
func childSlot(n *fullNode, i int) []byte {
	const slotSize = unsafe.Sizeof(n.children[0])
	return memoryAt(unsafe.Pointer(n), unsafe.Offsetof(n.children)+uintptr(i)*slotSize, slotSize)
}

// askContent asks for what chunk's nodes point to and the encoder reads: a
// branch's stored encoding and the slots of its rewritten children if it
// is encoded over it, else all its children; a short node's key, and its
// value or its child's hash. The nodes' own fields, asked for by askNodes
// a chunk earlier, are read here.
func (h *levelHasher) askContent(chunk []node) {
	for _, n := range chunk {
		switch n := n.(type) {
		case *fullNode:
			if n.overStored() {
				h.spans = append(h.spans, n.cache.stored)
				// The slots of the rewritten children, which the
				// encoder reads from the node's array.
				for mask := n.rewritten; mask != 0; mask &= mask - 1 {
					h.spans = append(h.spans, childSlot(n, bits.TrailingZeros32(mask)))
				}
			} else {
				h.spans = append(h.spans, memoryAt(unsafe.Pointer(n), unsafe.Offsetof(n.children), unsafe.Sizeof(n.children)))
			}
		case *shortNode:
			h.spans = append(h.spans, n.key)
			switch v := n.val.(type) {
			case valueNode:
				h.spans = append(h.spans, v)
			case *hashNode:
				// Not v[:], whose nil check would wait for the line.
				h.spans = append(h.spans, memoryAt(unsafe.Pointer(v), 0, unsafe.Sizeof(*v)))
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

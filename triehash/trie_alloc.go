package triehash

import "slices"

// nodeAlloc hands out the nodes a Trie loads from its source, the branches
// and the leaves of hashed keys, from chunks rather than one allocation
// each: loading is a cold Update's main cost after the source's own
// lookups, and a node taken from a chunk costs neither the allocator's
// bookkeeping nor a fresh span's set-up. A chunk lives while any of its
// nodes does, and with it what its dead nodes refer to. Nodes loaded from
// the store mostly live as long as the trie, so that costs little memory,
// whereas nodes that changes make come and go and are allocated one by
// one. The zero value is ready; a nil *nodeAlloc allocates each node on
// its own. A nodeAlloc serves one goroutine.
type nodeAlloc struct {
	branches slab[fullNode]
	leaves   slab[shortNodeWithKey]
}

// branch returns an empty branch.
func (a *nodeAlloc) branch() *fullNode {
	if a == nil {
		return new(fullNode)
	}
	return a.branches.next()
}

// shortNode is newShortNode, a key that fits the room of a
// shortNodeWithKey taking it from a chunk.
func (a *nodeAlloc) shortNode(key []byte, val node) *shortNode {
	if a == nil || !fitsRoom(key) {
		return newShortNode(key, val)
	}
	return a.leaves.next().with(key, val)
}

// The lengths of a slab's chunks: they start small, for the storage
// tries in which a block changes a slot or two, and double up to
// maxChunkNodes, for the tries in which it loads thousands of nodes.
const (
	firstChunkNodes = 4
	maxChunkNodes   = 64
)

// slab hands out zeroed values of T from chunks, each taken when the last
// runs out.
type slab[T any] struct {
	free []T
	size int // the length asked for the last chunk
}

// next returns the next free value.
func (c *slab[T]) next() *T {
	if len(c.free) == 0 {
		c.size = min(max(2*c.size, firstChunkNodes), maxChunkNodes)
		// Grow rounds the chunk up to the allocator's size class, which
		// would otherwise be allocated and left unused.
		c.free = slices.Grow([]T(nil), c.size)
		c.free = c.free[:cap(c.free)]
	}
	v := &c.free[0]
	c.free = c.free[1:]
	return v
}

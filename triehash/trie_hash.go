package triehash

import (
	"runtime"
	"slices"
	"sync"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// Rehashing a Trie. Only nodes whose cache is empty (changed since the last
// Hash, or embedded nodes decoded from a parent) are encoded again. They
// are grouped by height, a node's height being one more than the greatest
// height among its children to encode (0 for none): nodes of one height
// never depend on each other, so each height is encoded in one pass and its
// encodings of 32 bytes or more are hashed together through Sum256Batch,
// the lowest height first. With several workers the changed subtrees below
// the top of the trie are dealt out to them first; the top is then hashed
// the same way on the calling goroutine.

// parallelMinChanges is the number of changes below which one goroutine
// rehashes faster than several.
const parallelMinChanges = 256

// Hash returns the root hash of the trie, rehashing the nodes changed since
// the last Hash or Commit.
func (t *Trie) Hash() [32]byte {
	switch root := t.root.(type) {
	case nil:
		return EmptyRoot
	case *hashNode:
		return root.hash
	}
	c := cacheOf(t.root)
	if c.refLen == 0 {
		t.rehash()
	}
	t.unhashed = 0
	if c.hashed() {
		return c.ref
	}
	return fastkeccak.Sum256(c.ref[:c.refLen]) // the root is hashed however short
}

func (t *Trie) rehash() {
	workers := t.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers > 1 && t.unhashed >= parallelMinChanges {
		subtrees := changedSubtrees(t.root, 8*workers)
		if len(subtrees) > 1 {
			hashInParallel(subtrees, workers)
		}
	}
	h := levelHashers.Get().(*levelHasher)
	h.hash(t.root)
	levelHashers.Put(h)
}

// changedSubtrees returns changed subtrees of root that do not overlap,
// splitting the topmost ones until there are at least want or they are
// too small to split.
func changedSubtrees(root node, want int) []node {
	subtrees := []node{root}
	for range 3 {
		var next []node
		for _, n := range subtrees {
			next = appendChangedChildren(next, n)
		}
		if len(next) <= len(subtrees) {
			break
		}
		subtrees = next
		if len(subtrees) >= want {
			break
		}
	}
	return subtrees
}

// appendChangedChildren appends the children of n that need rehashing,
// looking through extensions, or n itself if it is a leaf.
func appendChangedChildren(dst []node, n node) []node {
	switch n := n.(type) {
	case *fullNode:
		for _, c := range n.children[:16] {
			if needsHash(c) {
				dst = append(dst, c)
			}
		}
	case *shortNode:
		if needsHash(n.val) {
			return appendChangedChildren(dst, n.val)
		}
	}
	return dst
}

// needsHash reports whether n is a short or full node with an empty cache.
func needsHash(n node) bool {
	c := cacheOf(n)
	return c != nil && c.refLen == 0
}

// hashInParallel rehashes the subtrees on workers goroutines, each taking
// an equal share of them.
func hashInParallel(subtrees []node, workers int) {
	workers = min(workers, len(subtrees))
	var wg sync.WaitGroup
	for w := range workers {
		share := subtrees[len(subtrees)*w/workers : len(subtrees)*(w+1)/workers]
		wg.Go(func() {
			h := levelHashers.Get().(*levelHasher)
			h.hash(share...)
			levelHashers.Put(h)
		})
	}
	wg.Wait()
}

// levelHasher rehashes the changed nodes of some subtrees, height by
// height. Its buffers are reused from one Hash to the next.
type levelHasher struct {
	levels  [][]node   // nodes to encode, by height
	buf     []byte     // the encodings of one height
	ends    []int      // where each node's encoding ends in buf
	owners  []node     // the nodes whose encodings are hashed, in order
	msgs    [][]byte   // their encodings
	digests [][32]byte // and their hashes
}

var levelHashers = sync.Pool{New: func() any { return new(levelHasher) }}

// hash fills the cache of every node of the subtrees that needs it.
func (h *levelHasher) hash(subtrees ...node) {
	for _, n := range subtrees {
		h.collect(n)
	}
	for height, level := range h.levels {
		h.hashLevel(level)
		clear(level)
		h.levels[height] = level[:0]
	}
}

// collect files n and its descendants that need encoding by height, and
// returns n's height, or -1 if n needs nothing.
func (h *levelHasher) collect(n node) int {
	height := -1
	switch n := n.(type) {
	case *shortNode:
		if n.cache.refLen != 0 {
			return -1
		}
		height = h.collect(n.val)
	case *fullNode:
		if n.cache.refLen != 0 {
			return -1
		}
		for _, c := range n.children[:16] {
			height = max(height, h.collect(c))
		}
	default:
		return -1
	}
	height++
	for len(h.levels) <= height {
		h.levels = append(h.levels, nil)
	}
	h.levels[height] = append(h.levels[height], n)
	return height
}

// hashLevel encodes the nodes of one height and fills their caches: the
// encoding itself if shorter than 32 bytes, else its hash.
func (h *levelHasher) hashLevel(level []node) {
	h.buf, h.ends = h.buf[:0], h.ends[:0]
	for _, n := range level {
		h.buf = appendNode(h.buf, n)
		h.ends = append(h.ends, len(h.buf))
	}
	h.owners, h.msgs = h.owners[:0], h.msgs[:0]
	start := 0
	for i, n := range level {
		enc := h.buf[start:h.ends[i]:h.ends[i]]
		start = h.ends[i]
		if len(enc) < 32 {
			c := cacheOf(n)
			c.refLen = uint8(copy(c.ref[:], enc))
			continue
		}
		h.owners = append(h.owners, n)
		h.msgs = append(h.msgs, enc)
	}
	h.digests = slices.Grow(h.digests[:0], len(h.msgs))[:len(h.msgs)]
	fastkeccak.Sum256Batch(h.digests, h.msgs)
	for i, n := range h.owners {
		c := cacheOf(n)
		c.ref, c.refLen = h.digests[i], 32
	}
	clear(h.owners)
	clear(h.msgs)
}

// ensureRef fills n's cache if it is empty, children first. The encoder
// calls it for a child whose cache is empty, which Hash's order rules out;
// it keeps a stray path from turning into a wrong encoding.
func ensureRef(n node) {
	c := cacheOf(n)
	if c == nil || c.refLen != 0 {
		return
	}
	var buf [544]byte
	enc := appendNode(buf[:0], n)
	if len(enc) < 32 {
		c.refLen = uint8(copy(c.ref[:], enc))
		return
	}
	c.ref, c.refLen = fastkeccak.Sum256(enc), 32
}

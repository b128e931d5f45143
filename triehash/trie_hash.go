package triehash

import (
	"slices"
	"sync"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// Rehashing a Trie. Every node changed or made since the last Hash is
// listed, with its depth and the first nibbles of its path, as it changes
// (see Trie.made). Hash sorts the list into subtrees by those nibbles and
// takes a group of neighbouring subtrees at a time, encoding its nodes
// deepest first, since a node's children are deeper than itself and nodes
// of one depth never hold each other. A depth is encoded hashChunk nodes
// at a time, and the chunk's encodings of 32 bytes or more are hashed
// together through Sum256Batch. With several workers the subtrees of the
// nodes at depth 2, which do not touch, are shared out among them; the
// nodes above are encoded last.
//
// A node filed too late (a path that made was given wrongly; none is, but
// the encoder does not rely on it) is encoded when its parent is, by
// ensureRef: the root is right either way.

// parallelMinPending is the number of pending nodes below which one
// goroutine rehashes faster than several (a change makes two to five).
const parallelMinPending = 512

// Hash returns the root hash of the trie, rehashing the nodes changed since
// the last Hash or Commit.
func (t *Trie) Hash() [32]byte {
	switch root := t.root.(type) {
	case nil:
		t.dropPending()
		return EmptyRoot
	case *hashNode:
		t.dropPending()
		return *root
	}
	c := cacheOf(t.root)
	if c.refLen == 0 {
		t.rehash()
		ensureRef(t.root)
	}
	t.dropPending()
	if c.hashed() {
		return c.ref
	}
	return fastkeccak.Sum256(c.ref[:c.refLen]) // the root is hashed however short
}

// dropPending empties the list of pending nodes and hands it to
// pendingLists for the next trie. Their pending flags need no clearing
// here: rehash clears the flag of every node it encodes, and a listed node
// that Hash does not encode is no longer in the trie (the root is clean
// only if no node under it changed).
func (t *Trie) dropPending() {
	if cap(t.pending) == 0 {
		return
	}
	clear(t.pending)
	list := t.pending[:0]
	t.pending = nil
	pendingLists.Put(&list)
}

// pendingLists holds the emptied pending lists of hashed tries, for the
// next trie to fill (see Trie.made): a client opens new tries block after
// block, each listing thousands of nodes, and a list grown anew for each,
// copy after copy into memory not yet in the caches, is a visible part of
// Update's time.
var pendingLists sync.Pool

// takePendingList returns an empty pending list, from pendingLists if it
// has one.
func takePendingList() []pendingNode {
	if list, ok := pendingLists.Get().(*[]pendingNode); ok {
		return *list
	}
	return nil
}

// rehash encodes and hashes every pending node. The nodes are sorted by
// the first nibbles of their paths into subtrees, which are hashed a group
// of neighbouring subtrees at a time rather than a whole depth of the trie
// at a time: a node's children were then hashed a moment before, their
// caches still in the core's caches when the node reads them, and a group
// still has nodes enough at each depth to fill the batch kernel's lanes.
// With several workers each takes the next subtree of the depth-2 nodes
// when done with one, so that a worker whose subtrees take longer does
// fewer of them; the other workers are started before the sort, which
// hides the time an idle core takes to wake up, and their groups shrink as
// the subtrees run out, so that they finish together (see groupLimit). The
// nodes above depth 2 are hashed last.
func (t *Trie) rehash() {
	h := getLevelHasher()
	defer levelHashers.Put(h)
	if len(t.pending) < parallelMinPending {
		// One worker and one group (parallelMinPending is below
		// hashGroupNodes): nothing to sort, as for a storage trie's few
		// slots.
		h.file(t.pending)
		h.hash()
		return
	}
	defer h.dropSorted()
	workers := t.workerCount()
	sortFirst := func() { h.sortPending(t.pending) }
	shareOutAfter(workers, subtrees, sortFirst, func(next func() (int, bool)) {
		worker := h
		if workers > 1 {
			worker = getLevelHasher()
			defer levelHashers.Put(worker)
		}
		for s, ok := next(); ok; s, ok = next() {
			worker.hashSubtree(h.sorted, h.starts, s, groupLimit(h.starts, s, workers))
		}
		worker.hash()
	})
	h.file(h.sorted[h.starts[topBucket]:h.starts[topBucket+2]])
	h.hash()
}

// The buckets rehash sorts the pending nodes into: for each of the
// subtrees of the 256 nodes at depth 2, one per next nibble for the nodes
// deeper than 2, then one for the subtree's top node; then one for the
// nodes at depth 1 and one for the root.
const (
	subtrees          = 256
	bucketsPerSubtree = 17
	topBucket         = subtrees * bucketsPerSubtree
)

// pendingBucket returns the bucket rehash sorts p into. Every node's bucket
// comes after, or is, the buckets of the nodes below it.
func pendingBucket(p pendingNode) int {
	switch p.depth {
	case 0:
		return topBucket + 1
	case 1:
		return topBucket
	case 2:
		return int(p.prefix>>4)*bucketsPerSubtree + bucketsPerSubtree - 1
	}
	return int(p.prefix>>4)*bucketsPerSubtree + int(p.prefix&0x0f)
}

// hashGroupNodes is the number of nodes a worker files before it hashes
// them: few enough that their nodes, encodings and stored children stay
// in a core's own cache from one depth to the next, enough to fill the
// batch kernel's lanes at most depths.
const hashGroupNodes = 1024

// sortPending sorts pending into h.sorted by bucket (a counting sort, in
// order within a bucket); bucket b is h.sorted[h.starts[b]:h.starts[b+1]].
func (h *levelHasher) sortPending(pending []pendingNode) {
	h.starts = slices.Grow(h.starts[:0], topBucket+3)[:topBucket+3]
	clear(h.starts)
	for _, p := range pending {
		h.starts[pendingBucket(p)+1]++
	}
	for b := 1; b < len(h.starts); b++ {
		h.starts[b] += h.starts[b-1]
	}
	h.next = append(h.next[:0], h.starts...)
	h.sorted = slices.Grow(h.sorted[:0], len(pending))[:len(pending)]
	for _, p := range pending {
		b := pendingBucket(p)
		h.sorted[h.next[b]] = p
		h.next[b]++
	}
}

// dropSorted empties h.sorted, so that a pooled hasher holds no nodes.
func (h *levelHasher) dropSorted() {
	clear(h.sorted)
	h.sorted = h.sorted[:0]
}

// minHashGroupNodes is the fewest nodes groupLimit lets a worker file
// before it hashes them: enough for the batch kernel's lanes at every depth
// of a group.
const minHashGroupNodes = hashGroupNodes / 8

// groupLimit returns how many nodes a worker that has just taken subtree s
// files before it hashes them (see hashSubtree), starts being the buckets
// of rehash. A worker hashes what it has filed last after the subtrees run
// out, where no other worker can share the work, so the limit shrinks from
// hashGroupNodes to minHashGroupNodes as the nodes of the subtrees not yet
// taken run out, and the workers finish together.
func groupLimit(starts []int32, s, workers int) int {
	if workers <= 1 {
		return hashGroupNodes
	}
	left := int(starts[topBucket] - starts[(s+1)*bucketsPerSubtree])
	return min(hashGroupNodes, max(minHashGroupNodes, left/(2*workers)))
}

// hashSubtree files the nodes of subtree s (the depth-2 node whose path
// is the two nibbles of s, and the nodes below it), bucket by bucket, and
// hashes what is filed whenever it reaches limit nodes: a bucket's nodes
// are hashed together, and no later than the nodes above them. The caller
// hashes what is filed last.
func (h *levelHasher) hashSubtree(sorted []pendingNode, starts []int32, s, limit int) {
	for b := s * bucketsPerSubtree; b < (s+1)*bucketsPerSubtree; b++ {
		h.file(sorted[starts[b]:starts[b+1]])
		if h.filed >= limit {
			h.hash()
		}
	}
}

// hashChunk is the number of nodes encoded, then hashed, together: enough
// to fill the batch kernel's lanes many times over, few enough that the
// encodings stay in the core's caches until they are hashed.
const hashChunk = 64

// levelHasher encodes and hashes nodes depth by depth. Hash takes one per
// worker from levelHashers and puts it back empty, so that their buffers
// serve every Hash of every Trie: a client opens a new trie for each block
// and for each storage trie it changes.
type levelHasher struct {
	sorted  []pendingNode // the pending nodes in buckets (see rehash)
	starts  []int32       // where each bucket starts in sorted
	next    []int32       // where sortPending puts the next node of each bucket
	levels  [][]node      // nodes to encode, by depth
	filed   int           // the number of nodes filed since the last hash
	buf     []byte        // the encodings of one depth
	ends    []int         // where each node's encoding ends in buf
	owners  []node        // the nodes whose encodings are hashed, in order
	msgs    [][]byte      // their encodings
	digests [][32]byte    // and their hashes
	chunks  [][]node      // the levels' chunks, in the order hash takes them
	spans   [][]byte      // the memory askNodes and askContent ask for

	// Workers write these fields all the time: the padding keeps two
	// hashers, allocated side by side, off each other's cache lines.
	_ [128]byte
}

// levelHashers holds the levelHashers that no Hash is using.
var levelHashers sync.Pool

// getLevelHasher returns an empty levelHasher, from levelHashers if it has one.
func getLevelHasher() *levelHasher {
	if h, ok := levelHashers.Get().(*levelHasher); ok {
		return h
	}
	return new(levelHasher)
}

// file adds pending nodes to the levels that hash encodes.
func (h *levelHasher) file(pending []pendingNode) {
	for _, p := range pending {
		h.fileOne(p)
	}
}

func (h *levelHasher) fileOne(p pendingNode) {
	for int(p.depth) >= len(h.levels) {
		h.levels = append(h.levels, nil)
	}
	h.levels[p.depth] = append(h.levels[p.depth], p.n)
	h.filed++
}

// hash fills the cache of every filed node, the deepest first, and empties
// the levels. It takes the levels hashChunk nodes at a time, and while it
// encodes one chunk the core fetches what the next two need: the nodes of
// the one after next, and the memory the nodes of the next point to (see
// askNodes and askContent). Nodes changed by a block lie far apart in a
// heap much larger than the caches, so that fetching their lines as the
// encoder reaches them would leave it waiting most of the time.
func (h *levelHasher) hash() {
	h.filed = 0
	for depth := len(h.levels) - 1; depth >= 0; depth-- {
		level := h.levels[depth]
		for start := 0; start < len(level); start += hashChunk {
			h.chunks = append(h.chunks, level[start:min(start+hashChunk, len(level))])
		}
	}
	// Two steps before the first chunk only ask for memory.
	for i := -2; i < len(h.chunks); i++ {
		if i+2 < len(h.chunks) {
			h.askNodes(h.chunks[i+2])
		}
		if i+1 >= 0 && i+1 < len(h.chunks) {
			h.askContent(h.chunks[i+1])
		}
		if i >= 0 {
			h.hashLevel(h.chunks[i])
		}
	}
	clear(h.chunks)
	h.chunks = h.chunks[:0]
	for depth, level := range h.levels {
		clear(level)
		h.levels[depth] = level[:0]
	}
}

// hashLevel encodes nodes of one depth and fills their caches: the
// encoding itself if shorter than 32 bytes, else its hash.
func (h *levelHasher) hashLevel(level []node) {
	h.buf, h.ends = h.buf[:0], h.ends[:0]
	for _, n := range level {
		c := cacheOf(n)
		c.pending = false
		if c.refLen == 0 {
			h.buf = appendNode(h.buf, n)
		}
		h.ends = append(h.ends, len(h.buf))
	}
	h.owners, h.msgs = h.owners[:0], h.msgs[:0]
	start := 0
	for i, n := range level {
		enc := h.buf[start:h.ends[i]:h.ends[i]]
		start = h.ends[i]
		if len(enc) == 0 {
			continue // already filled, through ensureRef
		}
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

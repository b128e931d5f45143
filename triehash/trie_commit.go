package triehash

import (
	"bytes"
	"math/bits"
	"slices"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/internal/prefetch"
)

// ChangeFunc receives one change of a Commit: a node to store at path
// (hash and blob), or a stale node to delete there (zero hash, nil blob).
// prev is the node the source held at path before, nil if none: what
// go-ethereum's trienode.NodeSet keeps as the path's origin. path is valid
// only during the call; blob and prev are never modified, by the trie or
// anyone else (the trie keeps them as the stored nodes, the NodeSource's
// bytes or its own copies), so a store may keep them without a copy.
type ChangeFunc func(path []byte, hash [32]byte, blob, prev []byte)

// Commit rehashes the trie and hands onNode every change to store: each
// changed node that is stored by hash (path, hash, blob), and each path
// whose stored node is gone, changed into an embedded node or removed (path,
// zero hash, nil blob). That is exactly the set that go-ethereum's
// trie.Trie.Commit(false) puts in its trienode.NodeSet: first the stored
// nodes, children before their parents, then the deletions, by path.
//
// The trie stays usable: its nodes count as stored from now on, so the next
// Commit reports only what changes after this one. It keeps them in memory
// too; open a new Trie at the committed root to let them go. onNode may be
// nil.
func (t *Trie) Commit(onNode NodeFunc) ([32]byte, error) {
	if onNode == nil {
		return t.CommitChanges(nil)
	}
	return t.CommitChanges(func(path []byte, hash [32]byte, blob, _ []byte) { onNode(path, hash, blob) })
}

// CommitChanges is Commit with each change's origin, for stores that keep
// history (go-ethereum's path-based database does).
func (t *Trie) CommitChanges(onChange ChangeFunc) ([32]byte, error) {
	root := t.Hash()
	t.dropped.sort()
	c := committer{onChange: onChange, dropped: &t.dropped}
	if t.root != nil {
		if rc := cacheOf(t.root); rc != nil && rc.dirty {
			branch, isBranch := t.root.(*fullNode)
			if workers := t.workerCount(); isBranch && workers > 1 && t.uncommitted >= parallelMinPending {
				c.walkBranchOnWorkers(branch, workers)
			} else {
				c.walk(t.root, true)
			}
		}
	}
	t.uncommitted = 0
	if onChange != nil {
		c.reportDeleted()
	}
	t.dropped.reset()
	return root, nil
}

// CommitSizeHint returns about how many changes the next Commit or
// CommitChanges hands its callback, for a store to size its tables before
// it: the nodes filed as changed since the last Commit and the stored paths
// they replaced. It is an estimate from above: a node counts once for each
// Hash it waited for, and a replaced path even where a new node takes it
// back (the package's tests check that it is never below the count).
func (t *Trie) CommitSizeHint() int {
	return t.uncommitted + len(t.dropped.ends)
}

// reportDeleted hands onChange, in the order of their paths, the paths
// whose stored node is gone: the dropped ones that no new node took, and
// those of changed nodes now embedded in their parents.
func (c *committer) reportDeleted() {
	deleted := c.dropped
	if len(c.embedded.prevs) > 0 {
		// Rare (hashed keys make few nodes under 32 bytes): both lists
		// into one, sorted anew.
		deleted = &c.embedded
		for i := range c.dropped.prevs {
			if !c.dropped.restored[i] {
				deleted.add(c.dropped.path(i), c.dropped.prevs[i])
			}
		}
		deleted.sort()
	}
	for i := range deleted.prevs {
		if !deleted.restored[i] {
			c.onChange(deleted.path(i), [32]byte{}, nil, deleted.prevs[i])
		}
	}
}

// committer walks the changed nodes of a trie after Hash.
type committer struct {
	onChange ChangeFunc
	dropped  *droppedNodes
	path     []byte
	// near is where the last path was found among the dropped ones.
	near int
	// blobs is where the stored nodes' encodings are kept (see
	// encodeKept).
	blobs []byte
	// log, if not nil, collects the changes in place of onChange: a
	// subtree walked on a worker hands them over in order afterwards.
	log *changeLog
	// embedded lists the paths, with their stored encodings, of changed
	// nodes that are now embedded in their parents: stored no more.
	embedded droppedNodes
	// spans is askAhead's list of the memory to ask for.
	spans [][]byte
}

// walkBranchOnWorkers is walk for a root branch, whose children's subtrees
// are walked on workers, each logging its changes; the logs are then
// handed to onChange one subtree after another, in the order walk would
// have, and the root last. The subtrees share only the sorted dropped
// paths, which they read, and their restored marks, each path's its own.
func (c *committer) walkBranchOnWorkers(root *fullNode, workers int) {
	var logs [16]changeLog
	var embedded [16]droppedNodes
	onWorkers(workers, func(nib int) {
		sub := committer{dropped: c.dropped, path: []byte{byte(nib)}}
		if c.onChange != nil {
			sub.log = &logs[nib]
		}
		sub.walk(root.children[nib], false)
		embedded[nib] = sub.embedded
	})
	for i := range logs {
		if c.onChange != nil {
			logs[i].replay(c.onChange)
		}
		for j := range embedded[i].prevs {
			c.embedded.add(embedded[i].path(j), embedded[i].prevs[j])
		}
	}
	c.store(root, &root.cache, true)
}

// changeLog is a list of changes for a ChangeFunc: their paths and
// origins kept as droppedNodes keeps them, and their hashes and blobs.
type changeLog struct {
	origins droppedNodes
	hashes  [][32]byte
	blobs   [][]byte
}

func (l *changeLog) add(path []byte, hash [32]byte, blob, prev []byte) {
	l.origins.add(path, prev)
	l.hashes = append(l.hashes, hash)
	l.blobs = append(l.blobs, blob)
}

// replay hands the logged changes to onChange, in order.
func (l *changeLog) replay(onChange ChangeFunc) {
	for i := range l.hashes {
		onChange(l.origins.path(i), l.hashes[i], l.blobs[i], l.origins.prevs[i])
	}
}

// walk stores n and its changed descendants, children first, and marks
// them unchanged.
func (c *committer) walk(n node, isRoot bool) {
	cache := cacheOf(n)
	if cache == nil || !cache.dirty {
		return
	}
	depth := len(c.path)
	c.askAhead(n)
	switch n := n.(type) {
	case *shortNode:
		c.path = append(c.path, n.key...)
		c.walk(n.val, false)
	case *fullNode:
		// A changed branch of a large trie has one or two children that
		// may have changed: the others are not visited, and those that
		// are, in the order all 16 would be.
		for m := n.changeableChildren(); m != 0; m &= m - 1 {
			i := bits.TrailingZeros32(m)
			c.path = append(c.path[:depth], byte(i))
			c.walk(n.children[i], false)
		}
	}
	c.path = c.path[:depth]
	c.store(n, cache, isRoot)
}

// store hands over n, at c.path, whose changed children are stored, and
// marks it unchanged.
func (c *committer) store(n node, cache *nodeCache, isRoot bool) {
	cache.dirty = false
	if !cache.hashed() && !isRoot {
		// Embedded: its parent holds it, and the node stored at its path,
		// if any, is gone.
		if cache.stored != nil {
			c.embedded.add(c.path, cache.stored)
			cache.stored = nil
		}
		return
	}
	// The path's origin: the node's own stored encoding if it was stored
	// here and changed in place, else that of a node that left the path.
	prev := cache.stored
	if prev == nil {
		prev = c.dropped.restore(c.path, &c.near)
	}
	cache.stored = c.encodeKept(n)
	if branch, ok := n.(*fullNode); ok {
		// Its children are now what stored holds, a branch of hashes or
		// not (an empty layout).
		branch.rewritten = 0
		layout, _ := scanBranchOfHashes(cache.stored)
		branch.storedHashes = layout.hashes
	}
	hash := cache.ref
	if !cache.hashed() {
		hash = fastkeccak.Sum256(cache.stored)
	}
	switch {
	case c.log != nil:
		c.log.add(c.path, hash, cache.stored, prev)
	case c.onChange != nil:
		c.onChange(c.path, hash, cache.stored, prev)
	}
}

// askAhead asks for the memory that walk and store read next below n, a
// changed node, and that a block's changes leave far apart in a large
// trie: the fields of n's children that may have changed (or its
// extension's child), which walk reads first, and the stored encoding
// that store copies from to encode a branch once its children are stored.
func (c *committer) askAhead(n node) {
	switch n := n.(type) {
	case *shortNode:
		c.spans = appendNodeSpans(c.spans, []node{n.val})
	case *fullNode:
		for m := n.changeableChildren(); m != 0; m &= m - 1 {
			i := bits.TrailingZeros32(m)
			c.spans = appendNodeSpans(c.spans, n.children[i:i+1])
		}
		if n.overStored() {
			c.spans = append(c.spans, n.cache.stored)
		}
	}
	prefetch.Lines(c.spans)
	clear(c.spans) // keep no node alive
	c.spans = c.spans[:0]
}

// encodeKept returns n's encoding, which nothing writes to: written into
// a block of memory that the blobs of one Commit share, so that storing a
// node costs neither an allocation of its own nor a copy. The blocks start
// small, for the few nodes of a storage trie, and double up to
// maxBlobBlock; a new one starts when less than blobRoom is left, so that
// an encoding outgrows its block only for a value near that size or
// longer (the block then grows as append grows it). A block is freed once
// no node and no store holds a blob of it.
func (c *committer) encodeKept(n node) []byte {
	if cap(c.blobs)-len(c.blobs) < blobRoom {
		c.blobs = make([]byte, 0, min(max(2*cap(c.blobs), minBlobBlock), maxBlobBlock))
	}
	start := len(c.blobs)
	c.blobs = appendNode(c.blobs, n)
	return c.blobs[start:len(c.blobs):len(c.blobs)]
}

// The sizes of the blocks encodeKept writes blobs into: a storage trie's
// few nodes fit in the first, a block of a state trie's holds hundreds;
// and the room a new blob needs, a branch of 16 hashes and a value.
const (
	minBlobBlock = 2 << 10
	maxBlobBlock = 128 << 10
	blobRoom     = 1 << 10
)

// droppedNodes is a list of paths with the stored encodings that were at
// them, kept in one buffer so that dropping a node allocates nothing most
// of the time. Commit sorts it by path to look paths up.
type droppedNodes struct {
	paths    []byte   // the paths, one after another
	ends     []int    // where each path ends in paths
	prevs    [][]byte // the stored encoding at each path
	restored []bool   // at Commit: a new node is stored at the path
	keys     []uint64 // at Commit: each path's pathKey, in the sorted order
}

func (d *droppedNodes) add(path, prev []byte) {
	d.paths = append(d.paths, path...)
	d.ends = append(d.ends, len(d.paths))
	d.prevs = append(d.prevs, prev)
}

func (d *droppedNodes) path(i int) []byte {
	start := 0
	if i > 0 {
		start = d.ends[i-1]
	}
	return d.paths[start:d.ends[i]]
}

// pathKeyNibbles is the number of a path's nibbles that its pathKey holds.
const pathKeyNibbles = 15

// pathKey packs the first pathKeyNibbles nibbles of path (nibbles 0 to
// 15, as every path of a trie's nodes holds), from the top bits down,
// above its length (pathKeyNibbles if longer), so that keys compare as the
// paths do, nibble by nibble and a prefix first, for all but paths that
// agree on their first pathKeyNibbles nibbles: their keys are equal.
func pathKey(path []byte) uint64 {
	var k uint64
	for i, nib := range path[:min(len(path), pathKeyNibbles)] {
		k |= uint64(nib) << (60 - 4*i)
	}
	return k | uint64(min(len(path), pathKeyNibbles))
}

// comparePathKeys compares two paths by their pathKeys, as bytes.Compare
// does, and reports whether the keys decide it: not for equal keys of
// paths as long as pathKeyNibbles or longer.
func comparePathKeys(ka, kb uint64) (c int, decided bool) {
	switch {
	case ka < kb:
		return -1, true
	case ka > kb:
		return 1, true
	}
	return 0, ka&0xf != pathKeyNibbles
}

// comparePaths compares path a, whose pathKey is ka, with b, whose key is
// kb, as bytes.Compare does.
func comparePaths(ka uint64, a []byte, kb uint64, b []byte) int {
	if c, decided := comparePathKeys(ka, kb); decided {
		return c
	}
	return bytes.Compare(a, b)
}

// compareEntry compares entry i's path with path, whose pathKey is key,
// reading the entry's path only when the keys do not decide.
func (d *droppedNodes) compareEntry(i int, key uint64, path []byte) int {
	if c, decided := comparePathKeys(d.keys[i], key); decided {
		return c
	}
	return bytes.Compare(d.path(i), path)
}

// sort orders the entries by path and makes them ready for restore. It
// first spreads them over buckets by the top bits of their pathKeys, about
// one bucket per entry, then sorts each bucket: the paths of a trie's
// nodes spread evenly over their first nibbles, where the keys are
// hashed, so most buckets hold an entry or two, and the rest are sorted
// by comparison.
func (d *droppedNodes) sort() {
	type entry struct {
		key uint64
		i   int
	}
	n := len(d.prevs)
	shift := 64 - min(max(bits.Len(uint(n)), 1), maxSortBucketBits)
	starts := make([]int32, 1<<(64-shift)+1)
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = pathKey(d.path(i))
		starts[keys[i]>>shift+1]++
	}
	for b := 1; b < len(starts); b++ {
		starts[b] += starts[b-1]
	}
	order := make([]entry, n)
	next := starts[:len(starts)-1]
	for i, k := range keys {
		order[next[k>>shift]] = entry{k, i}
		next[k>>shift]++
	}
	// next[b] is now where bucket b ends: bucket b starts where b-1 ends.
	start := int32(0)
	for _, end := range next {
		if end-start > 1 {
			slices.SortFunc(order[start:end], func(a, b entry) int {
				return comparePaths(a.key, d.path(a.i), b.key, d.path(b.i))
			})
		}
		start = end
	}
	sorted := droppedNodes{
		paths: make([]byte, 0, len(d.paths)),
		ends:  make([]int, 0, len(d.ends)),
		prevs: make([][]byte, 0, len(d.prevs)),
		keys:  make([]uint64, 0, len(d.prevs)),
	}
	for _, e := range order {
		sorted.add(d.path(e.i), d.prevs[e.i])
		sorted.keys = append(sorted.keys, e.key)
	}
	*d = sorted
	d.restored = make([]bool, len(d.prevs))
}

// maxSortBucketBits bounds the buckets of droppedNodes.sort to 2^16.
const maxSortBucketBits = 16

// restore marks path as stored anew and returns the encoding dropped
// there, nil if none. The entries must be sorted. The search starts at
// *near, and leaves there the position of path among the entries: a walk
// looks up each path close, in the sorted entries, to the path it looked
// up before, so the search reads a few entries around *near, which the
// core's cache still holds, instead of halving all of them from the
// middle. Several workers may restore paths at once, each with its own
// near: it writes only the path's own mark.
func (d *droppedNodes) restore(path []byte, near *int) []byte {
	key := pathKey(path)
	lo, hi := d.bracket(key, path, *near)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if d.compareEntry(mid, key, path) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	*near = lo
	if lo == len(d.prevs) || d.compareEntry(lo, key, path) != 0 {
		return nil
	}
	d.restored[lo] = true
	return d.prevs[lo]
}

// bracket returns lo and hi such that the first entry not below path
// (whose pathKey is key) lies in [lo, hi], galloping from entry near: one
// entry away from it, then two, four and so on, until an entry on the
// other side of path.
func (d *droppedNodes) bracket(key uint64, path []byte, near int) (lo, hi int) {
	n := len(d.prevs)
	near = min(max(near, 0), n)
	if near < n && d.compareEntry(near, key, path) < 0 {
		// Past near: entries near+1 .. are candidates.
		lo = near + 1
		for step := 1; ; step *= 2 {
			probe := near + step
			if probe >= n {
				return lo, n
			}
			if d.compareEntry(probe, key, path) >= 0 {
				return lo, probe
			}
			lo = probe + 1
		}
	}
	// At or before near.
	hi = near
	for step := 1; ; step *= 2 {
		probe := near - step
		if probe < 0 {
			return 0, hi
		}
		if d.compareEntry(probe, key, path) < 0 {
			return probe + 1, hi
		}
		hi = probe
	}
}

func (d *droppedNodes) reset() { *d = droppedNodes{} }

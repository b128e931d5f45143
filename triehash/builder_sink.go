package triehash

import (
	"math/bits"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// nodeSink turns the nodes that the streaming core finishes into the
// references their parents keep: a node under 32 bytes is embedded, any
// other is hashed, and reported to onNode with its path.
//
// With onNode, a node is hashed at once, so that nodes are reported in the
// order go-ethereum's StackTrie reports them. Without it, a branch's or an
// extension's hash waits in the deferred queue, encoded, and is hashed with
// the others there in one Sum256Batch call when the queue is full or at
// the end. A parent that closes while some of its children still wait
// does not force their hash: a hashed child takes 33 bytes whatever its
// hash, so the parent is encoded around holes and queued behind them, and
// each hash is copied into its hole once known. The queue hashes, when it
// must make room, only the nodes without holes left, so that a child and
// its parent do not split a call into two small ones. Open branches mark
// the children that wait in pendingMask.
//
// An onNode that wants only the hashes of the nodes at some depths, in any
// order (see reportOnlyAt), leaves every node but the root free to wait in
// the queue, as without onNode: a node at a wanted depth waits with its
// path, and is reported when the queue hashes it, without its encoding.
type nodeSink struct {
	onNode NodeFunc
	// reportAt, if not nil, holds the depths onNode wants; it is then told
	// of no node at any other, not in StackTrie's order, and given no
	// encodings (a nil blob).
	reportAt []bool
	path     []byte // scratch for the nibble path given to onNode
	deferred deferredNodes
}

// reports reports whether onNode wants the nodes at depth.
func (s *nodeSink) reports(depth int) bool {
	return s.onNode != nil && (s.reportAt == nil || depth < len(s.reportAt) && s.reportAt[depth])
}

// reportsEveryNode reports whether onNode wants every node, in StackTrie's
// order and with its encoding, which the batch stage must then keep until
// the core reports its nodes.
func (s *nodeSink) reportsEveryNode() bool {
	return s.onNode != nil && s.reportAt == nil
}

// defersAt reports whether a node at depth may wait in the deferred queue
// for its hash: the root never does, nor any node when onNode wants them
// in StackTrie's order.
func (s *nodeSink) defersAt(depth int) bool {
	return depth > 0 && !s.reportsEveryNode()
}

// commit sets *r to the reference to a finished node: its encoding enc if
// shorter than 32 bytes, else its hash. The node lies depth nibbles down
// key's path; the root (depth 0) is always hashed. If the hash is deferred,
// commit returns the node's index in the deferred queue and makes *r a
// reference of size 32 whose hash is filled in later; else it returns -1.
// open are the core's open branches, which making room in the queue writes
// hashes into.
// A deferred node must then be given its place at once, by storedAt or
// waitsFor, before the queue makes room again.
func (s *nodeSink) commit(enc, key []byte, depth int, open []branch, r *ref) (waiting int) {
	if !s.defers(enc, depth) {
		s.commitNow(enc, key, depth, r)
		return -1
	}
	s.reserve(len(enc), 1, open)
	r.size = 32
	return s.queue(enc, key, depth, 0)
}

// queue adds enc, the encoding of a node depth nibbles down key's path, to
// the deferred queue with holes children still to be hashed (see
// deferredNodes.add) and returns its index; if onNode wants the node, its
// path goes with it, for hashWithoutHoles to report it once hashed.
func (s *nodeSink) queue(enc, key []byte, depth, holes int) int {
	i := s.deferred.add(enc, holes)
	if s.reports(depth) {
		s.deferred.reportAs(i, key, depth)
	}
	return i
}

// defers reports whether commit would defer the node's hash.
func (s *nodeSink) defers(enc []byte, depth int) bool {
	return s.defersAt(depth) && len(enc) >= 32
}

// commitNow is commit without deferring.
func (s *nodeSink) commitNow(enc, key []byte, depth int, r *ref) {
	if len(enc) < 32 && depth > 0 {
		r.size = uint8(copy(r.data[:], enc))
		return
	}
	r.size = 32
	r.data = fastkeccak.Sum256(enc)
	s.report(key, depth, &r.data, enc)
}

// report gives a node stored by hash to onNode, with its path: the first
// depth nibbles of key. The hash is passed by pointer, so that without
// onNode, for most nodes, it is not copied.
func (s *nodeSink) report(key []byte, depth int, hash *[32]byte, enc []byte) {
	if s.reports(depth) {
		if !s.reportsEveryNode() {
			enc = nil // the batch stage may not have kept it
		}
		s.path = appendNibbles(s.path[:0], key, depth)
		s.onNode(s.path, *hash, enc)
	}
}

// reserve makes room in the deferred queue for entries more nodes of size
// bytes in all, hashing the nodes without holes as often as needed.
func (s *nodeSink) reserve(size, entries int, open []branch) {
	d := &s.deferred
	if d.flushed {
		d.reset()
	}
	for d.n > 0 && (d.n+entries > maxDeferred || len(d.arena)+size > cap(d.arena)) {
		s.hashReady(open)
	}
}

// hashReady hashes the deferred nodes without holes, the oldest hashBatch
// of them at most, copies each hash where its reference is kept (an open
// branch, or a hole in a node still waiting) and drops those nodes from the
// queue. Capping the batch at one kernel call keeps the lanes full: the
// ready nodes left over wait for the next call instead of taking a call
// of their own.
func (s *nodeSink) hashReady(open []branch) {
	d := &s.deferred
	var hashed [maxDeferred]bool
	s.hashWithoutHoles(open, hashBatch, &hashed, nil)
	// Keep the nodes still waiting, in order, at the front of the queue
	// and of the arena; their parents' indices shift with them.
	var newIndex [maxDeferred]int8
	kept, start, end, pathStart, pathEnd := 0, 0, 0, 0, 0
	for i := range d.nodes[:d.n] {
		e := d.nodes[i]
		if hashed[i] {
			newIndex[i] = -1
			start, pathStart = int(e.end), int(e.pathEnd)
			continue
		}
		newIndex[i] = int8(kept)
		end += copy(d.arena[end:], d.arena[start:e.end])
		pathEnd += copy(d.paths[pathEnd:], d.paths[pathStart:e.pathEnd])
		start, pathStart = int(e.end), int(e.pathEnd)
		e.end, e.pathEnd = int32(end), int32(pathEnd)
		d.nodes[kept] = e
		kept++
	}
	for i := range d.nodes[:kept] {
		if p := d.nodes[i].parent; p >= 0 {
			d.nodes[i].parent = newIndex[p]
		}
	}
	d.n, d.arena, d.paths = kept, d.arena[:end], d.paths[:pathEnd]
}

// hashWithoutHoles hashes in one Sum256Batch call the oldest limit, at
// most, of the deferred nodes that have no holes left and are not marked
// in done; it copies each hash where the node's reference is kept and, if
// keep is not nil, into keep[i] for node i, reports the node to onNode if
// it waited with its path, and marks the node in done. It returns how many
// nodes it hashed.
func (s *nodeSink) hashWithoutHoles(open []branch, limit int, done *[maxDeferred]bool, keep *[maxDeferred][32]byte) int {
	d := &s.deferred
	var (
		msgs   [maxDeferred][]byte
		hashes [maxDeferred][32]byte
		which  [maxDeferred]int
	)
	n, start := 0, 0
	for i := range d.nodes[:d.n] {
		e := &d.nodes[i]
		if !done[i] && e.holes == 0 && n < limit {
			msgs[n], which[n] = d.arena[start:e.end:e.end], i
			n++
		}
		start = int(e.end)
	}
	fastkeccak.Sum256Batch(hashes[:n], msgs[:n])
	if observeSinkBatch != nil {
		observeSinkBatch(n)
	}
	for k, i := range which[:n] {
		if keep != nil {
			keep[i] = hashes[k]
		}
		done[i] = true
		s.deliver(open, i, &hashes[k])
		if path := d.pathOf(i); path != nil {
			s.onNode(path, hashes[k], nil) // only reportOnlyAt's onNode waits here
		}
	}
	return n
}

// deliver copies the hash of deferred node i where its reference is kept.
// The node's own entry is left as it is.
func (s *nodeSink) deliver(open []branch, i int, hash *[32]byte) {
	d := &s.deferred
	e := &d.nodes[i]
	switch {
	case e.parent >= 0:
		p := &d.nodes[e.parent]
		copy(d.arena[d.start(int(e.parent))+int(e.offset):], hash[:])
		p.holes--
	case e.level >= 0:
		br := &open[e.level]
		br.children[e.nibble].data = *hash
		br.pendingMask &^= 1 << e.nibble
	}
}

// flush hashes every node in the deferred queue, children before the
// nodes that wait for them, and writes each hash where its reference is
// kept. The hashes stay readable through hashOf until the next node is
// deferred.
func (s *nodeSink) flush(open []branch) {
	d := &s.deferred
	if d.n == 0 || d.flushed {
		return
	}
	var done [maxDeferred]bool
	for left := d.n; left > 0; {
		left -= s.hashWithoutHoles(open, maxDeferred, &done, &d.hashes)
	}
	d.flushed = true
}

// observeSinkBatch, if not nil, is told the length of every batch the
// deferred queue hashes: for the test of how well the queue batches.
var observeSinkBatch func(n int)

// hashBatch is how many nodes hashReady hashes at most: one call of the
// widest batch kernel.
const hashBatch = 8

// maxDeferred bounds the nodes waiting to be hashed: a full kernel call of
// nodes without holes and three more, parents (or an extension above one)
// that wait in the queue for some of them, so that waiting nodes seldom
// leave lanes of a call idle.
const maxDeferred = hashBatch + 3

// deferredArena is the size of the buffer the waiting encodings share:
// hashBatch full branches of hashed children (532 bytes each) and room for
// one more waiting for them, rounded up to the allocator's size class. It
// bounds the Builder's memory (see TestBuilderMemoryBounded). The queue is
// hashed rather than the buffer grown, unless one node needs more.
const deferredArena = 4864

// deferredNodes is the queue of encoded nodes waiting for their hash.
type deferredNodes struct {
	nodes [maxDeferred]deferredNode
	n     int
	arena []byte // the encodings, one after the other
	// paths are the nibble paths of the nodes to report, one after the
	// other, and of no others (see reportAs).
	paths []byte
	// hashes[i] is the hash of nodes[i], once flushed is set. The hashes
	// stay readable through hashOf until the next node is deferred.
	hashes  [maxDeferred][32]byte
	flushed bool
}

// deferredNode is an encoded node waiting for its hash, and where its
// reference is kept: child nibble of the open branch at index level, or,
// if its parent waits too, the 32 bytes at offset in the encoding of node
// parent. Both are -1 while the node's parent is not known yet.
type deferredNode struct {
	end    int32 // of its encoding in arena; it starts where the one before ends
	level  int16
	offset uint16
	parent int8
	nibble byte
	// holes counts the children whose hashes the encoding still lacks.
	holes uint8
	// pathEnd is where its path ends in paths, which starts where the
	// path of the node before ends. A node to report has a path of one
	// nibble or more (the root is never deferred); the others, none.
	pathEnd int32
}

func (d *deferredNodes) reset() {
	d.n, d.arena, d.paths, d.flushed = 0, d.arena[:0], d.paths[:0], false
}

// start returns where the encoding of node i begins in arena.
func (d *deferredNodes) start(i int) int {
	if i == 0 {
		return 0
	}
	return int(d.nodes[i-1].end)
}

// add queues an encoding with holes children still to be hashed, which
// must fit (see nodeSink.reserve), and returns the node's index.
func (d *deferredNodes) add(enc []byte, holes int) int {
	if d.flushed {
		d.reset()
	}
	if cap(d.arena) == 0 {
		d.arena = make([]byte, 0, max(deferredArena, len(enc)))
	}
	d.arena = append(d.arena, enc...)
	i := d.n
	// Field by field, as leafBatch.addKey fills a slot.
	e := &d.nodes[i]
	e.end, e.pathEnd, e.level, e.parent, e.holes = int32(len(d.arena)), int32(len(d.paths)), -1, -1, uint8(holes)
	e.offset, e.nibble = 0, 0
	d.n++
	return i
}

// reportAs marks node i, the last one added, to be reported with the path
// of the first depth nibbles of key once hashed.
func (d *deferredNodes) reportAs(i int, key []byte, depth int) {
	d.paths = appendNibbles(d.paths, key, depth)
	d.nodes[i].pathEnd = int32(len(d.paths))
}

// pathOf returns the path node i is to be reported with, nil if none.
func (d *deferredNodes) pathOf(i int) []byte {
	start, end := 0, int(d.nodes[i].pathEnd)
	if i > 0 {
		start = int(d.nodes[i-1].pathEnd)
	}
	if start == end {
		return nil
	}
	return d.paths[start:end:end]
}

// storedAt records where the reference to node i is kept: child nibble of
// the open branch at index level.
func (d *deferredNodes) storedAt(i, level int, nibble byte) {
	d.nodes[i].level, d.nodes[i].nibble = int16(level), nibble
}

// waitsFor records that the reference to node child is kept at offset in
// the encoding of node parent, which waits for its hash.
func (d *deferredNodes) waitsFor(child, parent, offset int) {
	d.nodes[child].level, d.nodes[child].parent, d.nodes[child].offset = -1, int8(parent), uint16(offset)
}

// childrenOf re-files the nodes whose references are kept in the open
// branch at index level, which has just closed: they now wait in the
// encoding of node parent, child k's hash at offsets[k].
func (d *deferredNodes) childrenOf(level, parent int, offsets *[16]uint16) {
	for i := range d.nodes[:d.n] {
		if e := &d.nodes[i]; e.parent < 0 && int(e.level) == level {
			d.waitsFor(i, parent, int(offsets[e.nibble]))
		}
	}
}

// hashOf sets *r to the reference to node i, after a flush.
func (d *deferredNodes) hashOf(i int, r *ref) {
	r.size, r.data = 32, d.hashes[i]
}

// pending reports how many children of br wait in the queue.
func pending(br *branch) int { return bits.OnesCount16(br.pendingMask) }

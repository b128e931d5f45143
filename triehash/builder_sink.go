package triehash

import "github.com/keccakroot/keccakroot/fastkeccak"

// nodeSink turns the nodes that the streaming core finishes into the
// references their parents keep: a node under 32 bytes is embedded, any
// other is hashed, and reported to onNode with its path.
//
// With onNode, a node is hashed at once, so that nodes are reported in the
// order go-ethereum's StackTrie reports them. Without it, a branch's or an
// extension's hash is needed only when its parent is encoded, which happens
// when the parent closes, after all its other children: so such nodes wait
// in the deferred queue, encoded, and are hashed together in one
// Sum256Batch call when a parent needs one of them, when the queue is full,
// or at the end. Their parents mark them in pendingMask meanwhile.
type nodeSink struct {
	onNode   NodeFunc
	path     []byte // scratch for the nibble path given to onNode
	deferred deferredNodes
}

// commit returns the reference to a finished node: its encoding enc if
// shorter than 32 bytes, else its hash. The node lies depth nibbles down
// key's path; the root (depth 0) is always hashed. If the hash is deferred,
// commit returns the node's index in the deferred queue, and the reference
// is filled in by flush; else it returns -1. open are the core's open
// branches, which a flush of a full queue writes hashes into.
func (s *nodeSink) commit(enc, key []byte, depth int, open []branch) (r ref, waiting int) {
	if s.onNode != nil || depth == 0 || len(enc) < 32 {
		return s.commitNow(enc, key, depth), -1
	}
	d := &s.deferred
	if d.n == maxDeferred || len(d.arena)+len(enc) > cap(d.arena) {
		s.flush(open)
	}
	return ref{}, d.add(enc)
}

// commitNow is commit without deferring.
func (s *nodeSink) commitNow(enc, key []byte, depth int) ref {
	var r ref
	if len(enc) < 32 && depth > 0 {
		r.size = uint8(copy(r.data[:], enc))
		return r
	}
	r.size = 32
	r.data = fastkeccak.Sum256(enc)
	s.report(key, depth, r.data, enc)
	return r
}

// report gives a node stored by hash to onNode, with its path: the first
// depth nibbles of key.
func (s *nodeSink) report(key []byte, depth int, hash [32]byte, enc []byte) {
	if s.onNode != nil {
		s.path = appendNibbles(s.path[:0], key, depth)
		s.onNode(s.path, hash, enc)
	}
}

// flush hashes every node in the deferred queue and writes each hash into
// the open branch that holds its reference. The hashes stay readable
// through hashOf until the next node is deferred.
func (s *nodeSink) flush(open []branch) {
	d := &s.deferred
	if d.n == 0 || d.flushed {
		return
	}
	var msgs [maxDeferred][]byte
	start := 0
	for i, n := range d.nodes[:d.n] {
		msgs[i] = d.arena[start:n.end:n.end]
		start = n.end
	}
	fastkeccak.Sum256Batch(d.hashes[:d.n], msgs[:d.n])
	for i, n := range d.nodes[:d.n] {
		if n.level >= 0 {
			br := &open[n.level]
			br.children[n.nibble] = ref{size: 32, data: d.hashes[i]}
			br.pendingMask &^= 1 << n.nibble
		}
	}
	d.flushed = true
}

// maxDeferred bounds the nodes waiting to be hashed: one call of the widest
// batch kernel. A parent closes, and so flushes the queue, after a few of
// its children, so a longer queue would rarely fill and would only hold
// more encodings.
const maxDeferred = 8

// deferredArena is the size of the buffer the waiting encodings share: about
// maxDeferred full branches of hashed children (532 bytes each). The queue
// is flushed rather than the buffer grown, unless one node needs more.
const deferredArena = 4 << 10

// deferredNodes is the queue of encoded nodes waiting for their hash.
type deferredNodes struct {
	nodes [maxDeferred]deferredNode
	n     int
	arena []byte // the encodings, one after the other
	// hashes[i] is the hash of nodes[i], once flushed is set. The hashes
	// stay readable through hashOf until the next node is deferred.
	hashes  [maxDeferred][32]byte
	flushed bool
}

// deferredNode is an encoded node waiting for its hash, and where its
// reference is stored: child nibble of the open branch at index level, or
// level -1 while its parent is not known yet.
type deferredNode struct {
	end    int // of its encoding in arena; it starts where the one before ends
	level  int32
	nibble byte
}

func (d *deferredNodes) reset() {
	d.n, d.arena, d.flushed = 0, d.arena[:0], false
}

// add queues an encoding, which must fit (see nodeSink.commit), and
// returns the node's index.
func (d *deferredNodes) add(enc []byte) int {
	if d.flushed {
		d.reset()
	}
	if cap(d.arena) == 0 {
		d.arena = make([]byte, 0, max(deferredArena, len(enc)))
	}
	d.arena = append(d.arena, enc...)
	i := d.n
	d.nodes[i] = deferredNode{end: len(d.arena), level: -1}
	d.n++
	return i
}

// storedAt records where the reference to node i is stored: child nibble
// of the open branch at index level.
func (d *deferredNodes) storedAt(i, level int, nibble byte) {
	d.nodes[i].level, d.nodes[i].nibble = int32(level), nibble
}

// hashOf returns the reference to node i, after a flush.
func (d *deferredNodes) hashOf(i int) ref {
	return ref{size: 32, data: d.hashes[i]}
}

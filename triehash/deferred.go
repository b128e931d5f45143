package triehash

import "github.com/keccakroot/keccakroot/fastkeccak"

// Deferred hashing of inner nodes. A branch's hash is needed only when its
// parent is encoded, which happens when the parent closes, after all its
// other children: so closed branches (and the extensions above them) wait
// here, encoded, and are hashed together in one Sum256Batch call when a
// parent needs one of them, when maxDeferred wait, or at the end. Their
// parents hold a pending reference that the flush fills in. Only without
// onNode: with it, nodes are hashed at once so that they are reported in
// the order go-ethereum's StackTrie reports them.

// pendingRef marks a reference whose hash is not computed yet; data[0:4]
// holds the index of its node in deferredNodes.
const pendingRef = 0xff

// maxDeferred bounds the nodes waiting to be hashed: one call of the widest
// batch kernel. A parent closes, and so flushes the queue, after three or
// four of its children on average (a million random keys), so a longer
// queue would rarely fill and would only hold more encodings.
const maxDeferred = 8

// deferredArena is the size of the buffer the waiting encodings share: about
// maxDeferred full branches of hashed children (532 bytes each). The queue
// is flushed rather than the buffer grown, unless one node needs more.
const deferredArena = 4 << 10

func (r *ref) pending() bool { return r.n == pendingRef }

// hasPending reports whether any child of br waits for its hash.
func (br *branch) hasPending() bool {
	for i := range br.children {
		if br.mask&(1<<i) != 0 && br.children[i].n == pendingRef {
			return true
		}
	}
	return false
}

// deferredNode is an encoded node waiting for its hash, and where its
// reference is stored: child nibble of the open branch stack[level], or
// level -1 while its parent is not known yet.
type deferredNode struct {
	end    int // of its encoding in arena; it starts where the one before ends
	level  int32
	nibble byte
}

type deferredNodes struct {
	nodes [maxDeferred]deferredNode
	n     int
	arena []byte
	sums  [maxDeferred][32]byte // sums[i] is the hash of nodes[i], once flushed
	// flushed is set once the nodes are hashed; they stay readable through
	// resolve until the next node is deferred.
	flushed bool
}

func (d *deferredNodes) reset() {
	d.n, d.arena, d.flushed = 0, d.arena[:0], false
}

// at records where the pending reference r was stored.
func (d *deferredNodes) at(r ref, level int, nibble byte) {
	n := &d.nodes[pendingIndex(r)]
	n.level, n.nibble = int32(level), nibble
}

// resolve returns r with its hash, after a flush.
func (d *deferredNodes) resolve(r ref) ref {
	if !r.pending() {
		return r
	}
	return ref{n: 32, data: d.sums[pendingIndex(r)]}
}

func pendingIndex(r ref) int {
	return int(r.data[0]) | int(r.data[1])<<8 | int(r.data[2])<<16
}

// commitDeferred is commit, except that a node to be hashed waits in the
// deferred queue when nothing needs to report it at once.
func (b *Builder) commitDeferred(blob []byte, pathLen int) ref {
	if b.onNode != nil || pathLen == 0 || len(blob) < 32 {
		return b.commit(blob, pathLen)
	}
	d := &b.deferred
	if d.n == maxDeferred || len(d.arena)+len(blob) > cap(d.arena) {
		b.flushDeferred()
	}
	if d.flushed {
		d.reset()
	}
	if cap(d.arena) == 0 {
		d.arena = make([]byte, 0, max(deferredArena, len(blob)))
	}
	d.arena = append(d.arena, blob...)
	i := d.n
	d.nodes[i] = deferredNode{end: len(d.arena), level: -1}
	d.n++
	return ref{n: pendingRef, data: [32]byte{byte(i), byte(i >> 8), byte(i >> 16)}}
}

// flushDeferred hashes every waiting node and writes the hashes into the
// branches that hold their references. The hashes stay readable through
// resolve until the next node is deferred.
func (b *Builder) flushDeferred() {
	d := &b.deferred
	if d.n == 0 || d.flushed {
		return
	}
	var msgs [maxDeferred][]byte
	start := 0
	for i, n := range d.nodes[:d.n] {
		msgs[i] = d.arena[start:n.end:n.end]
		start = n.end
	}
	fastkeccak.Sum256Batch(d.sums[:d.n], msgs[:d.n])
	for i, n := range d.nodes[:d.n] {
		if n.level >= 0 {
			b.stack[n.level].children[n.nibble] = ref{n: 32, data: d.sums[i]}
		}
	}
	d.flushed = true
}

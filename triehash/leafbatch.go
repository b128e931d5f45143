package triehash

import "github.com/keccakroot/keccakroot/fastkeccak"

// Leaves are most of a trie's hashed nodes, and they do not depend on each
// other: where a key's leaf hangs, and so its encoding, depends only on the
// prefixes the key shares with its two neighbours. The Builder therefore
// encodes each key's leaf as soon as the key after it arrives, and hashes
// the encodings hashGroup at a time in one fastkeccak.Sum256Batch call,
// which runs several permutations at once in SIMD lanes where the CPU has a
// batch kernel. It places the keys a chunk at a time, one by one exactly as
// without the chunk, reporting each leaf to onNode where it would have, so
// the node stream keeps its order.
//
// Memory is what bounds both numbers. A chunk holds, per key, only the key,
// its reference (hash or embedded node) and a few offsets; the encodings
// are dropped once hashed unless onNode must see them at placement. That
// keeps a Builder's footprint below go-ethereum's StackTrie's.

// leafChunk is how many keys the Builder holds before placing them: enough
// that most runs of leaves under one branch fall inside a chunk (see
// encodeBottomBranches), few enough that the chunk is a few kilobytes.
const leafChunk = 64

// hashGroup is how many encodings wait for one Sum256Batch call: two calls
// of the widest batch kernel (8 lanes), so the per-call set-up is shared.
const hashGroup = 16

// leafSlot describes one key of a chunk. Offsets are ends: each key, blob
// and value starts where the one of the slot before ends.
type leafSlot struct {
	keyEnd uint32 // in keys; keys are at most MaxKeyLength bytes
	// depth is that of the branch the key's leaf hangs from; -1 if it has
	// no leaf: it ends at that branch (it is a prefix of the next key), or
	// it is the only key of the trie. Its value is then kept in values.
	depth int16
	// common is the number of nibbles the key shares with the next one,
	// -1 for the last key of the trie.
	common   int16
	blobEnd  int // in enc, if blobs are kept
	valueEnd int // in values
}

// precomputedNode is a node encoded and hashed ahead of its placement: the
// reference its parent stores, its encoding for onNode (nil unless blobs
// are kept) and, for a bottom branch, its depth.
type precomputedNode struct {
	ref   ref
	blob  []byte
	depth int
}

// bottomBranch is a branch whose children are all leaves of the chunk:
// it is finished as soon as its keys are known, so it is encoded and hashed
// with the leaves. It closes when its last key, slot last, is placed.
type bottomBranch struct {
	blobStart, blobEnd int // in enc, if blobs are kept
	last               int32
	depth              int16
	ref                ref
}

// leafBatch is the reused state of one chunk of keys.
type leafBatch struct {
	// keepBlobs keeps every encoding until the chunk is placed, for onNode.
	// Without it an encoding is dropped once hashed.
	keepBlobs bool
	// first is the prefix the chunk's first key shares with the key before
	// it, -1 for none.
	first   int
	keys    []byte
	slots   []leafSlot
	refs    []ref // refs[i]: how slot i's leaf is referenced
	values  []byte
	enc     []byte
	bottoms []bottomBranch
	queue   hashQueue
}

// hashQueue holds encodings waiting for one Sum256Batch call, and whose
// reference each hash goes to.
type hashQueue struct {
	msgs  [hashGroup][]byte
	owner [hashGroup]int32 // a slot, or ^i for bottoms[i]
	n     int
}

func (lb *leafBatch) reset() {
	lb.keys, lb.slots, lb.refs = lb.keys[:0], lb.slots[:0], lb.refs[:0]
	lb.values, lb.enc, lb.bottoms = lb.values[:0], lb.enc[:0], lb.bottoms[:0]
	clear(lb.queue.msgs[:lb.queue.n])
	lb.queue.n = 0
	lb.first = -1
}

// addKey appends a key to the chunk; its leaf is encoded later, by
// encodeLeaf.
func (lb *leafBatch) addKey(key []byte) {
	lb.keys = append(lb.keys, key...)
	lb.slots = append(lb.slots, leafSlot{keyEnd: uint32(len(lb.keys))})
	lb.refs = append(lb.refs, ref{})
}

// key returns the key of slot i.
func (lb *leafBatch) key(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = lb.slots[i-1].keyEnd
	}
	end := lb.slots[i].keyEnd
	return lb.keys[start:end:end]
}

// keepLast makes slot n, the chunk's last key, the first of the next chunk,
// once the n slots before it are placed. before is the prefix it shares
// with the key before it.
func (lb *leafBatch) keepLast(n, before int) {
	k := copy(lb.keys, lb.key(n))
	lb.reset()
	lb.keys = lb.keys[:k]
	lb.slots = append(lb.slots, leafSlot{keyEnd: uint32(k)})
	lb.refs = append(lb.refs, ref{})
	lb.first = before
}

// encodeLeaf encodes the leaf of slot i, whose key shares before nibbles
// with the key before it and after with the key after it (-1 for none), and
// queues it for hashing.
func (lb *leafBatch) encodeLeaf(i int, value []byte, before, after int) {
	s := &lb.slots[i]
	s.common = int16(after)
	key := lb.key(i)
	depth := max(before, after)
	if depth < 0 || depth == 2*len(key) {
		s.depth = -1
		lb.values = append(lb.values, value...)
		s.valueEnd, s.blobEnd = len(lb.values), len(lb.enc)
		return
	}
	s.depth = int16(depth)
	start := len(lb.enc)
	lb.enc = appendLeaf(lb.enc, key, depth+1, value)
	s.valueEnd, s.blobEnd = len(lb.values), len(lb.enc)
	lb.commitNode(lb.enc[start:len(lb.enc):len(lb.enc)], &lb.refs[i], int32(i))
}

// encodeChunk encodes the leaves of the first n of the chunk's keys, value
// by value, and finishes the chunk; before is the prefix the first key
// shares with the key before it. It reads and writes only lb, so the
// parallel builder runs it on workers.
func (lb *leafBatch) encodeChunk(values [][]byte, n, before int) {
	lb.first = before
	for i := range n {
		after := -1
		if i+1 < len(lb.slots) {
			after = commonPrefixNibbles(lb.key(i), lb.key(i+1))
		}
		lb.encodeLeaf(i, values[i], before, after)
		before = after
	}
	lb.finishChunk(n)
}

// finishChunk hashes what is left of the first n slots' leaves, then finds,
// encodes and hashes their bottom branches.
func (lb *leafBatch) finishChunk(n int) {
	lb.flushHashes()
	lb.encodeBottomBranches(n)
	lb.flushHashes()
}

// commitNode sets *r to the reference of an encoded node: the encoding
// itself if under 32 bytes, else its hash, queued for owner.
func (lb *leafBatch) commitNode(blob []byte, r *ref, owner int32) {
	if len(blob) < 32 {
		r.n = uint8(copy(r.data[:], blob))
		return
	}
	r.n = 32
	q := &lb.queue
	q.msgs[q.n], q.owner[q.n] = blob, owner
	q.n++
	if q.n == hashGroup {
		lb.flushHashes()
	}
}

// flushHashes hashes the queued encodings into their references. Unless
// blobs are kept, the encodings are dropped: nothing reads them again.
func (lb *leafBatch) flushHashes() {
	q := &lb.queue
	if q.n > 0 {
		var sums [hashGroup][32]byte
		fastkeccak.Sum256Batch(sums[:q.n], q.msgs[:q.n])
		for k, o := range q.owner[:q.n] {
			if o >= 0 {
				lb.refs[o].data = sums[k]
			} else {
				lb.bottoms[^o].ref.data = sums[k]
			}
		}
		// The queue must not keep an encoding buffer alive once enc has
		// moved to a larger one.
		clear(q.msgs[:q.n])
		q.n = 0
	}
	if !lb.keepBlobs {
		lb.enc = lb.enc[:0]
	}
}

// encodeBottomBranches finds, among the first n slots, the runs of keys
// whose leaves all hang from one branch that no other key reaches (the
// prefix the run shares with the keys around it is shorter than the one
// inside), and encodes each such branch, queueing for hashing those of 32
// bytes or more.
func (lb *leafBatch) encodeBottomBranches(n int) {
	// Slots that know the key after them: all but the trie's last.
	known := n
	if n > 0 && lb.slots[n-1].common < 0 {
		known = n - 1
	}
	var br branch
	for i := 0; i < known; {
		d := lb.slots[i].common
		j := i + 1
		for j < known && lb.slots[j].common == d {
			j++
		}
		// Slots i..j share exactly d nibbles pairwise; the branch is
		// complete if the keys on both sides share fewer, if every leaf
		// of the run was encoded here (j < n) and hangs at d.
		prev := lb.first
		if i > 0 {
			prev = int(lb.slots[i-1].common)
		}
		complete := j < known && prev < int(d) && lb.slots[j].common < d
		for k := i; complete && k <= j; k++ {
			complete = lb.slots[k].depth == d
		}
		if complete {
			br.depth, br.mask, br.hasValue = int(d), 0, false
			for k := i; k <= j; k++ {
				nib := nibble(lb.key(k), int(d))
				br.children[nib] = lb.refs[k]
				br.mask |= 1 << nib
			}
			start := len(lb.enc)
			lb.enc = appendBranch(lb.enc, &br)
			lb.bottoms = append(lb.bottoms, bottomBranch{
				blobStart: start, blobEnd: len(lb.enc), last: int32(j), depth: d,
			})
			last := len(lb.bottoms) - 1
			lb.commitNode(lb.enc[start:len(lb.enc):len(lb.enc)], &lb.bottoms[last].ref, int32(^last))
		}
		i = j
	}
}

// placeEncoded places the first n slots of lb, whose leaves are encoded and
// hashed; unless final, each is followed by the closing of what the next
// key cannot reach.
func (b *Builder) placeEncoded(lb *leafBatch, n int, final bool) {
	blobStart, valueStart, bottom := 0, 0, 0
	for i := range n {
		s := &lb.slots[i]
		b.last = lb.key(i)
		if s.depth >= 0 {
			b.pre = precomputedNode{ref: lb.refs[i]}
			if lb.keepBlobs {
				b.pre.blob = lb.enc[blobStart:s.blobEnd]
			}
		} else {
			b.lastValue = lb.values[valueStart:s.valueEnd]
		}
		blobStart, valueStart = s.blobEnd, s.valueEnd
		if bottom < len(lb.bottoms) && int(lb.bottoms[bottom].last) == i {
			bb := &lb.bottoms[bottom]
			b.preBranch = precomputedNode{ref: bb.ref, depth: int(bb.depth)}
			if lb.keepBlobs {
				b.preBranch.blob = lb.enc[bb.blobStart:bb.blobEnd]
			}
			b.hasPreBranch = true
			bottom++
		}
		if !final || i < n-1 {
			b.advance(int(s.common))
		}
		b.hasPreBranch = false
	}
}

package triehash

import (
	"slices"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// The batch stage of the Builder, in front of its streaming core.
//
// Leaves are most of a trie's hashed nodes, and they do not depend on each
// other: where a key's leaf hangs, and so its encoding, depends only on the
// prefixes the key shares with its two neighbours. The stage therefore
// holds a chunk of keys, encodes each key's leaf as soon as the key after
// it arrives, and hashes the encodings hashGroup at a time in one
// fastkeccak.Sum256Batch call, which runs several permutations at once in
// SIMD lanes where the CPU has a batch kernel. Once the chunk is full it
// also finds its bottom branches, those whose children are all leaves of
// the chunk, which are finished as soon as their keys are known, and
// encodes and hashes them the same way. Then it feeds the chunk's keys to
// the core one by one, each with its precomputed leaf and the bottom branch
// that closes after it, if any; the core places them exactly as it would
// without the stage, reporting each node to onNode where it would have, so
// the node stream keeps its order.
//
// Memory bounds both constants. A chunk holds, per key, only the key, its
// leaf's reference (hash or embedded node) and a few offsets; the
// encodings are dropped once hashed unless onNode must see them when the
// core reports them. That keeps a Builder's footprint below go-ethereum's
// StackTrie's.

// leafChunk is how many keys the batch stage holds before feeding them to
// the core: enough that most runs of leaves under one branch fall inside a
// chunk (see encodeBottomBranches), few enough that the chunk is a few
// kilobytes.
const leafChunk = 64

// hashGroup is how many encodings wait for one Sum256Batch call: a
// multiple of the number of one-block messages the batch kernel in use
// hashes a call (fastkeccak.ShortBatchWidth), so that full groups leave no
// lane idle and the per-call set-up is shared. Two calls of the 8-way
// AVX-512 kernel, four of the 4-way AVX2 one, 16 in all; four calls of
// amd64-avx2x5's five-message one-block kernel, 20. The chunk's buffer
// for waiting encodings is sized by it, which keeps the Builder's memory
// below StackTrie's (TestBuilderMemoryBounded).
var hashGroup = hashGroupFor(fastkeccak.ShortBatchWidth())

// maxHashGroup bounds hashGroup: the queue's arrays are this long.
const maxHashGroup = 20

// hashGroupFor returns hashGroup for a kernel that hashes w one-block
// messages a call.
func hashGroupFor(w int) int {
	if w <= 0 || 16%w == 0 {
		return 16
	}
	return min(maxHashGroup, 4*w)
}

// The largest chunk, a ParallelBuilder's, must number its slots in an
// int16 (see bottomBranch): this does not compile otherwise.
const _ uint = 1<<15 - 1 - (max(leafChunk, parallelChunk) + 1)

// A slot's depths, in nibbles, are int16 too: so must the deepest key's be.
const _ uint = 1<<15 - 1 - 2*MaxKeyLength

// leafSlot describes one key of a chunk.
type leafSlot struct {
	// keyEnd is where the key ends in keys; it starts where the key of the
	// slot before ends. Keys are at most MaxKeyLength bytes.
	keyEnd uint32
	// parentDepth is the depth of the branch the key's leaf hangs from;
	// -1 if it has no leaf: it ends at that branch (it is a prefix of the
	// next key), or it is the only key of the trie. Its value is then kept
	// in values.
	parentDepth int16
	// sharedWithNext is the number of nibbles the key shares with the next
	// one, -1 for the last key of the trie.
	sharedWithNext int16
	// encodings[encodingStart:encodingEnd] is the key's value, copied there
	// when it arrives behind room for the leaf's headers and path, until
	// encodeLeaf, once it knows where the leaf hangs, writes them in front
	// of it and moves encodingStart back to them: from then on it is the
	// leaf's encoding, without a second copy of the value.
	encodingStart, encodingEnd int
}

// bottomBranch is a branch whose children are all leaves of the chunk. It
// closes when the key of slot lastSlot is placed.
type bottomBranch struct {
	encodingStart, encodingEnd int   // in encodings, if they are kept
	firstSlot, lastSlot        int16 // a chunk has fewer than 2^15 slots
	depth                      int16
	ref                        ref
}

// leafBatch is the reused state of one chunk of keys.
type leafBatch struct {
	// keepEncodings keeps every encoding until the chunk is fed to the
	// core, for onNode. Without it an encoding is dropped once hashed.
	keepEncodings bool
	// firstShared is the number of nibbles the chunk's first key shares
	// with the key before it, -1 for none.
	firstShared int
	keys        []byte
	slots       []leafSlot
	// dropHashed drops the encodings at each hash call: set where nothing
	// reads them again and every value arrives after the leaves before it
	// are queued (the Builder without onNode), so that the buffer holds no
	// more than one call's leaves and the next value.
	dropHashed bool
	leafRefs   []ref  // leafRefs[i]: how slot i's leaf is referenced
	values     []byte // of the slots without a leaf (all, if verifyPrecomputed)
	// valueEnds are where each value in values ends, slot by slot.
	valueEnds []int
	encodings []byte
	bottoms   []bottomBranch
	queue     hashQueue
}

// hashQueue holds encodings waiting for one Sum256Batch call, and whose
// reference each hash goes to.
type hashQueue struct {
	encodings [maxHashGroup][]byte
	target    [maxHashGroup]int32 // a slot i, or ^i for bottoms[i]
	n         int
}

// maxPresizedLeaf caps the room per key that a chunk's first key and value
// size its buffer with: above a state trie's leaves, so that those never
// grow it, and low enough that one long first value (a block's first
// transaction with a large calldata) does not make the buffer a chunk's
// worth of such values.
const maxPresizedLeaf = 256

// allocate sizes the chunk's buffers from the first key's and value's
// lengths. With keepEncodings, leaf encodings wait for the whole chunk to be
// fed to the core, else for one hash call, with the next key's value behind
// them; a leaf is the value and, in front of it, the room leafRoom leaves,
// at most maxPresizedLeaf bytes of it counted.
func (lb *leafBatch) allocate(keyLen, valueLen int, keepEncodings bool) {
	lb.keys = make([]byte, 0, (leafChunk+1)*keyLen)
	lb.slots = make([]leafSlot, 0, leafChunk+1)
	lb.leafRefs = make([]ref, 0, leafChunk+1)
	leaves := hashGroup + 1
	if keepEncodings {
		leaves = leafChunk + 1
	}
	lb.encodings = make([]byte, 0, leaves*min(leafRoom(keyLen, valueLen)+valueLen, maxPresizedLeaf))
	lb.bottoms = make([]bottomBranch, 0, leafChunk/2) // each has two keys or more
}

func (lb *leafBatch) reset() {
	lb.keys, lb.slots, lb.leafRefs = lb.keys[:0], lb.slots[:0], lb.leafRefs[:0]
	lb.values, lb.valueEnds = lb.values[:0], lb.valueEnds[:0]
	lb.encodings, lb.bottoms = lb.encodings[:0], lb.bottoms[:0]
	clear(lb.queue.encodings[:lb.queue.n])
	lb.queue.n = 0
	lb.firstShared = -1
}

// addKey appends a key to the chunk; its value follows, by addValue, and
// its leaf is encoded later, by encodeLeaf.
func (lb *leafBatch) addKey(key []byte) {
	if n := len(lb.keys); len(key) == 32 && cap(lb.keys)-n >= 32 {
		// A state trie's key: one fixed-size copy that the compiler
		// inlines, where append calls memmove.
		lb.keys = lb.keys[:n+32]
		*(*[32]byte)(lb.keys[n:]) = [32]byte(key)
	} else {
		lb.keys = append(lb.keys, key...)
	}
	// A zero slot, then its one field: a slot built whole is stored to the
	// stack field by field and copied from there with wider loads, which
	// the core cannot forward from those stores, and waits (see ref.set).
	lb.slots = append(lb.slots, leafSlot{})
	lb.slots[len(lb.slots)-1].keyEnd = uint32(len(lb.keys))
	lb.leafRefs = append(lb.leafRefs, ref{})
}

// addValue copies the value of the chunk's newest key into encodings,
// behind the room its leaf's headers and path take at most.
func (lb *leafBatch) addValue(value []byte) {
	i := len(lb.slots) - 1
	s := &lb.slots[i]
	room := leafRoom(int(s.keyEnd)-lb.keyStart(i), len(value))
	s.encodingStart = len(lb.encodings) + room
	lb.encodings = append(slices.Grow(lb.encodings, room+len(value))[:s.encodingStart], value...)
	s.encodingEnd = len(lb.encodings)
}

// value returns the value of slot i, whose leaf is not encoded yet.
func (lb *leafBatch) value(i int) []byte {
	s := &lb.slots[i]
	return lb.encodings[s.encodingStart:s.encodingEnd:s.encodingEnd]
}

// keepValue copies a value into values, for the core.
func (lb *leafBatch) keepValue(value []byte) {
	lb.values = append(lb.values, value...)
	lb.valueEnds = append(lb.valueEnds, len(lb.values))
}

// key returns the key of slot i.
func (lb *leafBatch) key(i int) []byte {
	end := lb.slots[i].keyEnd
	return lb.keys[lb.keyStart(i):end:end]
}

// keyStart returns where the key of slot i begins in keys.
func (lb *leafBatch) keyStart(i int) int {
	if i == 0 {
		return 0
	}
	return int(lb.slots[i-1].keyEnd)
}

// keepLast makes slot n, the chunk's last key, the first of the next chunk,
// once the n slots before it are fed to the core. shared is the number of
// nibbles it shares with the key before it.
func (lb *leafBatch) keepLast(n, shared int) {
	k := copy(lb.keys, lb.key(n))
	lb.reset()
	lb.keys = lb.keys[:k]
	lb.slots = append(lb.slots, leafSlot{keyEnd: uint32(k)})
	lb.leafRefs = append(lb.leafRefs, ref{})
	lb.firstShared = shared
}

// encodeLeaf encodes the leaf of slot i, whose key shares before nibbles
// with the key before it and after with the key after it (-1 for none),
// around its value, and queues it for hashing.
func (lb *leafBatch) encodeLeaf(i, before, after int) {
	s := &lb.slots[i]
	s.sharedWithNext = int16(after)
	key := lb.key(i)
	depth := max(before, after)
	if depth < 0 || depth == 2*len(key) {
		s.parentDepth = -1
		lb.keepValue(lb.value(i))
		s.encodingStart = s.encodingEnd
		return
	}
	s.parentDepth = int16(depth)
	if verifyPrecomputed {
		lb.keepValue(lb.value(i)) // for the core to check the leaf against
	}
	s.encodingStart = prependLeaf(lb.encodings, s.encodingStart, s.encodingEnd, key, depth+1)
	lb.commitNode(lb.encodings[s.encodingStart:s.encodingEnd:s.encodingEnd], &lb.leafRefs[i], int32(i))
}

// encodeChunk encodes the leaves of the first n of the chunk's keys and
// finishes the chunk; before is the number of nibbles the first key shares
// with the key before it, and every slot but the last has sharedWithNext
// set already. It reads and writes only lb, so the parallel builder runs it
// on workers.
func (lb *leafBatch) encodeChunk(n, before int) {
	lb.firstShared = before
	for i := range n {
		after := -1
		if i+1 < len(lb.slots) {
			after = int(lb.slots[i].sharedWithNext)
		}
		lb.encodeLeaf(i, before, after)
		before = after
	}
	lb.finishChunk(n)
}

// finishChunk hashes what is left of the first n slots' leaves, then finds,
// encodes and hashes their bottom branches.
func (lb *leafBatch) finishChunk(n int) {
	lb.flushHashes()
	if !lb.keepEncodings {
		// Nothing reads the leaves or the values again: the bottom
		// branches take their place.
		lb.encodings = lb.encodings[:0]
	}
	lb.encodeBottomBranches(n)
	lb.flushHashes()
}

// commitNode sets *r to the reference of an encoded node: the encoding
// itself if under 32 bytes, else its hash, queued for target.
func (lb *leafBatch) commitNode(enc []byte, r *ref, target int32) {
	if len(enc) < 32 {
		r.size = uint8(copy(r.data[:], enc))
		return
	}
	r.size = 32
	q := &lb.queue
	q.encodings[q.n], q.target[q.n] = enc, target
	q.n++
	if q.n == hashGroup {
		lb.flushHashes()
	}
}

// flushHashes hashes the queued encodings into their references, and
// drops the encodings if dropHashed.
func (lb *leafBatch) flushHashes() {
	q := &lb.queue
	if q.n > 0 {
		var hashes [maxHashGroup][32]byte
		fastkeccak.Sum256Batch(hashes[:q.n], q.encodings[:q.n])
		for k, t := range q.target[:q.n] {
			if t >= 0 {
				lb.leafRefs[t].data = hashes[k]
			} else {
				lb.bottoms[^t].ref.data = hashes[k]
			}
		}
		// The queue must not keep an encoding buffer alive once encodings
		// has moved to a larger one.
		clear(q.encodings[:q.n])
		q.n = 0
	}
	if lb.dropHashed {
		lb.encodings = lb.encodings[:0]
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
	if n > 0 && lb.slots[n-1].sharedWithNext < 0 {
		known = n - 1
	}
	var br branch
	for i := 0; i < known; {
		d := lb.slots[i].sharedWithNext
		j := i + 1
		for j < known && lb.slots[j].sharedWithNext == d {
			j++
		}
		// The keys of slots i..j share exactly d nibbles, neighbour with
		// neighbour. They are all the keys of a branch at depth d if the
		// keys on both sides share fewer with them: the one before slot i
		// and, which only a slot whose next key is known can tell (j <
		// known), the one after slot j. The branch is a bottom branch if
		// every key of the run has its leaf there, at d, rather than
		// ending at the branch itself.
		prev := lb.firstShared
		if i > 0 {
			prev = int(lb.slots[i-1].sharedWithNext)
		}
		complete := j < known && prev < int(d) && lb.slots[j].sharedWithNext < d
		for k := i; complete && k <= j; k++ {
			complete = lb.slots[k].parentDepth == d
		}
		if complete {
			br.depth, br.childMask, br.hasValue = int(d), 0, false
			for k := i; k <= j; k++ {
				nib := nibble(lb.key(k), int(d))
				br.children[nib].set(&lb.leafRefs[k])
				br.childMask |= 1 << nib
			}
			start := len(lb.encodings)
			lb.encodings = appendBranch(lb.encodings, &br)
			// Field by field, as addKey fills a slot.
			lb.bottoms = append(lb.bottoms, bottomBranch{})
			last := len(lb.bottoms) - 1
			bb := &lb.bottoms[last]
			bb.encodingStart, bb.encodingEnd = start, len(lb.encodings)
			bb.firstSlot, bb.lastSlot, bb.depth = int16(i), int16(j), d
			lb.commitNode(lb.encodings[start:len(lb.encodings):len(lb.encodings)], &bb.ref, int32(^last))
		}
		i = j
	}
}

// feed gives the core the first n slots, whose leaves are encoded and
// hashed, one by one with their precomputed nodes; unless final, the core
// places each one and closes what the next key cannot reach. With final,
// the last slot is left for core.finish.
//
// Where nothing needs the bottom branches' leaves one by one, neither
// onNode (unless it wants only other depths than a branch's leaves') nor
// the check of precomputed nodes, the keys of a bottom branch that hangs
// straight from its parent branch, without an extension, are given as
// one: the core places the branch's reference where the leaf of a single
// key would go, and so skips opening, filling and closing a branch whose
// encoding it would not use.
func (lb *leafBatch) feed(c *streamCore, n int, final bool) {
	whole := !lb.keepEncodings && !verifyPrecomputed
	valueStart, kept, bottom := 0, 0, 0
	for i := 0; i < n; i++ {
		if whole && bottom < len(lb.bottoms) && int(lb.bottoms[bottom].firstSlot) == i {
			bb := &lb.bottoms[bottom]
			j := int(bb.lastSlot)
			before := lb.firstShared
			if i > 0 {
				before = int(lb.slots[i-1].sharedWithNext)
			}
			after := int(lb.slots[j].sharedWithNext)
			if int(bb.depth) == max(before, after)+1 && (!final || j < n-1) && !c.sink.reports(int(bb.depth)+1) {
				c.key = lb.key(j)
				c.hasLeaf, c.leaf.ref, c.leaf.encoding = true, &bb.ref, nil
				c.hasBottom = false
				c.advance(after)
				bottom++
				i = j
				continue
			}
		}
		s := &lb.slots[i]
		c.key = lb.key(i)
		c.hasLeaf = s.parentDepth >= 0
		c.value = nil
		if !c.hasLeaf || verifyPrecomputed {
			end := lb.valueEnds[kept]
			c.value = lb.values[valueStart:end]
			valueStart = end
			kept++
		}
		if c.hasLeaf {
			c.leaf.ref = &lb.leafRefs[i]
			c.leaf.encoding = nil
			if lb.keepEncodings {
				c.leaf.encoding = lb.encodings[s.encodingStart:s.encodingEnd]
			}
		}
		c.hasBottom = bottom < len(lb.bottoms) && int(lb.bottoms[bottom].lastSlot) == i
		if c.hasBottom {
			bb := &lb.bottoms[bottom]
			c.bottom = precomputedNode{ref: &bb.ref, depth: int(bb.depth)}
			if lb.keepEncodings {
				c.bottom.encoding = lb.encodings[bb.encodingStart:bb.encodingEnd]
			}
			bottom++
		}
		if !final || i < n-1 {
			c.advance(int(s.sharedWithNext))
		}
	}
}

package triehash

import "github.com/keccakroot/keccakroot/fastkeccak"

// Leaves are most of a trie's hashed nodes, and they do not depend on each
// other: where a key's leaf hangs, and so its encoding, depends only on the
// prefixes the key shares with its two neighbours. The Builder therefore
// takes keys a chunk at a time, encodes the chunk's leaves together and
// hashes them in one fastkeccak.Sum256Batch call, which runs several
// permutations at once in SIMD lanes where the CPU has a batch kernel. Then
// it places the keys one by one exactly as without the chunk, reporting each
// leaf to onNode where it would have, so the node stream keeps its order.

// leafChunk is how many keys the Builder holds before placing them: enough
// to fill the batch kernel's lanes several times over, small enough to keep
// the Builder's memory bounded by a constant.
const leafChunk = 64

// pendingItem is an accepted key and its value, not yet placed.
type pendingItem struct{ key, value []byte }

// precomputedLeaf is a key's leaf, encoded and hashed ahead: the reference
// its branch stores, the encoding for onNode, and the depth of the branch
// it was encoded for.
type precomputedLeaf struct {
	ref   ref
	blob  []byte
	depth int
}

// leafBatch is the reused scratch of one chunk.
type leafBatch struct {
	common []int             // common[i]: nibbles items i and i+1 share
	leaves []precomputedLeaf // by item
	enc    []byte            // the chunk's leaf encodings, back to back
	msgs   [][]byte          // the encodings to hash
	owner  []int             // the item of each of msgs
	sums   [][32]byte

	// bottom[i] is the branch whose last key is item i, if all its
	// children are leaves of this chunk (depth -1 otherwise): such a
	// branch is finished as soon as its keys are known, so it is encoded
	// and hashed here too, in a second batch.
	bottom  []precomputedLeaf
	benc    []byte
	scratch branch
}

// placeItems places the pending items in the trie. Unless final, the last
// item stays pending, since its leaf depends on the key after it.
func (b *Builder) placeItems(final bool) {
	m := len(b.items)
	if m == 0 {
		return
	}
	placed := m - 1
	if final {
		placed = m
	}
	// before is the prefix the first item shares with the key before it:
	// the depth of the deepest open branch.
	before := -1
	if len(b.stack) > 0 {
		before = b.top().depth
	}
	b.leaves.encode(b.items, placed, before)
	b.placeEncoded(b.items, &b.leaves, placed)
	if final {
		// The last item is placed by finish, with its precomputed leaf.
		b.items = b.items[:0]
		return
	}
	// Keep the waiting item, copying it out of the arena, which is reused.
	last := b.items[m-1]
	if len(b.arena) > 0 {
		b.carry = append(append(b.carry[:0], last.key...), last.value...)
		last = pendingItem{
			key:   b.carry[:len(last.key):len(last.key)],
			value: b.carry[len(last.key):],
		}
		b.arena = b.arena[:0]
	}
	b.items = append(b.items[:0], last)
}

// placeEncoded places the first n of items, whose leaves lb holds; an item
// that is not the last is followed by the closing of what the next key
// cannot reach.
func (b *Builder) placeEncoded(items []pendingItem, lb *leafBatch, n int) {
	for i := range n {
		b.last, b.lastValue = items[i].key, items[i].value
		b.pre, b.hasPre = lb.leaves[i], lb.leaves[i].depth >= 0
		b.preBranch = lb.bottom[i]
		if i < len(items)-1 {
			b.advance(lb.common[i])
		}
		b.preBranch.depth = -1
	}
}

// encode computes, for the first n of items, the depth of the branch each
// leaf hangs from, encodes the leaves and hashes those of 32 bytes or more in
// one batch; before is the prefix the first item shares with the key before
// it (-1 for none). A key that ends at its branch (a prefix of the next key)
// has no leaf, and neither has the only key of a trie: those get depth -1
// and are placed the ordinary way. It reads only items and lb, so the
// parallel builder runs it on workers.
func (lb *leafBatch) encode(items []pendingItem, n, before int) {
	m := len(items)
	first := before
	lb.common = lb.common[:0]
	lb.leaves = lb.leaves[:0]
	lb.enc = lb.enc[:0]
	lb.msgs = lb.msgs[:0]
	lb.owner = lb.owner[:0]
	for i := range n {
		after := -1
		if i+1 < m {
			after = commonPrefixNibbles(items[i].key, items[i+1].key)
			lb.common = append(lb.common, after)
		}
		depth := max(before, after)
		before = after
		key := items[i].key
		if depth < 0 || depth == 2*len(key) {
			lb.leaves = append(lb.leaves, precomputedLeaf{depth: -1})
			continue
		}
		start := len(lb.enc)
		lb.enc = appendLeaf(lb.enc, key, depth+1, items[i].value)
		blob := lb.enc[start:len(lb.enc):len(lb.enc)]
		leaf := precomputedLeaf{blob: blob, depth: depth}
		if len(blob) < 32 {
			leaf.ref.n = uint8(copy(leaf.ref.data[:], blob))
		} else {
			leaf.ref.n = 32
			lb.msgs = append(lb.msgs, blob)
			lb.owner = append(lb.owner, i)
		}
		lb.leaves = append(lb.leaves, leaf)
	}
	lb.hashBatch(lb.leaves)
	lb.encodeBottomBranches(items, n, first)
	lb.hashBatch(lb.bottom)
}

// hashBatch hashes the encodings queued in msgs, in one Sum256Batch call,
// into the references of nodes[owner].
func (lb *leafBatch) hashBatch(nodes []precomputedLeaf) {
	if len(lb.msgs) > 0 {
		if cap(lb.sums) < len(lb.msgs) {
			lb.sums = make([][32]byte, len(lb.msgs), max(len(lb.msgs), leafChunk))
		}
		lb.sums = lb.sums[:len(lb.msgs)]
		fastkeccak.Sum256Batch(lb.sums, lb.msgs)
		for k, i := range lb.owner {
			nodes[i].ref.data = lb.sums[k]
		}
	}
	lb.msgs, lb.owner = lb.msgs[:0], lb.owner[:0]
}

// encodeBottomBranches finds the runs of items whose leaves all hang from
// one branch and that no other key reaches (the prefix the run shares with
// the keys around it is shorter than the one inside), and encodes each
// such branch, queueing for hashing those of 32 bytes or more. first is
// the prefix the first item shares with the key before it.
func (lb *leafBatch) encodeBottomBranches(items []pendingItem, n, first int) {
	lb.bottom = lb.bottom[:0]
	lb.benc = lb.benc[:0]
	for range n {
		lb.bottom = append(lb.bottom, precomputedLeaf{depth: -1})
	}
	for i := 0; i < n; {
		if i >= len(lb.common) {
			break
		}
		d := lb.common[i]
		j := i + 1
		for j < len(lb.common) && lb.common[j] == d {
			j++
		}
		// Items i..j share exactly d nibbles pairwise; the branch is
		// complete if the keys on both sides share fewer, if every leaf
		// of the run was encoded here (j < n) and hangs at d.
		prev := first
		if i > 0 {
			prev = lb.common[i-1]
		}
		complete := j < n && j < len(lb.common) && prev < d && lb.common[j] < d
		for k := i; complete && k <= j; k++ {
			complete = lb.leaves[k].depth == d
		}
		if complete {
			br := &lb.scratch
			br.depth, br.mask, br.hasValue = d, 0, false
			for k := i; k <= j; k++ {
				nib := nibble(items[k].key, d)
				br.children[nib] = lb.leaves[k].ref
				br.mask |= 1 << nib
			}
			start := len(lb.benc)
			lb.benc = appendBranch(lb.benc, br)
			blob := lb.benc[start:len(lb.benc):len(lb.benc)]
			node := precomputedLeaf{blob: blob, depth: d}
			if len(blob) < 32 {
				node.ref.n = uint8(copy(node.ref.data[:], blob))
			} else {
				node.ref.n = 32
				lb.msgs = append(lb.msgs, blob)
				lb.owner = append(lb.owner, j)
			}
			lb.bottom[j] = node
		}
		i = j
	}
}

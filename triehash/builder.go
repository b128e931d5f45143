package triehash

import (
	"bytes"
	"fmt"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// MaxKeyLength is the longest key, in bytes, a Builder accepts. It bounds
// the builder's memory (one open branch per key nibble at most); Ethereum's
// keys are 32 bytes or, for list indices, at most 9.
const MaxKeyLength = 1024

// EmptyRoot is the root of a trie without keys: Keccak-256 of RLP("").
var EmptyRoot = [32]byte{
	0x56, 0xe8, 0x1f, 0x17, 0x1b, 0xcc, 0x55, 0xa6, 0xff, 0x83, 0x45, 0xe6, 0x92, 0xc0, 0xf8, 0x6e,
	0x5b, 0x48, 0xe0, 0x1b, 0x99, 0x6c, 0xad, 0xc0, 0x01, 0x62, 0x2f, 0xb5, 0xe3, 0x63, 0xb4, 0x21,
}

// NodeFunc receives each node that the trie stores by hash: its path from
// the root in nibbles, its Keccak-256 hash and its RLP encoding. Nodes whose
// encoding is shorter than 32 bytes are embedded in their parent and not
// reported, except the root, which is always hashed. The path and blob
// slices are reused after the call returns; copy them to keep them. This is
// the contract of go-ethereum's trie.OnTrieNode.
type NodeFunc func(path []byte, hash [32]byte, blob []byte)

// Builder computes a trie root from keys given in strictly ascending order.
//
// It keeps only the path of the last key: a stack of the branch nodes on it
// that may still receive children. When the next key arrives, every branch
// deeper than the nibbles it shares with the last key can receive nothing
// more, so it is encoded, hashed (or kept for embedding if shorter than 32
// bytes) and dropped, and its reference is written into its parent. The
// last key itself is held back until the next one shows where its leaf
// hangs: from the branch at the depth of the longer of the prefixes it
// shares with its two neighbours.
//
// Its memory is a chunk of 64 keys with their references, the open
// branches (seven for a million random keys) and up to eight closed
// branches waiting to be hashed together: about 20 KB for 32-byte keys,
// allocated with the first key and reused after Reset, so a warm Builder
// allocates nothing per key. With onNode it also keeps the chunk's node
// encodings until they are reported; keys or values longer than the first
// ones grow the buffers once.
type Builder struct {
	onNode NodeFunc

	// stack holds the open branches on the path of the last key, by
	// strictly increasing depth. Entries past len are kept for reuse.
	stack []branch
	// leaves holds the keys accepted but not yet placed in the trie, with
	// their leaves, encoded and hashed as the keys arrive (see
	// leafbatch.go). They are placed a chunk at a time; the last key always
	// waits for the next one, which decides where its leaf hangs.
	leaves leafBatch
	// waitValue is the value of the waiting key: a copy in carry, or the
	// caller's own slice when it lends it (see update). waitBefore is the
	// prefix the waiting key shares with the key before it (-1 for none).
	waitValue  []byte
	carry      []byte
	waitBefore int

	// last is the key being placed; lastValue is its value if it has no
	// leaf (it ends at a branch, or is the only key), and pre its leaf,
	// encoded and hashed ahead, if it has one.
	last, lastValue []byte
	pre             precomputedNode
	// preBranch is the branch that closes after this key, encoded and
	// hashed ahead with the chunk, if hasPreBranch.
	preBranch    precomputedNode
	hasPreBranch bool

	// hashed is set by Hash; root is its result.
	hashed bool
	root   [32]byte

	// start is the nibble at which this Builder's top node begins: 0 for
	// a whole trie (so the zero Builder is one). The parallel builders give
	// each worker the keys under one child of the root (start 1) and join
	// the references the workers return.
	start int

	enc  []byte // scratch for one node's encoding
	path []byte // scratch for the nibble path given to onNode

	// deferred holds branch and extension nodes that are encoded but not
	// yet hashed, when there is no onNode to report them in order: a
	// parent needs its children's hashes only when it closes itself, so
	// they are hashed together, in one Sum256Batch call, then.
	deferred deferredNodes
}

// branch is an open branch node at a given depth (in nibbles): its children
// are indexed by the key nibble at that depth.
type branch struct {
	depth    int
	mask     uint16 // which children are set
	children [16]ref
	value    []byte // value of the key that ends at this branch, if hasValue
	hasValue bool
}

// ref is how a parent refers to a finished child: a 32-byte hash, or the
// child's whole encoding when that is shorter than 32 bytes.
type ref struct {
	n    uint8 // 32 for a hash, else the length of an embedded encoding
	data [32]byte
}

// NewBuilder returns an empty Builder. onNode, if not nil, is called for
// every node stored by hash; see NodeFunc.
func NewBuilder(onNode NodeFunc) *Builder {
	return &Builder{onNode: onNode}
}

// Reset empties the Builder for a new trie, keeping its buffers and its
// onNode function. A Builder is usable again after Reset whatever error it
// returned before.
func (b *Builder) Reset() {
	b.stack = b.stack[:0]
	b.deferred.reset()
	b.leaves.reset()
	b.waitValue = nil
	b.last, b.lastValue = nil, nil
	b.hasPreBranch = false
	b.hashed = false
}

// Update adds a key and its value. Keys must be strictly ascending in byte
// order, values non-empty, keys at most MaxKeyLength bytes. Both slices are
// copied as needed, so the caller may reuse them at once. On error the
// Builder is unchanged.
func (b *Builder) Update(key, value []byte) error {
	return b.update(key, value, false)
}

// update is Update; with lend, the Builder keeps key and value instead of
// copying them, and the caller must leave both unchanged until Hash. Root
// and its relatives lend slices they hold anyway.
func (b *Builder) update(key, value []byte, lend bool) error {
	switch {
	case b.hashed:
		return fmt.Errorf("%w: Update(%s) after Hash; call Reset first", ErrHashed, quote(key))
	case len(value) == 0:
		return fmt.Errorf("%w: key %s (a trie cannot store an empty value)", ErrEmptyValue, quote(key))
	case len(key) > MaxKeyLength:
		return fmt.Errorf("%w: key of %d bytes, at most %d: %s", ErrKeyTooLong, len(key), MaxKeyLength, quote(key))
	}
	lb := &b.leaves
	n := len(lb.slots)
	if n > 0 {
		prev := lb.key(n - 1)
		switch cmp := bytes.Compare(prev, key); {
		case cmp == 0:
			return fmt.Errorf("%w: %s", ErrDuplicateKey, quote(key))
		case cmp > 0:
			return fmt.Errorf("%w: key %s after %s (keys must ascend)", ErrUnsorted, quote(key), quote(prev))
		}
	} else {
		// The first key of a trie.
		if cap(lb.slots) == 0 {
			b.allocate(key, value)
		}
		lb.first, b.waitBefore = -1, -1
		lb.keepBlobs = b.onNode != nil
	}
	lb.addKey(key)
	if n > 0 {
		// The new key decides where the waiting key's leaf hangs.
		common := commonPrefixNibbles(lb.key(n-1), key)
		lb.encodeLeaf(n-1, b.waitValue, b.waitBefore, common)
		b.waitBefore = common
		if n == leafChunk {
			lb.finishChunk(n)
			b.placeEncoded(lb, n, false)
			lb.keepLast(n, common)
		}
	}
	if lend {
		b.waitValue = value
	} else {
		b.carry = append(b.carry[:0], value...)
		b.waitValue = b.carry
	}
	return nil
}

// allocate sizes the Builder's buffers once, from the first key and value,
// instead of letting each grow by doubling: a fresh Builder then allocates
// a few kilobytes, once, and nothing per key while keys and values keep
// their size. Larger ones grow the buffers, once.
func (b *Builder) allocate(key, value []byte) {
	lb := &b.leaves
	lb.keys = make([]byte, 0, (leafChunk+1)*len(key))
	lb.slots = make([]leafSlot, 0, leafChunk+1)
	lb.refs = make([]ref, 0, leafChunk+1)
	// Leaf encodings wait for one hash call, or with onNode for the whole
	// chunk; a leaf is the key, the value and a few header bytes.
	leaves := hashGroup
	if b.onNode != nil {
		leaves = leafChunk
	}
	lb.enc = make([]byte, 0, leaves*(len(key)+len(value)+8))
	lb.bottoms = make([]bottomBranch, 0, leafChunk/2) // each has two keys or more
	b.carry = make([]byte, 0, len(value))
	b.stack = make([]branch, 0, 8) // a million random keys need 7
	b.enc = make([]byte, 0, 17*33+3)
}

// Hash finishes the trie and returns its root. Once called, the Builder
// returns the same root until Reset; Update in between is an error.
func (b *Builder) Hash() [32]byte {
	if b.hashed {
		return b.root
	}
	if len(b.leaves.slots) == 0 {
		b.root = EmptyRoot
	} else {
		b.root = b.finish().data // a hash: the root is never embedded
	}
	b.hashed = true
	return b.root
}

// finish closes the whole trie, which must hold a key, and returns the
// reference to its top node, as the branch above it (if start > 0) stores
// it.
func (b *Builder) finish() ref {
	lb := &b.leaves
	n := len(lb.slots)
	lb.encodeLeaf(n-1, b.waitValue, b.waitBefore, -1)
	lb.finishChunk(n)
	b.placeEncoded(lb, n, true)
	return b.close()
}

// close closes the whole trie once its last key is placed by placeEncoded,
// and returns the reference to its top node.
func (b *Builder) close() ref {
	if len(b.stack) == 0 {
		// A single key: one leaf holding the rest of the key.
		b.enc = appendLeaf(b.enc[:0], b.last, b.start, b.lastValue)
		return b.commit(b.enc, b.start)
	}
	b.placeLast()
	r := b.fold(b.start - 1)
	if r.pending() || b.deferred.n > 0 {
		b.flushDeferred()
		r = b.deferred.resolve(r)
	}
	b.deferred.reset()
	return r
}

// advance is called with the next key's common prefix with the pending
// key, in nibbles: it places the pending key and closes every branch that
// the next key cannot reach.
func (b *Builder) advance(common int) {
	if len(b.stack) == 0 || b.top().depth < common {
		b.push(common)
	}
	b.placeLast()
	b.fold(common)
}

func (b *Builder) top() *branch { return &b.stack[len(b.stack)-1] }

// push opens an empty branch at depth.
func (b *Builder) push(depth int) {
	if len(b.stack) < cap(b.stack) {
		b.stack = b.stack[:len(b.stack)+1]
	} else {
		b.stack = append(b.stack, branch{})
	}
	t := b.top()
	t.depth = depth
	t.mask = 0
	t.hasValue = false
	t.value = t.value[:0]
}

// placeLast puts the pending key into the deepest open branch: as that
// branch's value if the key ends there, else as a leaf child.
func (b *Builder) placeLast() {
	t := b.top()
	if t.depth == 2*len(b.last) {
		t.value = append(t.value[:0], b.lastValue...)
		t.hasValue = true
		return
	}
	// Its leaf was encoded for this branch: leafBatch.encodeLeaf hangs it
	// from the deeper of the prefixes the key shares with its neighbours,
	// which is where the deepest open branch is now.
	n := nibble(b.last, t.depth)
	t.children[n] = b.pre.ref
	if b.pre.ref.n == 32 {
		b.report(t.depth+1, b.pre.ref.data, b.pre.blob)
	}
	t.mask |= 1 << n
}

// fold closes every open branch deeper than depth, innermost first, and
// writes each one's reference into its parent, opening the parent at depth
// if no open branch is there. With depth start-1 it closes them all and
// returns the reference to the top node.
func (b *Builder) fold(depth int) ref {
	var r ref
	for len(b.stack) > 0 && b.top().depth > depth {
		closing := b.top()
		parent := depth
		if len(b.stack) > 1 {
			parent = max(parent, b.stack[len(b.stack)-2].depth)
		}
		r = b.closeBranch(closing, parent)
		b.stack = b.stack[:len(b.stack)-1]
		if parent == b.start-1 {
			continue // the top node: nothing above it in this Builder
		}
		if len(b.stack) == 0 || b.top().depth < parent {
			b.push(parent)
		}
		t := b.top()
		n := nibble(b.last, parent)
		t.children[n] = r
		t.mask |= 1 << n
		if r.pending() {
			b.deferred.at(r, len(b.stack)-1, n)
		}
	}
	return r
}

// closeBranch encodes a finished branch and, if it sits deeper than one
// nibble below its parent (at depth parent; -1 for none), the extension node
// that leads to it. It returns the reference the parent stores.
func (b *Builder) closeBranch(br *branch, parent int) ref {
	var r ref
	if pre := &b.preBranch; b.hasPreBranch && pre.depth == br.depth {
		r = pre.ref
		if r.n == 32 {
			b.report(br.depth, r.data, pre.blob)
		}
		b.hasPreBranch = false
	} else {
		if br.hasPending() {
			b.flushDeferred()
		}
		b.enc = appendBranch(b.enc[:0], br)
		r = b.commitDeferred(b.enc, br.depth)
	}
	if br.depth > parent+1 {
		if r.pending() {
			b.flushDeferred()
			r = b.deferred.resolve(r)
		}
		b.enc = appendExtension(b.enc[:0], b.last, parent+1, br.depth, &r)
		r = b.commitDeferred(b.enc, parent+1)
	}
	return r
}

// commit turns a finished node's encoding into the reference its parent
// keeps: the encoding itself if under 32 bytes, else its hash, which is then
// reported to onNode. pathLen is the node's depth in nibbles along the
// pending key; the root (depth 0) is always hashed. Every node hash of the
// builder goes through here.
func (b *Builder) commit(blob []byte, pathLen int) ref {
	var r ref
	if len(blob) < 32 && pathLen > 0 {
		r.n = uint8(copy(r.data[:], blob))
		return r
	}
	r.n = 32
	r.data = fastkeccak.Sum256(blob)
	b.report(pathLen, r.data, blob)
	return r
}

// report gives a node stored by hash to onNode, with its path: the first
// pathLen nibbles of the key being placed.
func (b *Builder) report(pathLen int, hash [32]byte, blob []byte) {
	if b.onNode != nil {
		b.path = appendNibbles(b.path[:0], b.last, pathLen)
		b.onNode(b.path, hash, blob)
	}
}

// nibble returns nibble i of key: the high half of key[i/2] for even i.
func nibble(key []byte, i int) byte {
	if i%2 == 0 {
		return key[i/2] >> 4
	}
	return key[i/2] & 0x0f
}

// appendNibbles appends the first n nibbles of key, one per byte.
func appendNibbles(dst, key []byte, n int) []byte {
	for i := range n {
		dst = append(dst, nibble(key, i))
	}
	return dst
}

// commonPrefixNibbles returns how many leading nibbles a and b share.
func commonPrefixNibbles(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i < len(a) && i < len(b) && a[i]>>4 == b[i]>>4 {
		return 2*i + 1
	}
	return 2 * i
}

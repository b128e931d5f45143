package triehash

import (
	"encoding/binary"
	"math/bits"
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
// A Builder is two stages. The streaming core (builder_core.go) builds the
// trie one key at a time and keeps only the branches on the path of the key
// it places; everything left of that path is finished, hashed and dropped.
// In front of it, the batch stage (leafbatch.go) holds a chunk of keys and
// encodes their leaves, and the branches whose children are all leaves of
// the chunk, before the core gets to them, so that those nodes, most of a
// trie, are hashed several at a time in fastkeccak.Sum256Batch calls. The
// core takes such nodes as they are instead of encoding them itself; it
// would encode the same bytes, which tests check node by node (see
// verifyPrecomputed).
//
// Both stages need to see one key ahead: where a key's leaf hangs depends
// on the prefixes it shares with the key before it and the key after it. So
// the newest key always waits, its value already copied into the batch
// stage's chunk, until the next key or Hash.
//
// Its memory is the batch stage's chunk, the open branches and the nodes
// waiting to be hashed together (docs/performance.md has what that comes to),
// allocated with the first key and reused after Reset, so a warm Builder
// allocates nothing per key. With onNode it also keeps the chunk's node
// encodings until they are reported; keys or values longer than the first
// ones grow the buffers once.
//
// A Builder is not safe for concurrent use; it runs on the calling goroutine
// alone (see ParallelBuilder for one that uses several).
type Builder struct {
	batch leafBatch
	core  streamCore

	// The newest key, whose leaf waits for the next key, has its value in
	// the batch stage's chunk already (see leafBatch.addValue).
	// newestShared is the number of nibbles the newest key shares with the
	// key before it, -1 if it is the first.
	newestShared int

	// hashed is set by Hash; root is its result.
	hashed bool
	root   [32]byte
}

// NewBuilder returns an empty Builder. onNode, if not nil, is called for
// every node stored by hash; see NodeFunc.
func NewBuilder(onNode NodeFunc) *Builder {
	return newBuilder(onNode, 0)
}

// newBuilder returns an empty Builder whose top node begins topDepth
// nibbles down (see streamCore.topDepth).
func newBuilder(onNode NodeFunc, topDepth int) *Builder {
	return &Builder{core: streamCore{topDepth: topDepth, sink: nodeSink{onNode: onNode}}}
}

// reportOnlyAt restricts onNode to the hashes of the nodes at the depths
// (in nibbles) marked in depths, in no particular order, with a nil blob,
// so that every node's hash, the reported ones' too, can wait to be taken
// in batches as without onNode, and the batch stage keeps no encoding once
// hashed, as without onNode (VerifyRangeProof, the one user, wants only the
// hashes of subtrees); nil restores every node in StackTrie's order, with
// its encoding. It lasts until changed, across Reset, and takes effect at
// the next trie's first key.
func (b *Builder) reportOnlyAt(depths []bool) {
	b.core.sink.reportAt = depths
}

// Reset empties the Builder for a new trie, keeping its buffers and its
// onNode function. A Builder is usable again after Reset whatever error it
// returned before.
func (b *Builder) Reset() {
	b.core.reset()
	b.batch.reset()
	b.hashed = false
}

// Update adds a key and its value. Keys must be strictly ascending in byte
// order, values non-empty, keys at most MaxKeyLength bytes. Both slices are
// copied (a value once, to where its leaf is encoded), so the caller may
// reuse them at once. On error the Builder is unchanged.
func (b *Builder) Update(key, value []byte) error {
	if err := checkUpdate(b.hashed, key, value); err != nil {
		return err
	}
	lb := &b.batch
	n := len(lb.slots)
	shared := 0
	if n > 0 {
		prev := lb.key(n - 1)
		var ascending bool
		if shared, ascending = compareKeys(prev, key); !ascending {
			return orderError(prev, key)
		}
	} else {
		// The first key of a trie.
		if cap(lb.slots) == 0 {
			b.allocate(key, value)
		}
		lb.firstShared, b.newestShared = -1, -1
		lb.keepEncodings = b.core.sink.reportsEveryNode()
		lb.dropHashed = !lb.keepEncodings
	}
	lb.addKey(key)
	if n > 0 {
		// The new key decides where the waiting key's leaf hangs.
		lb.encodeLeaf(n-1, b.newestShared, shared)
		b.newestShared = shared
		if n == leafChunk {
			lb.finishChunk(n)
			lb.feed(&b.core, n, false)
			lb.keepLast(n, shared)
		}
	}
	// After the waiting key's leaf: the buffer it goes into may have been
	// emptied, its leaves hashed.
	lb.addValue(value)
	return nil
}

// allocate sizes the Builder's buffers once, from the first key and value,
// instead of letting each grow by doubling: a fresh Builder then allocates
// a few kilobytes, once, and nothing per key while keys and values keep
// their size. Larger ones grow the buffers, once.
func (b *Builder) allocate(key, value []byte) {
	b.batch.allocate(len(key), len(value), b.core.sink.reportsEveryNode())
	b.core.allocate()
}

// Hash finishes the trie and returns its root. Once called, the Builder
// returns the same root until Reset; Update in between is an error.
func (b *Builder) Hash() [32]byte {
	if b.hashed {
		return b.root
	}
	if len(b.batch.slots) == 0 {
		b.root = EmptyRoot
	} else {
		b.root = b.finish().data // a hash: the root is never embedded
	}
	b.hashed = true
	return b.root
}

// finish closes the whole trie, which must hold a key, and returns the
// reference to its top node, as the branch above it (if the top node is
// not the root) stores it.
func (b *Builder) finish() ref {
	lb := &b.batch
	n := len(lb.slots)
	lb.encodeLeaf(n-1, b.newestShared, -1)
	lb.finishChunk(n)
	lb.feed(&b.core, n, true)
	return b.core.finish()
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
	shared, _ := compareKeys(a, b)
	return shared
}

// compareKeys returns how many leading nibbles prev and key share, and
// whether key sorts after prev: one pass over the bytes for both the order
// check of a new key and where its leaf hangs. It compares eight bytes at a
// time; random keys, a state trie's, differ within the first eight.
func compareKeys(prev, key []byte) (shared int, ascending bool) {
	i := 0
	for i+8 <= len(prev) && i+8 <= len(key) {
		a, b := binary.BigEndian.Uint64(prev[i:]), binary.BigEndian.Uint64(key[i:])
		if a != b {
			return 2*i + bits.LeadingZeros64(a^b)/4, a < b
		}
		i += 8
	}
	for i < len(prev) && i < len(key) && prev[i] == key[i] {
		i++
	}
	if i < len(prev) && i < len(key) {
		shared = 2 * i
		if prev[i]>>4 == key[i]>>4 {
			shared++
		}
		return shared, prev[i] < key[i]
	}
	// One is a prefix of the other, or they are equal.
	return 2 * i, len(prev) < len(key)
}

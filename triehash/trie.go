package triehash

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
)

// NodeSource is where a Trie finds the stored nodes it has not loaded yet:
// go-ethereum's trie database behind its database.NodeReader, a key-value
// store, or the nodes of proofs (NewProofSource).
//
// Node returns the RLP encoding of the node whose Keccak-256 hash is hash
// and which sits at path from the root (one nibble a byte; path-based
// stores need it, hash-based ones ignore it). It returns an error, or no
// bytes, when it does not have the node. The path is valid only during the
// call. The returned bytes must not change afterwards: the trie keeps
// references into them.
//
// Like go-ethereum's readers, a source answers for the hash of what it
// returns (a hash-keyed store holds nodes by hash; go-ethereum's path-based
// reader checks it). Wrap a source that cannot promise this in
// VerifyingSource.
//
// Prefetch and UpdateBatch call Node from several goroutines at once, so a
// source must be safe for concurrent use (go-ethereum's readers, a map that
// no one writes, NewProofSource and VerifyingSource over a safe source
// are).
type NodeSource interface {
	Node(path []byte, hash [32]byte) ([]byte, error)
}

// Trie is a mutable Merkle-Patricia trie, as a client holds one while it
// executes a block: opened at a root, loaded lazily from a NodeSource along
// the paths that Get, Update and Delete walk, changed, rehashed (Hash
// recomputes only the nodes changed since the last Hash), and committed
// (Commit hands over the nodes to store and the stale paths to delete,
// exactly what go-ethereum's trie.Trie.Commit puts in its NodeSet).
//
// Its roots, proofs and node sets are byte-identical to go-ethereum's.
// Hash encodes the changed nodes deepest first, a group of neighbouring
// subtrees at a time, hashes those of one depth together through
// Sum256Batch, and spreads the changed subtrees over workers.
//
// A Trie is not safe for concurrent use: Get loads nodes into it, so even
// readers need a lock or a Trie each.
type Trie struct {
	root    node
	src     NodeSource
	workers int
	// checkNodes says src was given wrapped in VerifyingSource: each node
	// loaded is checked against its hash here, a batch of nodes at a time
	// (see loadPath, fetchChunk).
	checkNodes bool
	pathChecks nodeChecks // loadPath's nodes, to check
	// hints is src if it is a HintedSource (see trie_hints.go).
	hints    HintedSource
	guessBuf []byte // the leaf loadPath guesses

	// dropped holds the path of every stored node that left the trie since
	// it was opened or committed, with that node's stored encoding (nodes
	// changed in place keep theirs). Commit reports each such path as
	// deleted unless a new node is stored there.
	dropped droppedNodes
	// pending lists the nodes changed or made since the last Hash, which
	// Hash encodes deepest first.
	pending []pendingNode
	// uncommitted counts the nodes filed as pending since the last Commit
	// (a node once per Hash it waits for), by which Commit decides
	// whether to share out its walk.
	uncommitted int
	keyBuf      []byte    // the nibbles of the key being looked up or changed
	alloc       nodeAlloc // where the nodes loaded on the calling goroutine come from
	readSink    byte      // what load and insert read ahead, kept so that the reads are not optimised away
}

// pendingNode is a node to encode at the next Hash, with its depth in
// nibbles and the first nibbles of its path, by which Hash orders the nodes
// and deals them out to workers.
type pendingNode struct {
	n      node
	depth  int32
	prefix uint16 // the path's first prefixNibbles nibbles, fewer if it is shorter
}

// prefixNibbles is the number of a pending node's path nibbles it keeps.
const prefixNibbles = 3

// errCorruptTrie reports a trie whose nodes, as decoded, have a shape no
// trie of keys can have (a value before the key ends).
var errCorruptTrie = errors.New("triehash: value node inside a key path")

// NewTrie opens the trie with the given root, loading nodes from src as
// they are needed. A zero root or EmptyRoot opens an empty trie, for which
// src may be nil. The root node is loaded at once, so a root that src does
// not have is an error here. Hash uses GOMAXPROCS goroutines; use
// Options.NewTrie to choose.
func NewTrie(root [32]byte, src NodeSource) (*Trie, error) {
	return Options{}.NewTrie(root, src)
}

// NewTrie is NewTrie with o.Workers goroutines for Hash. OnNode is not
// used: a Trie reports its nodes to Commit's callback.
func (o Options) NewTrie(root [32]byte, src NodeSource) (*Trie, error) {
	t := &Trie{src: src, workers: o.Workers}
	if v, ok := src.(verifyingSource); ok {
		// The trie checks the nodes itself, so that it can hash those it
		// loads together in batches (see loadPath, nodeLoader.checkChunk).
		t.src, t.checkNodes = v.src, true
	}
	t.hints, _ = t.src.(HintedSource)
	if root == ([32]byte{}) || root == EmptyRoot {
		return t, nil
	}
	n, err := t.load((*hashNode)(&root), nil)
	if err != nil {
		return nil, err
	}
	t.root = n
	return t, nil
}

// checkKey rejects keys the trie cannot hold.
func checkKey(key []byte) error {
	if len(key) > MaxKeyLength {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrKeyTooLong, len(key), MaxKeyLength)
	}
	return nil
}

// Get returns the value stored at key, or nil if there is none. The value
// is the trie's own: do not modify it. Get loads the nodes on the key's path
// that are not loaded yet; a node the source does not have, or that does not
// decode, is a *MissingNodeError or *InvalidNodeError, and a key over
// MaxKeyLength is ErrKeyTooLong.
func (t *Trie) Get(key []byte) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	k := t.nibbles(key)
	slot, pos := &t.root, 0
	for {
		switch n := (*slot).(type) {
		case nil:
			return nil, nil
		case valueNode:
			return n, nil
		case *shortNode:
			if !bytes.HasPrefix(k[pos:], n.key) {
				return nil, nil
			}
			slot, pos = &n.val, pos+len(n.key)
		case *fullNode:
			if pos >= len(k) {
				return nil, nil
			}
			slot, pos = &n.children[k[pos]], pos+1
		case *hashNode:
			loaded, err := t.loadPath(n, k, pos)
			if err != nil {
				return nil, err
			}
			*slot = loaded
		}
	}
}

// Update stores value at key; an empty value deletes the key, as in
// go-ethereum. The trie keeps its own copy of value. Keys may have any
// length up to MaxKeyLength, and one key may be a prefix of another. If
// Update fails (a node it needs is missing or invalid) the trie is as it
// was.
func (t *Trie) Update(key, value []byte) error {
	if len(value) == 0 {
		return t.Delete(key)
	}
	if err := checkKey(key); err != nil {
		return err
	}
	changed, root, err := t.insert(t.root, t.nibbles(key), 0, valueNode(bytes.Clone(value)))
	if err != nil {
		return err
	}
	if changed {
		t.root = root
	}
	return nil
}

// Delete removes key and its value; deleting a key that is not there does
// nothing. If Delete fails (a node it needs is missing or invalid) the
// trie is as it was.
func (t *Trie) Delete(key []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	changed, root, err := t.delete(t.root, t.nibbles(key), 0)
	if err != nil {
		return err
	}
	if changed {
		t.root = root
	}
	return nil
}

// Changes to the trie follow go-ethereum's trie.Trie node for node, so that
// the same nodes change (and Commit reports the same set). One rule keeps
// a failed change from leaving a trace: every node that may be needed is
// loaded on the way down, and nodes are changed only on the way back up,
// once nothing can fail any more. A loaded node replaces the hash that
// stood for it, which changes nothing that Hash or Commit can see.

// insert puts value at the nibbles k[pos:] below n, the node at path
// k[:pos], and returns the node to put in n's place. On the way down it
// reads a byte of each node's cache, which touch writes on the way back
// up: the core then fetches that line while it waits for the nodes below,
// rather than after them.
func (t *Trie) insert(n node, k []byte, pos int, value valueNode) (bool, node, error) {
	if pos == len(k) {
		if v, ok := n.(valueNode); ok && bytes.Equal(v, value) {
			return false, n, nil
		}
		return true, value, nil
	}
	switch n := n.(type) {
	case nil:
		return true, t.made(dirtyShort(k[pos:], value), pos, k), nil
	case *shortNode:
		t.readSink ^= n.cache.refLen
		match := sharedNibbles(k[pos:], n.key)
		if match == len(n.key) {
			changed, child, err := t.insert(n.val, k, pos+match, value)
			if !changed || err != nil {
				return false, n, err
			}
			t.touch(n, k[:pos])
			n.val = child
			return true, n, nil
		}
		// The keys part ways inside n: a branch takes its place at the first
		// nibble that differs, holding n's rest and the new leaf.
		t.release(n, k[:pos])
		at := pos + match
		branch := &fullNode{cache: dirtyCache}
		t.made(branch, at, k)
		// The path of n's rest, one deeper than the branch, as far as made
		// reads it: k's until the branch, then the rest's nibble.
		restPath := k
		if at < prefixNibbles {
			var room [prefixNibbles]byte
			restPath = append(append(room[:0], k[:at]...), n.key[match])
		}
		branch.children[n.key[match]] = t.shortOrValue(n.key[match+1:], n.val, at+1, restPath)
		branch.children[k[at]] = t.shortOrValue(k[at+1:], value, at+1, k)
		if match == 0 {
			return true, branch, nil
		}
		return true, t.made(dirtyShort(k[pos:at], branch), pos, k), nil
	case *fullNode:
		t.readSink ^= n.cache.refLen
		index := int(k[pos])
		changed, child, err := t.insert(n.children[index], k, pos+1, value)
		if !changed || err != nil {
			return false, n, err
		}
		t.touch(n, k[:pos])
		n.setChild(index, child)
		return true, n, nil
	case *hashNode:
		loaded, err := t.loadPath(n, k, pos)
		if err != nil {
			return false, n, err
		}
		changed, child, err := t.insert(loaded, k, pos, value)
		if !changed || err != nil {
			return false, n, err
		}
		return true, child, nil
	}
	return false, n, &InvalidNodeError{Path: bytes.Clone(k[:pos]), Err: errCorruptTrie}
}

// shortOrValue returns the node at depth for rest nibbles leading to val:
// val itself when no nibbles are left, else a short node with a copy of
// rest. path starts as the node's path does (see made).
func (t *Trie) shortOrValue(rest []byte, val node, depth int, path []byte) node {
	if len(rest) == 0 {
		return val
	}
	return t.made(dirtyShort(rest, val), depth, path)
}

// dirtyShort returns a short node made in memory, with a copy of key.
func dirtyShort(key []byte, val node) *shortNode {
	n := newShortNode(key, val)
	n.cache = dirtyCache
	return n
}

// nibbles returns key as nibbles with the terminator, in a buffer of the
// trie's that the next call reuses: nodes keep copies of what they need.
func (t *Trie) nibbles(key []byte) []byte {
	t.keyBuf = appendKeyNibbles(t.keyBuf[:0], key)
	return t.keyBuf
}

// delete removes the value at the nibbles k[pos:] below n, the node at path
// k[:pos], and returns the node to put in n's place (nil for none).
func (t *Trie) delete(n node, k []byte, pos int) (bool, node, error) {
	switch n := n.(type) {
	case nil:
		return false, nil, nil
	case valueNode:
		return true, nil, nil
	case *shortNode:
		match := sharedNibbles(k[pos:], n.key)
		if match < len(n.key) {
			return false, n, nil
		}
		if pos+match == len(k) {
			t.release(n, k[:pos])
			return true, nil, nil
		}
		changed, child, err := t.delete(n.val, k, pos+match)
		if !changed || err != nil {
			return false, n, err
		}
		t.touch(n, k[:pos])
		if short, ok := child.(*shortNode); ok {
			// The child shrank to a short node: n absorbs it.
			t.release(short, k[:pos+match])
			n.key = slices.Concat(n.key, short.key)
			n.val = short.val
			return true, n, nil
		}
		n.val = child
		return true, n, nil
	case *fullNode:
		return t.deleteInBranch(n, k, pos)
	case *hashNode:
		loaded, err := t.loadPath(n, k, pos)
		if err != nil {
			return false, n, err
		}
		changed, child, err := t.delete(loaded, k, pos)
		if !changed || err != nil {
			return false, n, err
		}
		return true, child, nil
	}
	return false, n, &InvalidNodeError{Path: bytes.Clone(k[:pos]), Err: errCorruptTrie}
}

// deleteInBranch is delete for a branch. A branch left with one child
// becomes a short node, and if that child is a short node too the two
// merge, so the child must be loaded: that happens before anything
// changes.
func (t *Trie) deleteInBranch(n *fullNode, k []byte, pos int) (bool, node, error) {
	if pos >= len(k) {
		return false, n, nil
	}
	index := int(k[pos])
	slot := &n.children[index]
	if h, ok := (*slot).(*hashNode); ok {
		loaded, err := t.loadPath(h, k, pos+1)
		if err != nil {
			return false, n, err
		}
		*slot = loaded
	}
	sibling := onlySibling(n, index)
	if sibling >= 0 && vanishes(*slot, k[pos+1:]) {
		if h, ok := n.children[sibling].(*hashNode); ok && sibling != terminator {
			loaded, err := t.load(h, append(bytes.Clone(k[:pos]), byte(sibling)))
			if err != nil {
				return false, n, err
			}
			n.children[sibling] = loaded
		}
	}
	changed, child, err := t.delete(*slot, k, pos+1)
	if !changed || err != nil {
		return false, n, err
	}
	n.setChild(index, child)
	if child != nil || sibling < 0 {
		// The branch keeps two children or more (none only if it was
		// malformed, with the one child): it stays, changed.
		t.touch(n, k[:pos])
		return true, n, nil
	}
	// One child left: a short node takes the branch's place, and the
	// branch, gone, is neither touched nor hashed.
	t.release(n, k[:pos])
	if short, ok := n.children[sibling].(*shortNode); ok && sibling != terminator {
		path := append(bytes.Clone(k[:pos]), byte(sibling))
		t.release(short, path)
		var room [inlineKeyNibbles]byte
		key := append(append(room[:0], byte(sibling)), short.key...)
		return true, t.made(dirtyShort(key, short.val), pos, k), nil
	}
	return true, t.made(dirtyShort([]byte{byte(sibling)}, n.children[sibling]), pos, k), nil
}

// onlySibling returns the index of the one child of n other than index, or
// -1 unless n has exactly those two children.
func onlySibling(n *fullNode, index int) int {
	sibling := -1
	for i, c := range &n.children {
		if c == nil || i == index {
			continue
		}
		if sibling >= 0 {
			return -1
		}
		sibling = i
	}
	if n.children[index] == nil {
		return -1
	}
	return sibling
}

// vanishes reports whether deleting the nibbles rest from child leaves
// nothing: child is that key's leaf, or its value.
func vanishes(child node, rest []byte) bool {
	switch c := child.(type) {
	case valueNode:
		return true
	case *shortNode:
		return bytes.Equal(c.key, rest)
	}
	return false
}

// dirtyCache is the cache of a node made or changed in memory.
var dirtyCache = nodeCache{dirty: true}

// touch marks n, at path, as changed. n stays at path, so it keeps its
// stored encoding as the path's origin (see nodeCache.stored).
func (t *Trie) touch(n node, path []byte) {
	c := cacheOf(n)
	c.dirty, c.refLen = true, 0
	t.made(n, len(path), path)
}

// made files n, a node changed or made at depth, for the next Hash, and
// returns it. path holds the node's path, or at least its first
// prefixNibbles nibbles.
func (t *Trie) made(n node, depth int, path []byte) node {
	c := cacheOf(n)
	if c.pending {
		return n
	}
	c.pending = true
	if t.pending == nil {
		t.pending = takePendingList()
	}
	t.pending = append(t.pending, pendingOf(n, depth, path))
	t.uncommitted++
	return n
}

// pendingOf returns the entry of n, at depth and path (see made), in the
// list of pending nodes.
func pendingOf(n node, depth int, path []byte) pendingNode {
	p := pendingNode{n: n, depth: int32(depth)}
	for i := range prefixNibbles {
		p.prefix <<= 4
		if i < depth {
			p.prefix |= uint16(path[i])
		}
	}
	return p
}

// release notes that n leaves path: it is removed, or another node takes
// its place. If the source holds a node at path, the path goes into
// dropped with that node's encoding, for Commit to report as deleted
// unless a new node is stored there. Every node that leaves the trie must
// be released, changed or not.
func (t *Trie) release(n node, path []byte) {
	c := cacheOf(n)
	if c == nil || c.stored == nil {
		return
	}
	t.dropped.add(path, c.stored)
	c.stored = nil
}

package triehash

import (
	"maps"
	"slices"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// ChangeFunc receives one change of a Commit: a node to store at path
// (hash and blob), or a stale node to delete there (zero hash, nil blob).
// prev is the node the source held at path before, nil if none: what
// go-ethereum's trienode.NodeSet keeps as the path's origin. The slices are
// valid only during the call.
type ChangeFunc func(path []byte, hash [32]byte, blob, prev []byte)

// Commit rehashes the trie and hands onNode every change to store: each
// changed node that is stored by hash (path, hash, blob), and each path
// whose stored node is gone, changed into an embedded node or removed (path,
// zero hash, nil blob). That is exactly the set that go-ethereum's
// trie.Trie.Commit(false) puts in its trienode.NodeSet. Deletions come
// first, then the stored nodes, children before their parents.
//
// The trie stays usable: its nodes count as stored from now on, so the next
// Commit reports only what changes after this one. onNode may be nil.
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
	c := committer{onChange: onChange, dropped: t.dropped}
	if t.root != nil {
		if rc := cacheOf(t.root); rc != nil && rc.dirty {
			c.walk(t.root, true)
		}
	}
	// What is left in dropped has no stored node at its path any more.
	for _, path := range slices.Sorted(maps.Keys(c.dropped)) {
		if onChange != nil {
			onChange([]byte(path), [32]byte{}, nil, c.dropped[path])
		}
	}
	t.dropped = make(map[string][]byte)
	return root, nil
}

// committer walks the changed nodes of a trie after Hash.
type committer struct {
	onChange ChangeFunc
	dropped  map[string][]byte
	path     []byte
	buf      []byte
}

// walk stores n and its changed descendants, children first, and marks
// them unchanged.
func (c *committer) walk(n node, isRoot bool) {
	cache := cacheOf(n)
	if cache == nil || !cache.dirty {
		return
	}
	depth := len(c.path)
	switch n := n.(type) {
	case *shortNode:
		c.path = append(c.path, n.key...)
		c.walk(n.val, false)
	case *fullNode:
		for i, child := range n.children[:16] {
			c.path = append(c.path[:depth], byte(i))
			c.walk(child, false)
		}
	}
	c.path = c.path[:depth]
	cache.dirty = false
	if !cache.hashed() && !isRoot {
		return // embedded: its parent holds it
	}
	c.buf = appendNode(c.buf[:0], n)
	hash := cache.ref
	if !cache.hashed() {
		hash = fastkeccak.Sum256(c.buf)
	}
	prev := c.dropped[string(c.path)]
	delete(c.dropped, string(c.path))
	cache.stored = slices.Clone(c.buf)
	if c.onChange != nil {
		c.onChange(c.path, hash, cache.stored, prev)
	}
}

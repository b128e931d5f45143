// Package nodeset fills a go-ethereum trienode.NodeSet with the changes a
// triehash.Trie commits, for the adapter's CommitTrie and for the
// benchmarks that set a Trie's Commit against go-ethereum's.
package nodeset

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/trie/trienode"
)

// Collector adds each change handed to Add to Set: a node stored at its
// path, or a deletion, each with the path's origin, as go-ethereum's
// trie.Trie.Commit(false) adds them.
//
// The set's nodes are cut from blocks of trienode.Node that the set's
// entries share, so that a change costs the map entries and the key that
// AddNode makes, and not an allocation for its node too. The blocks start
// small, for the few nodes of a storage trie, and double up to maxBlock.
type Collector struct {
	Set   *trienode.NodeSet
	nodes []trienode.Node
}

// The number of nodes in Collector's first block and its largest.
const (
	minBlock = 8
	maxBlock = 512
)

// New returns a Collector of an empty set for the trie of owner: the zero
// hash for the account trie, the hashed address for a storage trie.
func New(owner common.Hash) *Collector {
	return &Collector{Set: trienode.NewNodeSet(owner)}
}

// NewSized is New for a set that is to take about n changes (see
// triehash.Trie.CommitSizeHint): its maps and its first block of nodes are
// made for them, so that filling the set does not grow them step by step.
func NewSized(owner common.Hash, n int) *Collector {
	c := New(owner)
	if n > 0 {
		// NewNodeSet's maps are empty: replacing them with larger ones
		// leaves the set as AddNode expects it.
		c.Set.Nodes = make(map[string]*trienode.Node, n)
		c.Set.Origins = make(map[string][]byte, n)
		c.nodes = make([]trienode.Node, 0, min(max(n, minBlock), maxBlock))
	}
	return c
}

// Add is a triehash.ChangeFunc: it adds a node stored at path (its hash
// and blob), or, for a nil blob and the zero hash, the deletion of the
// node at path, with the path's origin prev. blob and prev are kept, not
// copied, as triehash.ChangeFunc allows: a Trie never modifies them.
func (c *Collector) Add(path []byte, hash [32]byte, blob, prev []byte) {
	if len(c.nodes) == cap(c.nodes) {
		c.nodes = make([]trienode.Node, 0, min(max(2*cap(c.nodes), minBlock), maxBlock))
	}
	c.nodes = append(c.nodes, trienode.Node{Hash: hash, Blob: blob})
	c.Set.AddNode(path, &trienode.NodeWithPrev{Node: &c.nodes[len(c.nodes)-1], Prev: prev})
}

package triehash

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/trie"
)

func BenchmarkZZHash(b *testing.B) {
	s := committedAccounts(b, 1000000)
	ops := blockChanges(s, 10000)
	for b.Loop() {
		tr, _ := NewTrie(s.root, s.nodes)
		applyAll(b, tr, ops)
		tr.Hash()
		gt, _ := trie.New(trie.TrieID(common.Hash(s.root)), s.nodes)
		applyAll(b, gt, ops)
		gt.Hash()
	}
}

package triehash

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// coreOnly builds the trie of sorted keys with the streaming core alone,
// without the batch stage in front: the core then encodes every node
// itself. The keys and values must stay unchanged until it returns.
func coreOnly(onNode NodeFunc, keys, values [][]byte) [32]byte {
	if len(keys) == 0 {
		return EmptyRoot
	}
	c := streamCore{sink: nodeSink{onNode: onNode}}
	for i := range keys {
		c.key, c.value = keys[i], values[i]
		if i+1 < len(keys) {
			c.advance(commonPrefixNibbles(keys[i], keys[i+1]))
		}
	}
	return c.finish().data
}

// TestCoreWithoutBatchStage checks that the batch stage is an optimisation
// only: the core alone gives StackTrie's root and node stream, and
// trie.Trie's root for keys that are prefixes of others.
func TestCoreWithoutBatchStage(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, n := range []int{1, 2, 3, 17, 300, 3000} {
		for _, keyLen := range []int{1, 3, 32} {
			for _, maxValue := range []int{1, 40, 300} {
				keys, values := randomSet(rng, n, keyLen, false, maxValue)
				wantRoot, wantNodes := gethStackTrie(t, keys, values)
				var nodes []gethNode
				got := coreOnly(func(path []byte, hash [32]byte, blob []byte) {
					nodes = append(nodes, gethNode{bytes.Clone(path), hash, bytes.Clone(blob)})
				}, keys, values)
				if got != wantRoot {
					t.Fatalf("%d keys of %d bytes: root %x, StackTrie %x", len(keys), keyLen, got, wantRoot)
				}
				sameNodes(t, "core alone", nodes, wantNodes)
				if got := coreOnly(nil, keys, values); got != wantRoot {
					t.Fatalf("%d keys of %d bytes, no onNode: root %x, StackTrie %x", len(keys), keyLen, got, wantRoot)
				}
			}
		}
	}
	for round := range 200 {
		keys, values := randomSet(rng, rng.IntN(80), 1+rng.IntN(6), true, 1+rng.IntN(70))
		want := gethTrieRoot(t, keys, values)
		if got := coreOnly(nil, keys, values); got != want {
			t.Fatalf("round %d: root %x, trie.Trie %x\nkeys %x", round, got, want, keys)
		}
	}
}

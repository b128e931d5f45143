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

// TestSinkBatchesAroundWaitingChildren checks that the deferred queue
// hashes the branches above the leaves' branches in full batches: a branch
// that closes while one of its children waits for its hash is queued
// behind it instead of having the queue hashed early, which used to split
// the queue into calls of one or two nodes, hashed one state at a time;
// and that nodes waiting for their children leave few lanes of a call
// idle, which they did while the queue hashed every ready node whenever it
// was full. The same holds for a Builder whose onNode wants some depths in
// any order (reportOnlyAt): the nodes it wants wait in the queue too,
// where hashing each at once after emptying the queue made most calls
// small; each is reported once, with its hash.
func TestSinkBatchesAroundWaitingChildren(t *testing.T) {
	if verifyPrecomputed {
		t.Skip("with triehash_verify the core hashes the queue before each check of a bottom branch")
	}
	keys, values := accountLikeSet(5, 200000, 70)
	want, nodes := gethStackTrie(t, keys, values)
	nodeHashes := map[string][32]byte{}
	for _, n := range nodes {
		nodeHashes[string(n.path)] = n.hash
	}
	for _, depths := range [][]bool{nil, {false, true, false, true}, {true, true, true, true, true, true}} {
		var calls, small, nodes int
		observeSinkBatch = func(n int) {
			calls++
			nodes += n
			if n <= 2 {
				small++
			}
		}
		var onNode NodeFunc
		reported := map[string][32]byte{}
		if depths != nil {
			onNode = func(path []byte, hash [32]byte, _ []byte) {
				if _, twice := reported[string(path)]; twice {
					t.Fatalf("depths %v: node at %x reported twice", depths, path)
				}
				if want, ok := nodeHashes[string(path)]; !ok || hash != want {
					t.Fatalf("depths %v: node at %x reported with hash %x, StackTrie's is %x (has one: %v)", depths, path, hash, want, ok)
				}
				reported[string(path)] = hash
			}
		}
		b := NewBuilder(onNode)
		b.reportOnlyAt(depths)
		feed(t, b, keys, values)
		got := b.Hash()
		observeSinkBatch = nil
		if got != want {
			t.Fatalf("depths %v: root %x, StackTrie %x", depths, got, want)
		}
		if calls == 0 || small*20 > calls || 2*nodes < 15*calls {
			t.Errorf("depths %v: the deferred queue hashed %d nodes in %d calls, %d of them of one or two nodes; want under 5%% such calls and 7.5 nodes a call or more", depths, nodes, calls, small)
		}
		if depths != nil && len(reported) == 0 {
			t.Errorf("depths %v: no node reported", depths)
		}
		t.Logf("depths %v: %d nodes in %d calls, %d of one or two nodes; %d reported", depths, nodes, calls, small, len(reported))
	}
}

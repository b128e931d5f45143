package triehash

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// FuzzBuilder drives the streaming builders with key sets drawn from its
// input: a seed, a key count, a key length (0 for keys of random lengths,
// some of them prefixes of others), a value size and a chunk size for the
// ParallelBuilder. Keys come from a small alphabet, so they share long
// prefixes and the trie has branches at every depth, across the boundaries
// of the Builder's 64-key chunks and of the ParallelBuilder's chunks.
//
// Every root is compared with go-ethereum's: trie.Trie for any key set,
// and for keys of one length StackTrie too, with its exact onNode stream,
// which the Builder and the ParallelBuilder must repeat node for node.
func FuzzBuilder(f *testing.F) {
	f.Add(uint64(1), uint16(200), uint8(32), uint8(120), uint8(7), uint8(2))
	f.Add(uint64(2), uint16(300), uint8(0), uint8(40), uint8(1), uint8(3))
	f.Add(uint64(3), uint16(65), uint8(3), uint8(1), uint8(64), uint8(1))
	f.Add(uint64(4), uint16(129), uint8(20), uint8(255), uint8(2), uint8(8))
	f.Fuzz(func(t *testing.T, seed uint64, n uint16, keyLen, maxValue, chunkSize, workers uint8) {
		prefixes := keyLen == 0
		if prefixes {
			keyLen = 6
		}
		keys, values := randomSet(rand.New(rand.NewPCG(seed, 1)), int(n%700), int(keyLen%40)+1, prefixes, int(maxValue)+1)

		want := gethTrieRoot(t, keys, values)
		b := NewBuilder(nil)
		for i := range keys {
			if err := b.Update(keys[i], values[i]); err != nil {
				t.Fatal(err)
			}
		}
		if got := b.Hash(); got != want {
			t.Fatalf("%d keys: Builder %x, trie.Trie %x", len(keys), got, want)
		}
		b.Reset()
		if err := b.UpdateBatch(keys, values); err != nil {
			t.Fatal(err)
		}
		if got := b.Hash(); got != want {
			t.Fatalf("%d keys: Builder.UpdateBatch %x, trie.Trie %x", len(keys), got, want)
		}

		got, nodes := buildRecorded(t, keys, values)
		if got != want {
			t.Fatalf("%d keys: Builder with onNode %x, trie.Trie %x", len(keys), got, want)
		}
		if !prefixes {
			stRoot, stNodes := gethStackTrie(t, keys, values)
			if stRoot != want {
				t.Fatalf("%d keys: StackTrie %x, trie.Trie %x", len(keys), stRoot, want)
			}
			sameNodes(t, "Builder", nodes, stNodes)
		}

		var pNodes []gethNode
		p := NewParallelBuilder(func(path []byte, hash [32]byte, blob []byte) {
			pNodes = append(pNodes, gethNode{bytes.Clone(path), hash, bytes.Clone(blob)})
		}, int(workers%4)+1)
		p.chunkSize = int(chunkSize%70) + 1
		for i := range keys {
			if err := p.Update(keys[i], values[i]); err != nil {
				t.Fatal(err)
			}
		}
		if got := p.Hash(); got != want {
			t.Fatalf("%d keys, chunks of %d: ParallelBuilder %x, trie.Trie %x", len(keys), p.chunkSize, got, want)
		}
		sameNodes(t, "ParallelBuilder", pNodes, nodes)

		// Without onNode, a ParallelBuilder's chunks drop their leaves once
		// hashed and give the core its bottom branches whole.
		p = NewParallelBuilder(nil, int(workers%4)+1)
		p.chunkSize = int(chunkSize%70) + 1
		if err := p.UpdateBatch(keys, values); err != nil {
			t.Fatal(err)
		}
		if got := p.Hash(); got != want {
			t.Fatalf("%d keys, chunks of %d: ParallelBuilder.UpdateBatch without onNode %x, trie.Trie %x", len(keys), p.chunkSize, got, want)
		}
	})
}

// sameNodes fails unless got is the node stream want, node for node.
func sameNodes(t *testing.T, who string, got, want []gethNode) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s reported %d nodes, want %d", who, len(got), len(want))
	}
	for i := range got {
		if got[i].String() != want[i].String() {
			t.Fatalf("%s node %d:\n got %v\nwant %v", who, i, got[i], want[i])
		}
	}
}

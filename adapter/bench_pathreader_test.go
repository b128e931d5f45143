package adapter

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// BenchmarkPathReaderLayers times one read of a stored trie node through
// go-ethereum's path-scheme reader, which looks for the node in each diff
// layer below the state it reads, newest first, before its disk layer (the
// write buffer, the clean cache, the store): what every trie opened on a
// path-scheme database pays a node, keccakroot's and go-ethereum's alike.
// A client at the head of its chain keeps 128 such layers. The nodes read
// are those of a 100,000-key trie, on pebble with a client's caches (warm),
// that none of the layers above it changed; each layer changes 200 other
// keys. Beside the reader, the same nodes read from the store by path and
// checked against their hash (store+keccak): what a reader that skipped
// the layers would pay for a node they do not hold.
func BenchmarkPathReaderLayers(b *testing.B) {
	kv, err := pebble.New(b.TempDir(), 512, 256, "", false)
	if err != nil {
		b.Fatal(err)
	}
	disk := rawdb.NewDatabase(kv)
	tdb := triedb.NewDatabase(disk, clientTrieConfig(rawdb.PathScheme))
	b.Cleanup(func() {
		tdb.Close()
		disk.Close()
	})
	r := rand.New(rand.NewPCG(7, 7))
	base, nodes := pathReaderBase(b, tdb, r)
	heads := []common.Hash{base}
	changed := map[string]bool{}
	for block := 1; block <= 127; block++ {
		heads = append(heads, pathReaderLayer(b, tdb, heads[block-1], uint64(block), r, changed))
	}
	// The nodes no layer changed: each reader serves them all.
	valid := slices.DeleteFunc(nodes, func(n storedNode) bool { return changed[string(n.path)] })
	r.Shuffle(len(valid), func(i, j int) { valid[i], valid[j] = valid[j], valid[i] })
	for _, layers := range []int{0, 16, 64, 127} {
		reader, err := tdb.NodeReader(heads[layers])
		if err != nil {
			b.Fatal(err)
		}
		for i := range valid { // into the clean cache
			if _, err := reader.Node(common.Hash{}, valid[i].path, valid[i].hash); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("layers=%d/reader", layers), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				n := &valid[i%len(valid)]
				if blob, err := reader.Node(common.Hash{}, n.path, n.hash); err != nil || len(blob) == 0 {
					b.Fatalf("node %x: %v", n.path, err)
				}
			}
		})
		b.Run(fmt.Sprintf("layers=%d/store+keccak", layers), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				n := &valid[i%len(valid)]
				if fastkeccak.Sum256(rawdb.ReadAccountTrieNode(disk, n.path)) != n.hash {
					b.Fatalf("node %x: the store holds another node", n.path)
				}
			}
		})
	}
}

// storedNode is a trie node's path and hash.
type storedNode struct {
	path []byte
	hash common.Hash
}

// pathReaderBase commits a trie of 100,000 random keys into tdb and flushes
// it to the store; it returns the root and the trie's nodes below the top
// four levels.
func pathReaderBase(b *testing.B, tdb *triedb.Database, r *rand.Rand) (common.Hash, []storedNode) {
	tr := trie.NewEmpty(tdb)
	for range 100_000 {
		value := make([]byte, 70)
		fillRandom(r, value)
		key := randHash(r)
		tr.MustUpdate(key[:], value)
	}
	root, set := tr.Commit(false)
	var nodes []storedNode
	set.ForEachWithOrder(func(path string, n *trienode.Node) {
		if len(path) >= 4 && !n.IsDeleted() {
			nodes = append(nodes, storedNode{[]byte(path), n.Hash})
		}
	})
	if err := tdb.Update(root, types.EmptyRootHash, 0, trienode.NewWithNodeSet(set), triedb.NewStateSet()); err != nil {
		b.Fatal(err)
	}
	if err := tdb.Commit(root, false); err != nil {
		b.Fatal(err)
	}
	return root, nodes
}

// pathReaderLayer adds a diff layer over parent that changes 200 random
// keys, notes the paths of the nodes it changes in changed, and returns its
// root.
func pathReaderLayer(b *testing.B, tdb *triedb.Database, parent common.Hash, block uint64, r *rand.Rand, changed map[string]bool) common.Hash {
	tr, err := trie.New(trie.TrieID(parent), tdb)
	if err != nil {
		b.Fatal(err)
	}
	for range 200 {
		key := randHash(r)
		tr.MustUpdate(key[:], key[:])
	}
	root, set := tr.Commit(false)
	set.ForEachWithOrder(func(path string, _ *trienode.Node) { changed[path] = true })
	if err := tdb.Update(root, parent, block, trienode.NewWithNodeSet(set), triedb.NewStateSet()); err != nil {
		b.Fatal(err)
	}
	return root
}

package adapter

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"
)

// countingPathDatabase is a countingDatabase that shows its path-scheme
// trie database's scheme and store, as a *triedb.Database does.
type countingPathDatabase struct {
	*countingDatabase
	tdb *triedb.Database
}

func (d countingPathDatabase) Scheme() string       { return d.tdb.Scheme() }
func (d countingPathDatabase) Disk() ethdb.Database { return d.tdb.Disk() }

// TestStoreFirstReads reads a path-scheme state through an empty node
// cache, one block on top of the state in the store: the nodes the block
// left alone come from the store without go-ethereum's reader, those it
// rewrote (the store holds the older node at their paths) from the reader,
// and every account reads as go-ethereum's trie reads it.
func TestStoreFirstReads(t *testing.T) {
	r := newRand(t)
	disk := rawdb.NewMemoryDatabase()
	tdb := triedb.NewDatabase(disk, schemes[1].config)
	commit := func(parent common.Hash, block uint64, change func(*trie.StateTrie)) common.Hash {
		tr, err := trie.NewStateTrie(trie.StateTrieID(parent), tdb)
		if err != nil {
			t.Fatal(err)
		}
		change(tr)
		root, set := tr.Commit(false)
		updateDB(t, tdb, root, parent, block, trienode.NewWithNodeSet(set))
		return root
	}
	addrs := make([]common.Address, 2000)
	for i := range addrs {
		addrs[i] = randAddress(r)
	}
	put := func(addrs []common.Address) func(*trie.StateTrie) {
		return func(tr *trie.StateTrie) {
			for _, addr := range addrs {
				if err := tr.UpdateAccount(addr, randAccount(r), 0); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	stored := commit(types.EmptyRootHash, 1, put(addrs))
	// Into the store: Close waits for the write buffer's flush, which
	// Commit may leave running.
	if err := tdb.Commit(stored, false); err != nil {
		t.Fatal(err)
	}
	if err := tdb.Close(); err != nil {
		t.Fatal(err)
	}
	tdb = triedb.NewDatabase(disk, schemes[1].config)
	defer tdb.Close()
	head := commit(stored, 2, put(addrs[:100])) // a diff layer above it
	want, err := trie.NewStateTrie(trie.StateTrieID(head), tdb)
	if err != nil {
		t.Fatal(err)
	}
	counting := &countingDatabase{NodeDatabase: tdb}
	ours, err := OpenSecureTrie(trie.StateTrieID(head), CachedNodeDatabase(countingPathDatabase{counting, tdb}, NewNodeCache(16<<20)))
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range addrs {
		got, err := ours.GetAccount(addr)
		wantAcc, _ := want.GetAccount(addr)
		if err != nil || got == nil || got.Balance.Cmp(wantAcc.Balance) != 0 || got.Nonce != wantAcc.Nonce {
			t.Fatalf("account %x: %v, %v; go-ethereum %v", addr, got, err, wantAcc)
		}
	}
	// Each of the 100 changed accounts' leaves, and the branches above
	// them, are the layer's; the other 1,900 leaves and the branches below
	// the changed ones are the store's.
	if counting.reads < 100 || counting.reads > 400 {
		t.Fatalf("%d nodes of 2,000 accounts' paths read through go-ethereum's reader, want the changed ones' (100 leaves and the branches above)", counting.reads)
	}
}

package adapter

import (
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/triehash"
)

// BenchmarkSecureTrieLoads opens a SecureTrie on a state of 100,000
// accounts in go-ethereum's hash-scheme trie database (in memory) and
// loads the paths of 2,000 of them with PrefetchAccount, as go-ethereum's
// trie prefetcher does for a block, with the reads recorded for Witness
// (record=true, the tries of NewStateDatabase) and without
// (record=false, AccessListStateRoot's), and go-ethereum's StateTrie doing
// the same (impl=go-ethereum). The difference between the first two is
// what recording costs the loads; allocs/op counts its garbage. Witness
// itself is asked for once, after the timed loop, and must hold the loaded
// paths' nodes with record and none without.
func BenchmarkSecureTrieLoads(b *testing.B) {
	const loads = 2000
	db, root, block := accountsState(b, 100000, loads)
	var err error
	for _, record := range []bool{true, false} {
		b.Run(fmt.Sprintf("record=%v", record), func(b *testing.B) {
			b.ReportAllocs()
			var tr *SecureTrie
			for b.Loop() {
				tr, err = openSecureTrie(triehash.Options{}, trie.StateTrieID(root), db, record, nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := tr.PrefetchAccount(block); err != nil {
					b.Fatal(err)
				}
			}
			// Outside the timed loop: go-ethereum's StateDB asks for a
			// trie's witness only when it collects one.
			witness := len(tr.Witness())
			if !record && witness != 0 {
				b.Fatalf("%d witness nodes without recording, want none", witness)
			}
			// A block's 2,000 paths in a trie of 100,000 accounts take
			// several nodes each below the shared top levels.
			if record && witness < loads {
				b.Fatalf("%d witness nodes for %d accounts' paths", witness, loads)
			}
		})
	}
	b.Run("impl=go-ethereum", func(b *testing.B) {
		b.ReportAllocs()
		var tr *trie.StateTrie
		for b.Loop() {
			tr, err = trie.NewStateTrie(trie.StateTrieID(root), db)
			if err != nil {
				b.Fatal(err)
			}
			if err := tr.PrefetchAccount(block); err != nil {
				b.Fatal(err)
			}
		}
		if witness := len(tr.Witness()); witness < loads {
			b.Fatalf("%d witness nodes for %d accounts' paths", witness, loads)
		}
	})
}

// accountsState commits a state trie of the given number of random
// accounts into go-ethereum's hash-scheme trie database, in memory, and
// returns it, its root and block addresses drawn from the accounts.
func accountsState(tb testing.TB, accounts, block int) (*triedb.Database, common.Hash, []common.Address) {
	r := newRand(tb)
	db := triedb.NewDatabase(rawdb.NewMemoryDatabase(), triedb.HashDefaults)
	build, err := OpenSecureTrie(trie.StateTrieID(types.EmptyRootHash), db)
	if err != nil {
		tb.Fatal(err)
	}
	addresses := make([]common.Address, accounts)
	for i := range addresses {
		addresses[i] = randAddress(r)
		acc := &types.StateAccount{Nonce: uint64(i), Balance: uint256.NewInt(uint64(i) + 1), Root: types.EmptyRootHash, CodeHash: types.EmptyCodeHash[:]}
		if err := build.UpdateAccount(addresses[i], acc, 0); err != nil {
			tb.Fatal(err)
		}
	}
	root, set := build.Commit(false)
	merged := trienode.NewMergedNodeSet()
	if err := merged.Merge(set); err != nil {
		tb.Fatal(err)
	}
	updateDB(tb, db, root, types.EmptyRootHash, 1, merged)
	drawn := make([]common.Address, block)
	for i := range drawn {
		drawn[i] = addresses[r.IntN(accounts)]
	}
	return db, root, drawn
}

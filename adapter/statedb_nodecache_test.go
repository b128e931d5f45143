package adapter

import (
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"
)

// TestStateDatabaseNodeCacheKeepsCommits commits a block through
// NewStateDatabaseWithNodeCache, then reads every account and slot the
// block changed at the new root through the same cache over a trie
// database that counts its reads: the nodes on their paths are the ones the
// block committed, so none may come from the trie database (a storage trie
// the block created included). A cache that has not seen the block reads
// them from it.
func TestStateDatabaseNodeCacheKeepsCommits(t *testing.T) {
	for _, scheme := range schemes {
		t.Run(scheme.name, func(t *testing.T) {
			r := newRand(t)
			disk := rawdb.NewMemoryDatabase()
			tdb := triedb.NewDatabase(disk, scheme.config)
			defer tdb.Close()
			codes := state.NewCodeDB(disk)

			// The parent state: accounts with a few slots each.
			statedb, err := state.New(types.EmptyRootHash, state.NewDatabase(tdb, codes))
			if err != nil {
				t.Fatal(err)
			}
			addrs := make([]common.Address, 400)
			for i := range addrs {
				addrs[i] = randAddress(r)
				statedb.SetBalance(addrs[i], uint256.NewInt(uint64(i+1)), tracing.BalanceChangeUnspecified)
				for range 3 {
					statedb.SetState(addrs[i], randHash(r), randHash(r))
				}
			}
			parent, err := statedb.Commit(benchRules, 1)
			if err != nil {
				t.Fatal(err)
			}

			// The block, through the cache.
			cache := NewNodeCache(16 << 20)
			statedb, err = state.New(parent, NewStateDatabaseWithNodeCache(state.NewDatabase(tdb, codes), cache))
			if err != nil {
				t.Fatal(err)
			}
			// 40 accounts changed, and a new one with storage, whose
			// storage trie the block creates.
			changed := append(slices.Clone(addrs[:40]), randAddress(r))
			slots := map[common.Address]common.Hash{}
			for i, addr := range changed {
				statedb.SetBalance(addr, uint256.NewInt(uint64(1000+i)), tracing.BalanceChangeUnspecified)
				slot := randHash(r)
				statedb.SetState(addr, slot, randHash(r))
				slots[addr] = slot
			}
			root, err := statedb.Commit(benchRules, 2)
			if err != nil {
				t.Fatal(err)
			}

			reads := func(cache *NodeCache) int {
				db := &countingDatabase{NodeDatabase: tdb}
				nodes := CachedNodeDatabase(db, cache)
				accounts, err := OpenSecureTrie(trie.StateTrieID(root), nodes)
				if err != nil {
					t.Fatal(err)
				}
				for i, addr := range changed {
					account, err := accounts.GetAccount(addr)
					if err != nil || account == nil || account.Balance.Uint64() != uint64(1000+i) {
						t.Fatalf("account %x: %v, %v", addr, account, err)
					}
					storage, err := OpenSecureTrie(trie.StorageTrieID(root, Keccak256Hash(addr[:]), account.Root), nodes)
					if err != nil {
						t.Fatal(err)
					}
					if value, err := storage.GetStorage(addr, slots[addr].Bytes()); err != nil || len(value) == 0 {
						t.Fatalf("slot %x of %x: %x, %v", slots[addr], addr, value, err)
					}
				}
				return db.reads
			}
			if n := reads(cache); n != 0 {
				t.Errorf("%d nodes of the block's paths read from the trie database, none expected", n)
			}
			if n := reads(NewNodeCache(16 << 20)); n == 0 {
				t.Error("a cache that did not see the block read nothing from the trie database")
			}
		})
	}
}

package adapter

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/triedb"

	"github.com/keccakroot/keccakroot/triehash"
)

// TestStateTrieBatch changes accounts and storage over three blocks with
// StateTrie's batch methods and with go-ethereum's StateTrie's, for both
// database schemes, after prefetching the keys on both: the roots and the
// merged node sets must be the same, and go-ethereum reads every account
// and slot back. The batches change some accounts and slots twice, store
// empty slot values (which go-ethereum stores, not deletes) and delete
// slots in between.
func TestStateTrieBatch(t *testing.T) {
	for _, scheme := range schemes {
		t.Run(scheme.name, func(t *testing.T) {
			r := newRand(t)
			db := triedb.NewDatabase(rawdb.NewMemoryDatabase(), scheme.config)
			root := types.EmptyRootHash
			var addrs []common.Address
			accounts := map[common.Address]*types.StateAccount{}
			slots := map[common.Address]map[common.Hash][]byte{}
			ours, err := OpenStateTrie(root, db)
			if err != nil {
				t.Fatal(err)
			}
			for block := uint64(1); block <= 3; block++ {
				theirs := newGethState(t, db, root)
				var batchAddrs []common.Address
				var batchAccs []*types.StateAccount
				for i := range 300 {
					addr := randAddress(r)
					switch {
					case i > 0 && i%10 == 0:
						addr = batchAddrs[r.IntN(len(batchAddrs))] // twice in the batch
					case len(addrs) > 0 && r.IntN(3) > 0:
						addr = addrs[r.IntN(len(addrs))]
					default:
						addrs = append(addrs, addr)
					}
					acc := randAccount(r)
					cur, err := ours.GetAccount(addr)
					if err != nil {
						t.Fatal(err)
					}
					if cur != nil {
						acc.Root = cur.Root // as committed: no storage change yet
					}
					accounts[addr] = acc
					batchAddrs, batchAccs = append(batchAddrs, addr), append(batchAccs, acc)
				}
				if err := ours.PrefetchAccount(batchAddrs); err != nil {
					t.Fatal(err)
				}
				if err := theirs.accounts.PrefetchAccount(batchAddrs); err != nil {
					t.Fatal(err)
				}
				if err := ours.UpdateAccountBatch(batchAddrs, batchAccs, make([]int, len(batchAddrs))); err != nil {
					t.Fatal(err)
				}
				if err := theirs.accounts.UpdateAccountBatch(batchAddrs, batchAccs, nil); err != nil {
					t.Fatal(err)
				}
				for _, addr := range batchAddrs[:60] {
					if slots[addr] == nil {
						slots[addr] = map[common.Hash][]byte{}
					}
					var keys, values [][]byte
					for j := range r.IntN(40) {
						key := randHash(r)
						if old := slots[addr]; len(old) > 0 && r.IntN(3) == 0 {
							for k := range old {
								key = k
								break
							}
						}
						if j > 0 && j%7 == 0 {
							key = common.BytesToHash(keys[r.IntN(len(keys))])
						}
						value := randHash(r).Bytes()[r.IntN(33):] // empty at times
						keys, values = append(keys, key[:]), append(values, value)
						slots[addr][key] = value
					}
					if err := ours.PrefetchStorage(addr, keys); err != nil {
						t.Fatal(err)
					}
					if err := theirs.storage(addr).PrefetchStorage(addr, keys); err != nil {
						t.Fatal(err)
					}
					if err := ours.UpdateStorageBatch(addr, keys, values); err != nil {
						t.Fatal(err)
					}
					if err := theirs.storage(addr).UpdateStorageBatch(addr, keys, values); err != nil {
						t.Fatal(err)
					}
					for k := range slots[addr] {
						if r.IntN(8) == 0 {
							if err := ours.DeleteStorage(addr, k[:]); err != nil {
								t.Fatal(err)
							}
							if err := theirs.storage(addr).DeleteStorage(addr, k[:]); err != nil {
								t.Fatal(err)
							}
							delete(slots[addr], k)
						}
					}
				}
				newRoot, nodes := commitBoth(t, block, ours, theirs)
				updateDB(t, db, newRoot, root, block, nodes)
				root = newRoot

				reread := newGethState(t, db, root)
				for addr, acc := range accounts {
					got, err := reread.accounts.GetAccount(addr)
					if err != nil || got == nil || got.Nonce != acc.Nonce || !got.Balance.Eq(acc.Balance) {
						t.Fatalf("block %d: go-ethereum reads account %x = %v, %v; want %v", block, addr, got, err, acc)
					}
				}
				checkSlots(t, block, slots, reread, ours)
			}
		})
	}
}

// TestStateTrieBatchBadInput: slices of different lengths, and storage of
// an address without an account, are errors that change nothing.
func TestStateTrieBatchBadInput(t *testing.T) {
	r := newRand(t)
	db := triedb.NewDatabase(rawdb.NewMemoryDatabase(), triedb.HashDefaults)
	ours, err := OpenStateTrie(types.EmptyRootHash, db)
	if err != nil {
		t.Fatal(err)
	}
	addr := randAddress(r)
	if err := ours.UpdateAccountBatch([]common.Address{addr, randAddress(r)}, []*types.StateAccount{randAccount(r)}, nil); !errors.Is(err, triehash.ErrLengthMismatch) {
		t.Errorf("UpdateAccountBatch with an account short: %v", err)
	}
	if root, _ := ours.Hash(); root != types.EmptyRootHash {
		t.Fatalf("a rejected batch changed the root to %x", root)
	}
	if err := ours.UpdateStorageBatch(addr, [][]byte{{1}}, [][]byte{{1}}); !errors.Is(err, ErrNoAccount) {
		t.Errorf("UpdateStorageBatch without an account: %v", err)
	}
	if err := ours.PrefetchStorage(addr, [][]byte{{1}}); err != nil {
		t.Errorf("PrefetchStorage without an account: %v", err)
	}
	if err := ours.UpdateAccountBatch([]common.Address{addr}, []*types.StateAccount{randAccount(r)}, nil); err != nil {
		t.Fatal(err)
	}
	before, _ := ours.Hash()
	if err := ours.UpdateStorageBatch(addr, [][]byte{{1}, {2}}, [][]byte{{1}}); !errors.Is(err, triehash.ErrLengthMismatch) {
		t.Errorf("UpdateStorageBatch with a value short: %v", err)
	}
	if after, _ := ours.Hash(); after != before {
		t.Fatalf("a rejected storage batch changed the root from %x to %x", before, after)
	}
}

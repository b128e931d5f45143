package adapter

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/pathdb"
	"github.com/holiman/uint256"
)

// schemes are the two layouts of go-ethereum's trie database.
var schemes = []struct {
	name   string
	config *triedb.Config
}{
	{"hash", triedb.HashDefaults},
	{"path", &triedb.Config{PathDB: pathdb.Defaults}},
}

// updateDB writes a committed node set into db as a new state.
func updateDB(t testing.TB, db *triedb.Database, root, parent common.Hash, block uint64, nodes *trienode.MergedNodeSet) {
	t.Helper()
	if nodes == nil {
		nodes = trienode.NewMergedNodeSet()
	}
	if err := db.Update(root, parent, block, nodes, triedb.NewStateSet()); err != nil {
		t.Fatalf("triedb.Update: %v", err)
	}
}

// TestOpenTrieRoundTrip opens a trie that go-ethereum committed into its
// trie database, changes it, commits it with CommitTrie into the same
// database, and reads every key back with go-ethereum, for both schemes;
// the node set equals the one go-ethereum's trie commits for the same
// changes.
func TestOpenTrieRoundTrip(t *testing.T) {
	for _, scheme := range schemes {
		t.Run(scheme.name, func(t *testing.T) {
			r := newRand(t)
			db := triedb.NewDatabase(rawdb.NewMemoryDatabase(), scheme.config)
			want := map[string][]byte{}
			gt := trie.NewEmpty(db)
			for range 2000 {
				k, v := randHash(r).Bytes(), randHash(r).Bytes()[:1+r.IntN(32)]
				want[string(k)] = v
				if err := gt.Update(k, v); err != nil {
					t.Fatal(err)
				}
			}
			root, set := gt.Commit(false)
			updateDB(t, db, root, types.EmptyRootHash, 0, trienode.NewWithNodeSet(set))

			for block := uint64(1); block <= 3; block++ {
				ours, err := OpenTrie(trie.TrieID(root), db)
				if err != nil {
					t.Fatal(err)
				}
				theirs, err := trie.New(trie.TrieID(root), db)
				if err != nil {
					t.Fatal(err)
				}
				i := 0
				for k := range want {
					var v []byte
					switch i++; i % 10 {
					case 0: // delete
					case 1, 2:
						v = randHash(r).Bytes()[:1+r.IntN(32)]
					default:
						continue
					}
					for _, tr := range []interface{ Update(k, v []byte) error }{ours, theirs} {
						if err := tr.Update([]byte(k), v); err != nil {
							t.Fatal(err)
						}
					}
					if v == nil {
						delete(want, k)
					} else {
						want[k] = v
					}
				}
				newRoot, set, err := CommitTrie(ours, common.Hash{})
				if err != nil {
					t.Fatal(err)
				}
				wantRoot, wantSet := theirs.Commit(false)
				if newRoot != wantRoot {
					t.Fatalf("block %d: root %x, go-ethereum %x", block, newRoot, wantRoot)
				}
				if err := sameNodeSet(set, wantSet); err != nil {
					t.Fatalf("block %d: %v", block, err)
				}
				updateDB(t, db, newRoot, root, block, trienode.NewWithNodeSet(set))
				root = newRoot

				reread, err := trie.New(trie.TrieID(root), db)
				if err != nil {
					t.Fatal(err)
				}
				for k, v := range want {
					got, err := reread.Get([]byte(k))
					if err != nil || !bytes.Equal(got, v) {
						t.Fatalf("block %d: go-ethereum reads %x = %x, %v; want %x", block, k, got, err, v)
					}
				}
			}
		})
	}
}

// checkSlots fails the test unless go-ethereum's state trie reread and ours
// both hold every slot of slots.
func checkSlots(t testing.TB, block uint64, slots map[common.Address]map[common.Hash][]byte, reread *gethState, ours *StateTrie) {
	t.Helper()
	for addr, kv := range slots {
		for k, v := range kv {
			got, err := reread.storage(addr).GetStorage(addr, k[:])
			if err != nil || !bytes.Equal(got, v) {
				t.Fatalf("block %d: go-ethereum reads slot %x of %x = %x, %v; want %x", block, k, addr, got, err, v)
			}
			if got, err := ours.GetStorage(addr, k[:]); err != nil || !bytes.Equal(got, v) {
				t.Fatalf("block %d: GetStorage(%x, %x) = %x, %v; want %x", block, addr, k, got, err, v)
			}
		}
	}
}

// commitBoth commits both state tries and fails the test unless the state
// roots and every trie's node set agree; it returns ours.
func commitBoth(t testing.TB, block uint64, ours *StateTrie, theirs *gethState) (common.Hash, *trienode.MergedNodeSet) {
	t.Helper()
	newRoot, nodes, err := ours.Commit()
	if err != nil {
		t.Fatal(err)
	}
	wantRoot, wantNodes := theirs.commit()
	if newRoot != wantRoot {
		t.Fatalf("block %d: state root %x, go-ethereum %x", block, newRoot, wantRoot)
	}
	for owner, want := range wantNodes.Sets {
		if err := sameNodeSet(nodes.Sets[owner], want); err != nil {
			t.Fatalf("block %d, trie of owner %x: %v", block, owner, err)
		}
		if err := sameLeaves(nodes.Sets[owner], want); err != nil {
			t.Fatalf("block %d, trie of owner %x: %v", block, owner, err)
		}
	}
	if len(nodes.Sets) != len(wantNodes.Sets) {
		t.Fatalf("block %d: %d node sets, go-ethereum %d", block, len(nodes.Sets), len(wantNodes.Sets))
	}
	return newRoot, nodes
}

// sameNodeSet compares two node sets path by path: nodes, deletions and
// origins.
func sameNodeSet(got, want *trienode.NodeSet) error {
	if (got == nil) != (want == nil) {
		return fmt.Errorf("node set %v, go-ethereum %v", got, want)
	}
	if got == nil {
		return nil
	}
	if len(got.Nodes) != len(want.Nodes) {
		return fmt.Errorf("%d nodes, go-ethereum %d", len(got.Nodes), len(want.Nodes))
	}
	for path, w := range want.Nodes {
		g, ok := got.Nodes[path]
		if !ok || g.Hash != w.Hash || !bytes.Equal(g.Blob, w.Blob) {
			return fmt.Errorf("path %x: %v, go-ethereum %v", path, g, w)
		}
		if !bytes.Equal(got.Origins[path], want.Origins[path]) {
			return fmt.Errorf("path %x: origin %x, go-ethereum %x", path, got.Origins[path], want.Origins[path])
		}
	}
	if gu, gd := got.Size(); true {
		if wu, wd := want.Size(); gu != wu || gd != wd {
			return fmt.Errorf("%d updates and %d deletions, go-ethereum %d and %d", gu, gd, wu, wd)
		}
	}
	return nil
}

// gethState applies account and storage changes as go-ethereum's StateDB
// does: storage tries first, their roots into the accounts, then the
// account trie, committed with its leaves.
type gethState struct {
	t        *testing.T
	db       *triedb.Database
	root     common.Hash
	accounts *trie.StateTrie
	storages map[common.Address]*trie.StateTrie
}

func newGethState(t *testing.T, db *triedb.Database, root common.Hash) *gethState {
	accounts, err := trie.NewStateTrie(trie.StateTrieID(root), db)
	if err != nil {
		t.Fatal(err)
	}
	return &gethState{t: t, db: db, root: root, accounts: accounts, storages: map[common.Address]*trie.StateTrie{}}
}

func (g *gethState) storage(addr common.Address) *trie.StateTrie {
	if st, ok := g.storages[addr]; ok {
		return st
	}
	acc, err := g.accounts.GetAccount(addr)
	if err != nil || acc == nil {
		g.t.Fatalf("no account %x: %v", addr, err)
	}
	st, err := trie.NewStateTrie(trie.StorageTrieID(g.root, Keccak256Hash(addr[:]), acc.Root), g.db)
	if err != nil {
		g.t.Fatal(err)
	}
	g.storages[addr] = st
	return st
}

func (g *gethState) commit() (common.Hash, *trienode.MergedNodeSet) {
	merged := trienode.NewMergedNodeSet()
	for addr, st := range g.storages {
		acc, _ := g.accounts.GetAccount(addr)
		root, set := st.Commit(false)
		if set != nil {
			if err := merged.Merge(set); err != nil {
				g.t.Fatal(err)
			}
		}
		acc.Root = root
		if err := g.accounts.UpdateAccount(addr, acc, 0); err != nil {
			g.t.Fatal(err)
		}
	}
	root, set := g.accounts.Commit(true)
	if set != nil {
		if err := merged.Merge(set); err != nil {
			g.t.Fatal(err)
		}
	}
	return root, merged
}

func randAccount(r *rand.Rand) *types.StateAccount {
	return &types.StateAccount{
		Nonce:    r.Uint64N(100),
		Balance:  uint256.NewInt(r.Uint64()),
		Root:     types.EmptyRootHash,
		CodeHash: types.EmptyCodeHash.Bytes(),
	}
}

// TestStateTrie changes accounts and their storage over three blocks with
// StateTrie and with go-ethereum's StateTrie and storage tries, for both
// database schemes: the roots and the merged node sets must be the same,
// and go-ethereum reads every account and slot back from the database, and
// again once the trie database has written the last state to disk, through
// a trie database opened anew on that disk.
func TestStateTrie(t *testing.T) {
	for _, scheme := range schemes {
		t.Run(scheme.name, func(t *testing.T) {
			r := newRand(t)
			disk := rawdb.NewMemoryDatabase()
			db := triedb.NewDatabase(disk, scheme.config)
			root := types.EmptyRootHash
			var addrs []common.Address
			slots := map[common.Address]map[common.Hash][]byte{}
			ours, err := OpenStateTrie(root, db)
			if err != nil {
				t.Fatal(err)
			}
			for block := uint64(1); block <= 3; block++ {
				theirs := newGethState(t, db, root)
				for range 200 {
					addr := randAddress(r)
					if len(addrs) > 0 && r.IntN(3) > 0 {
						addr = addrs[r.IntN(len(addrs))]
					} else {
						addrs = append(addrs, addr)
					}
					acc, err := ours.GetAccount(addr)
					if err != nil {
						t.Fatal(err)
					}
					if acc == nil {
						acc = randAccount(r)
					}
					acc.Nonce++
					if err := ours.UpdateAccount(addr, acc, 0); err != nil {
						t.Fatal(err)
					}
					if err := theirs.accounts.UpdateAccount(addr, acc, 0); err != nil {
						t.Fatal(err)
					}
					if slots[addr] == nil {
						slots[addr] = map[common.Hash][]byte{}
					}
					for range r.IntN(6) {
						key := randHash(r)
						value := randHash(r).Bytes()[r.IntN(32):]
						if old := slots[addr]; len(old) > 0 && r.IntN(4) == 0 {
							for k := range old {
								key = k
								break
							}
							value = nil
						}
						if value == nil {
							err = ours.DeleteStorage(addr, key[:])
							delete(slots[addr], key)
							if err == nil {
								err = theirs.storage(addr).DeleteStorage(addr, key[:])
							}
						} else {
							err = ours.UpdateStorage(addr, key[:], value)
							slots[addr][key] = value
							if err == nil {
								err = theirs.storage(addr).UpdateStorage(addr, key[:], value)
							}
						}
						if err != nil {
							t.Fatal(err)
						}
					}
				}
				newRoot, nodes := commitBoth(t, block, ours, theirs)
				updateDB(t, db, newRoot, root, block, nodes)
				root = newRoot

				reread := newGethState(t, db, root)
				checkSlots(t, block, slots, reread, ours)
			}
			// On disk, the hash scheme keeps the storage tries that the
			// account trie's leaves link to its nodes.
			if err := db.Commit(root, false); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			fresh := triedb.NewDatabase(disk, scheme.config)
			reopened, err := OpenStateTrie(root, fresh)
			if err != nil {
				t.Fatal(err)
			}
			checkSlots(t, 4, slots, newGethState(t, fresh, root), reopened)
			if err := ours.UpdateStorage(randAddress(r), []byte{1}, []byte{1}); err == nil {
				t.Fatal("UpdateStorage of an account that does not exist succeeded")
			}
		})
	}
}

// TestStateTrieAccountRootReplaced reads a slot, which opens the account's
// storage trie, then stores the account with another storage root (that of
// an empty storage, as a re-created account has): the slot reads as empty
// from then on, and the state root is that of the account with no storage.
func TestStateTrieAccountRootReplaced(t *testing.T) {
	for _, scheme := range schemes {
		t.Run(scheme.name, func(t *testing.T) {
			db := triedb.NewDatabase(rawdb.NewMemoryDatabase(), scheme.config)
			addr, slot := common.Address{7}, common.Hash{1}
			acc := &types.StateAccount{Nonce: 1, Balance: uint256.NewInt(5), Root: types.EmptyRootHash, CodeHash: types.EmptyCodeHash.Bytes()}
			st, err := OpenStateTrie(types.EmptyRootHash, db)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.UpdateAccount(addr, acc, 0); err != nil {
				t.Fatal(err)
			}
			if err := st.UpdateStorage(addr, slot[:], []byte{9}); err != nil {
				t.Fatal(err)
			}
			root, nodes, err := st.Commit()
			if err != nil {
				t.Fatal(err)
			}
			updateDB(t, db, root, types.EmptyRootHash, 1, nodes)

			st, err = OpenStateTrie(root, db)
			if err != nil {
				t.Fatal(err)
			}
			if v, err := st.GetStorage(addr, slot[:]); err != nil || !bytes.Equal(v, []byte{9}) {
				t.Fatalf("GetStorage = %x, %v; want 09", v, err)
			}
			if err := st.UpdateAccount(addr, acc, 0); err != nil { // acc.Root: the empty storage
				t.Fatal(err)
			}
			if v, err := st.GetStorage(addr, slot[:]); err != nil || v != nil {
				t.Fatalf("GetStorage after the account's storage root was replaced = %x, %v; want nothing", v, err)
			}
			got, err := st.Hash()
			if err != nil {
				t.Fatal(err)
			}
			bare, err := OpenStateTrie(types.EmptyRootHash, db)
			if err != nil {
				t.Fatal(err)
			}
			if err := bare.UpdateAccount(addr, acc, 0); err != nil {
				t.Fatal(err)
			}
			if want, err := bare.Hash(); err != nil || got != want {
				t.Fatalf("state root %x, want %x (%v)", got, want, err)
			}
		})
	}
}

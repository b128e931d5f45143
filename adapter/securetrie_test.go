package adapter

import (
	"bytes"
	"errors"
	"maps"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/database"
)

// TestSecureTrieMatchesStateTrie makes the same changes to a SecureTrie and
// to go-ethereum's trie.StateTrie, an account trie and a storage trie, over
// two blocks and both schemes, with preimages recorded, and compares every
// method's answer: reads, GetKey before and after Commit, Witness (after
// Prove too), Commit(true)'s node set and leaves, Prove, and NodeIterator;
// and the same
// with the SecureTrie opened on a CachedNodeDatabase, one NodeCache for all
// blocks.
func TestSecureTrieMatchesStateTrie(t *testing.T) {
	for _, scheme := range schemes {
		for _, owner := range []common.Hash{{}, {0x0e}} {
			for _, cached := range []bool{false, true} {
				name := scheme.name + "/account"
				if owner != (common.Hash{}) {
					name = scheme.name + "/storage"
				}
				if cached {
					name += "/cached"
				}
				t.Run(name, func(t *testing.T) { checkSecureTrie(t, scheme.config, owner, cached) })
			}
		}
	}
}

// checkSecureTrie runs TestSecureTrieMatchesStateTrie on one trie: the
// account trie for the zero owner, a storage trie otherwise (stored in a
// database of its own, where its root stands for the state root).
func checkSecureTrie(t *testing.T, schemeConfig *triedb.Config, owner common.Hash, cached bool) {
	r := newRand(t)
	config := *schemeConfig
	config.Preimages = true
	db := triedb.NewDatabase(rawdb.NewMemoryDatabase(), &config)
	var ourDB database.NodeDatabase = db
	if cached {
		ourDB = CachedNodeDatabase(db, NewNodeCache(1<<20))
	}
	root := types.EmptyRootHash
	var keys []common.Address
	for block := uint64(1); block <= 3; block++ {
		id := trie.StateTrieID(root)
		if owner != (common.Hash{}) {
			id = trie.StorageTrieID(root, owner, root)
		}
		ours, err := OpenSecureTrie(id, ourDB)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := trie.NewStateTrie(id, db)
		if err != nil {
			t.Fatal(err)
		}
		if block > 1 {
			compareIterators(t, ours, theirs)
		}
		keys = changeBoth(t, r, ours, theirs, owner != (common.Hash{}), keys)
		// Code is not in a Merkle trie: both take it and change nothing.
		code := []byte{0x60, 0x00, byte(block)}
		if errOurs, errTheirs := ours.UpdateContractCode(keys[0], Keccak256Hash(code), code), theirs.UpdateContractCode(keys[0], Keccak256Hash(code), code); errOurs != nil || errTheirs != nil {
			t.Fatalf("UpdateContractCode: %v, go-ethereum %v", errOurs, errTheirs)
		}
		if ours.IsUBT() != theirs.IsUBT() {
			t.Fatalf("IsUBT: %v, go-ethereum %v", ours.IsUBT(), theirs.IsUBT())
		}
		if _, err := ours.NodeIterator(nil); !errors.Is(err, ErrTrieChanged) {
			t.Fatalf("NodeIterator of a changed trie: %v", err)
		}
		if got, want := ours.Witness(), theirs.Witness(); !maps.EqualFunc(got, want, bytes.Equal) || (block > 1 && len(want) == 0) {
			t.Fatalf("block %d: the witness has %d nodes, go-ethereum's %d", block, len(got), len(want))
		}
		for _, key := range keys[len(keys)-5:] {
			hashed := Keccak256(key[:])
			if got, want := ours.GetKey(hashed), theirs.GetKey(hashed); !bytes.Equal(got, want) {
				t.Fatalf("GetKey before Commit: %x, go-ethereum %x", got, want)
			}
			compareProofs(t, ours, theirs, hashed)
		}
		// The proofs of keys this block may not have read load nodes that,
		// as in go-ethereum, stay out of the witness.
		for _, key := range keys[:min(8, len(keys))] {
			compareProofs(t, ours, theirs, Keccak256(key[:]))
			compareProofs(t, ours, theirs, Keccak256(key[:], []byte("absent")))
		}
		if got, want := ours.Witness(), theirs.Witness(); !maps.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("block %d, after Prove: the witness has %d nodes, go-ethereum's %d", block, len(got), len(want))
		}
		gotRoot, gotSet := ours.Commit(true)
		wantRoot, wantSet := theirs.Commit(true)
		if gotRoot != wantRoot {
			t.Fatalf("block %d: root %x, go-ethereum %x", block, gotRoot, wantRoot)
		}
		if err := sameNodeSet(gotSet, wantSet); err != nil {
			t.Fatal(err)
		}
		if err := sameLeaves(gotSet, wantSet); err != nil {
			t.Fatal(err)
		}
		if len(wantSet.Leaves) == 0 {
			t.Fatal("no leaves committed")
		}
		found := 0
		for _, key := range keys {
			hashed := Keccak256(key[:])
			got, want := ours.GetKey(hashed), theirs.GetKey(hashed)
			if !bytes.Equal(got, want) {
				t.Fatalf("GetKey after Commit: %x, go-ethereum %x", got, want)
			}
			if got != nil {
				found++
			}
		}
		if found == 0 {
			t.Fatal("GetKey found no preimage after Commit")
		}
		merged := trienode.NewMergedNodeSet()
		if err := merged.Merge(wantSet); err != nil {
			t.Fatal(err)
		}
		updateDB(t, db, gotRoot, root, block, merged)
		root = gotRoot
	}
}

// changeBoth makes the same random changes to both tries: new and changed
// accounts or slots, some deleted, each read back from both first. It
// returns the addresses (or slots) used so far.
func changeBoth(t *testing.T, r *rand.Rand, ours *SecureTrie, theirs *trie.StateTrie, storage bool, keys []common.Address) []common.Address {
	t.Helper()
	for range 150 {
		key := randAddress(r)
		if len(keys) > 0 && r.IntN(3) == 0 {
			key = keys[r.IntN(len(keys))]
		} else {
			keys = append(keys, key)
		}
		if storage {
			got, err := ours.GetStorage(key, key[:])
			want, werr := theirs.GetStorage(key, key[:])
			if err != nil || werr != nil || !bytes.Equal(got, want) {
				t.Fatalf("GetStorage %x: %x, %v; go-ethereum %x, %v", key, got, err, want, werr)
			}
			if got != nil && r.IntN(4) == 0 {
				err, werr = ours.DeleteStorage(key, key[:]), theirs.DeleteStorage(key, key[:])
			} else {
				value := randHash(r).Bytes()[r.IntN(32):]
				err, werr = ours.UpdateStorage(key, key[:], value), theirs.UpdateStorage(key, key[:], value)
			}
			if err != nil || werr != nil {
				t.Fatal(err, werr)
			}
			continue
		}
		got, err := ours.GetAccount(key)
		want, werr := theirs.GetAccount(key)
		if err != nil || werr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("GetAccount %x: %v, %v; go-ethereum %v, %v", key, got, err, want, werr)
		}
		if got != nil && r.IntN(4) == 0 {
			err, werr = ours.DeleteAccount(key), theirs.DeleteAccount(key)
		} else {
			acc := randAccount(r)
			err, werr = ours.UpdateAccount(key, acc, 0), theirs.UpdateAccount(key, acc, 0)
		}
		if err != nil || werr != nil {
			t.Fatal(err, werr)
		}
	}
	return keys
}

// compareProofs checks that both tries prove key with the same nodes.
func compareProofs(t *testing.T, ours *SecureTrie, theirs *trie.StateTrie, key []byte) {
	t.Helper()
	got, want := memorydb.New(), memorydb.New()
	if err := ours.Prove(key, got); err != nil {
		t.Fatal(err)
	}
	if err := theirs.Prove(key, want); err != nil {
		t.Fatal(err)
	}
	if got.Len() != want.Len() || got.Len() == 0 {
		t.Fatalf("a proof of %d nodes, go-ethereum's %d", got.Len(), want.Len())
	}
	it := want.NewIterator(nil, nil)
	defer it.Release()
	for it.Next() {
		if blob, _ := got.Get(it.Key()); !bytes.Equal(blob, it.Value()) {
			t.Fatalf("the proof lacks node %x", it.Key())
		}
	}
}

// compareIterators walks both tries, unchanged since they were opened,
// with their node iterators: the same nodes in the same order.
func compareIterators(t *testing.T, ours *SecureTrie, theirs *trie.StateTrie) {
	t.Helper()
	got, err := ours.NodeIterator(nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := theirs.NodeIterator(nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for want.Next(true) {
		if !got.Next(true) || got.Hash() != want.Hash() || !bytes.Equal(got.Path(), want.Path()) {
			t.Fatalf("node %d: %x at %x, go-ethereum %x at %x", n, got.Hash(), got.Path(), want.Hash(), want.Path())
		}
		n++
	}
	if got.Next(true) || n == 0 || got.Error() != nil || want.Error() != nil {
		t.Fatalf("after %d nodes: %v, go-ethereum %v", n, got.Error(), want.Error())
	}
}

// TestSecureTriePrefetchWitness prefetches a block's accounts, which
// SecureTrie loads on several goroutines (run it with -race and -cpu 2 or
// more), and compares the witness with go-ethereum's StateTrie's after the
// same prefetch and reads: every node read, by path.
func TestSecureTriePrefetchWitness(t *testing.T) {
	db, root, block := accountsState(t, 20000, 1000)
	ours, err := OpenSecureTrie(trie.StateTrieID(root), db)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := trie.NewStateTrie(trie.StateTrieID(root), db)
	if err != nil {
		t.Fatal(err)
	}
	if err := ours.PrefetchAccount(block); err != nil {
		t.Fatal(err)
	}
	if err := theirs.PrefetchAccount(block); err != nil {
		t.Fatal(err)
	}
	for _, address := range block[:10] {
		got, err := ours.GetAccount(address)
		want, werr := theirs.GetAccount(address)
		if err != nil || werr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("GetAccount %x: %v, %v; go-ethereum %v, %v", address, got, err, want, werr)
		}
	}
	got, want := ours.Witness(), theirs.Witness()
	if len(want) < len(block) || !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("a witness of %d nodes, go-ethereum's %d", len(got), len(want))
	}
}

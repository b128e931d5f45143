package adapter

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"
)

// The state FuzzAccessListStateRoot's lists apply to: fuzzAccounts
// accounts, every third with storage from a set of fuzzSlots slot keys and
// every fourth with code, and fuzzFresh addresses that are not in it.
const (
	fuzzAccounts = 48
	fuzzFresh    = 16
	fuzzSlots    = 24
)

// fuzzState is the parent state of FuzzAccessListStateRoot, built once.
type fuzzState struct {
	root common.Hash
	tdb  *triedb.Database
	sdb  state.Database
}

// fuzzAddress is account i of the state, or a fresh address from
// fuzzAccounts on.
func fuzzAddress(i int) common.Address {
	return common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprintf("access list fuzz account %d", i))))
}

// fuzzSlot is slot key i: the state's accounts hold some of the first
// fuzzSlots, and the lists also write keys beyond them.
func fuzzSlot(i int) common.Hash {
	return crypto.Keccak256Hash([]byte(fmt.Sprintf("access list fuzz slot %d", i)))
}

// fuzzAccessListState builds the state once per process, through
// go-ethereum's StateDB into an in-memory hash-scheme trie database, which
// both sides then only read.
var fuzzAccessListState = sync.OnceValues(func() (*fuzzState, error) {
	return newFuzzState(rawdb.NewMemoryDatabase())
})

// newFuzzState builds FuzzAccessListStateRoot's state on disk, stored
// there by a hash-scheme trie database, which it returns.
func newFuzzState(disk ethdb.Database) (*fuzzState, error) {
	tdb := triedb.NewDatabase(disk, triedb.HashDefaults)
	sdb := state.NewDatabase(tdb, state.NewCodeDB(disk))
	statedb, err := state.New(types.EmptyRootHash, sdb)
	if err != nil {
		return nil, err
	}
	for i := range fuzzAccounts {
		addr := fuzzAddress(i)
		statedb.SetBalance(addr, uint256.NewInt(uint64(i+1)), tracing.BalanceChangeUnspecified)
		statedb.SetNonce(addr, uint64(i%3), tracing.NonceChangeUnspecified)
		if i%4 == 0 {
			statedb.SetCode(addr, []byte{0x60, byte(i), 0x00}, tracing.CodeChangeUnspecified)
		}
		if i%3 == 0 {
			for j := range i % fuzzSlots {
				statedb.SetState(addr, fuzzSlot(j), common.BytesToHash([]byte{byte(i), byte(j + 1)}))
			}
		}
	}
	root, err := statedb.Commit(benchRules, 0)
	if err != nil {
		return nil, err
	}
	if err := tdb.Commit(root, false); err != nil {
		return nil, err
	}
	return &fuzzState{root: root, tdb: tdb, sdb: sdb}, nil
}

// fuzzAccessList reads an access list over fuzzState from data, four bytes
// a change: the account (one of the state's, or a fresh address), the kind
// of change and its transaction, and two bytes of value. Kinds: a balance
// (zero included), a nonce, a code (empty included), a slot written (zero
// clears it) and a slot read.
func fuzzAccessList(data []byte) *bal.BlockAccessList {
	list := bal.NewConstructionBlockAccessList()
	for ; len(data) >= 4; data = data[4:] {
		addr := fuzzAddress(int(data[0]) % (fuzzAccounts + fuzzFresh))
		kind, tx := data[1]%5, uint32(data[1]/5)
		v0, v1 := data[2], data[3]
		switch kind {
		case 0:
			list.BalanceChange(tx, addr, new(uint256.Int).Lsh(uint256.NewInt(uint64(v0)), uint(v1%200)))
		case 1:
			list.NonceChange(addr, tx, uint64(v0))
		case 2:
			list.CodeChange(addr, tx, []byte{0x60, v0, 0x00}[:v1%4])
		case 3:
			list.StorageWrite(tx, addr, fuzzSlot(int(v0)%(fuzzSlots+4)), common.BytesToHash([]byte{v1}))
		case 4:
			list.StorageRead(addr, fuzzSlot(int(v0)%(fuzzSlots+4)))
		}
	}
	return list.ToEncodingObj()
}

// accessListFuzzSeeds are FuzzAccessListStateRoot's seed inputs, whose
// lists' encodings seed FuzzAccessListStateRootRLP.
var accessListFuzzSeeds = [][]byte{
	{},
	{0, 0, 7, 1, 50, 0, 3, 0, 3, 3, 1, 9, 3, 8, 30, 0},              // balances, a fresh account, slots
	{3, 3, 0, 0, 3, 0, 0, 0, 3, 1, 0, 0, 3, 2, 0, 0},                // an account emptied, its slot cleared
	{52, 3, 1, 5, 52, 8, 1, 0, 60, 2, 1, 3, 60, 4, 2, 0},            // fresh: a slot write, a read, a code
	{6, 3, 2, 9, 6, 8, 2, 0, 6, 13, 2, 4, 12, 0, 0, 0, 12, 1, 0, 0}, // one slot three times; an account zeroed
	// one account changing everything twice, reading two slots; a fresh one
	{6, 5, 9, 0, 6, 10, 4, 1, 6, 6, 3, 0, 6, 16, 4, 0, 6, 7, 1, 3, 6, 12, 2, 3, 6, 8, 2, 7, 6, 13, 2, 0, 6, 13, 7, 5, 6, 4, 5, 0, 6, 4, 9, 0, 50, 5, 1, 0},
}

// gethListRootOrPanic is gethListRoot on fs that reports a panic of
// go-ethereum's instead of passing it on.
func gethListRootOrPanic(fs *fuzzState, list *bal.BlockAccessList) (root common.Hash, panicked bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			panicked = true
		}
	}()
	root, err = gethListRoot(fs.sdb, fs.root, benchRules, list)
	return root, false, err
}

// FuzzAccessListStateRoot applies access lists made from the input (new
// and existing accounts, balances and nonces set to zero or not, codes set
// and removed, slots written, cleared and read, several changes of one
// account in different transactions) to a state of 48 accounts, and checks
// AccessListStateRoot and AccessListCommit against go-ethereum's
// ApplyBlockAccessList and IntermediateRoot: the same root, or, where
// keccakroot refuses the list, the one refusal it documents that
// go-ethereum does not make (a storage write to an account that ends the
// block empty, which go-ethereum deletes with its writes); and, where both
// give a root, AccessListStateUpdate against go-ethereum's Commit.
func FuzzAccessListStateRoot(f *testing.F) {
	for _, seed := range accessListFuzzSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fs, err := fuzzAccessListState()
		if err != nil {
			t.Fatal(err)
		}
		list := fuzzAccessList(data)
		want, panicked, gethErr := gethListRootOrPanic(fs, list)
		got, err := AccessListStateRoot(fs.root, list, fs.tdb)
		committed, set, commitErr := AccessListCommit(fs.root, list, fs.tdb)
		if (err == nil) != (commitErr == nil) || committed != got {
			t.Fatalf("AccessListCommit: %x, %v; AccessListStateRoot: %x, %v", committed, commitErr, got, err)
		}
		if err == nil && set == nil {
			t.Fatalf("AccessListCommit: root %x without a node set", committed)
		}
		switch {
		case panicked:
			// go-ethereum panicked on this list; keccakroot did not.
		case err != nil:
			if !errors.Is(err, ErrAccessList) || !strings.Contains(err.Error(), "ends the block empty") {
				t.Fatalf("keccakroot: %v; go-ethereum: %x, %v", err, want, gethErr)
			}
		case gethErr != nil:
			t.Fatalf("keccakroot: root %x; go-ethereum: %v", got, gethErr)
		case got != want:
			t.Fatalf("root %x, go-ethereum's %x", got, want)
		default:
			checkListUpdate(t, fs, list)
		}
	})
}

// TestAccessListCommitPreimages applies access lists to
// FuzzAccessListStateRoot's state, stored without preimages, with
// AccessListCommit and with go-ethereum's ApplyBlockAccessList and Commit,
// each on a trie database of its own that records preimages: afterwards
// the same addresses and slot keys of each list have their preimages.
func TestAccessListCommitPreimages(t *testing.T) {
	withPreimages := &triedb.Config{Preimages: true, HashDB: triedb.HashDefaults.HashDB}
	open := func() (*triedb.Database, ethdb.Database, common.Hash) {
		disk := rawdb.NewMemoryDatabase()
		fs, err := newFuzzState(disk)
		if err != nil {
			t.Fatal(err)
		}
		if err := fs.tdb.Close(); err != nil {
			t.Fatal(err)
		}
		return triedb.NewDatabase(disk, withPreimages), disk, fs.root
	}
	inputs := [][]byte{
		{0, 0, 7, 1, 50, 0, 3, 0, 3, 3, 1, 9, 3, 8, 30, 0},   // balances, a fresh account, slots
		{52, 3, 1, 5, 52, 0, 1, 0, 60, 2, 1, 3, 60, 0, 2, 0}, // fresh: a slot write, balances, a code
		{6, 3, 2, 9, 6, 8, 2, 0, 6, 13, 2, 4, 12, 0, 0, 0},   // one slot written, cleared, written; an account zeroed
		{9, 3, 0, 0, 9, 3, 30, 7, 21, 3, 5, 0, 21, 0, 1, 0},  // a slot cleared, a slot added, a balance
	}
	for n, data := range inputs {
		list := fuzzAccessList(data)
		ours, _, parent := open()
		root, nodes, err := AccessListCommit(parent, list, ours)
		if err != nil {
			t.Fatalf("list %d: %v", n, err)
		}
		if err := ours.Update(root, parent, 1, nodes, triedb.NewStateSet()); err != nil {
			t.Fatal(err)
		}
		theirs, disk, _ := open()
		statedb, err := state.New(parent, state.NewDatabase(theirs, state.NewCodeDB(disk)))
		if err != nil {
			t.Fatal(err)
		}
		if err := statedb.ApplyBlockAccessList(list); err != nil {
			t.Fatal(err)
		}
		if want, err := statedb.Commit(benchRules, 1); err != nil || want != root {
			t.Fatalf("list %d: root %x, go-ethereum %x (%v)", n, root, want, err)
		}
		recorded := 0
		check := func(what string, key []byte) {
			h := crypto.Keccak256Hash(key)
			got, want := ours.Preimage(h), theirs.Preimage(h)
			if !bytes.Equal(got, want) {
				t.Fatalf("list %d, %s %x: preimage %x, go-ethereum's %x", n, what, key, got, want)
			}
			if want != nil {
				recorded++
			}
		}
		for _, access := range *list {
			check("address", access.Address[:])
			for _, slot := range access.StorageChanges {
				key := slot.Slot.Bytes32()
				check("slot", key[:])
			}
		}
		if recorded == 0 {
			t.Fatalf("list %d: no preimage recorded on either side", n)
		}
	}
}

// denseFuzzSeed is the seed of accessListFuzzSeeds whose list has an
// account changing its balance, nonce, code and a slot twice each and
// reading two slots, beside a fresh account.
var denseFuzzSeed = accessListFuzzSeeds[len(accessListFuzzSeeds)-1]

// editedSeeds returns denseFuzzSeed's list edited, one rule of a canonical
// list at a time: broken (changes of each kind repeated at an index or out
// of order, a written slot without a write, slots written or read out of
// order, a slot read twice or both read and written, accounts out of
// order, code one byte too large), or taken to its limit (code of the
// largest size). They start FuzzAccessListStateRootRLP on both sides of
// each rule, where a mutated byte crosses it.
func editedSeeds(f *testing.F) []*bal.BlockAccessList {
	f.Helper()
	edits := []func(l bal.BlockAccessList, a *bal.AccountAccess){
		func(_ bal.BlockAccessList, a *bal.AccountAccess) {
			a.BalanceChanges[1].BlockAccessIndex = a.BalanceChanges[0].BlockAccessIndex
		},
		func(_ bal.BlockAccessList, a *bal.AccountAccess) {
			a.NonceChanges[0], a.NonceChanges[1] = a.NonceChanges[1], a.NonceChanges[0]
		},
		func(_ bal.BlockAccessList, a *bal.AccountAccess) {
			a.CodeChanges[1].BlockAccessIndex = a.CodeChanges[0].BlockAccessIndex
		},
		func(_ bal.BlockAccessList, a *bal.AccountAccess) {
			for _, w := range a.StorageChanges {
				if len(w.SlotChanges) >= 2 {
					w.SlotChanges[0], w.SlotChanges[1] = w.SlotChanges[1], w.SlotChanges[0]
				}
			}
		},
		func(_ bal.BlockAccessList, a *bal.AccountAccess) { a.StorageChanges[0].SlotChanges = nil },
		func(_ bal.BlockAccessList, a *bal.AccountAccess) {
			a.StorageChanges[0], a.StorageChanges[1] = a.StorageChanges[1], a.StorageChanges[0]
		},
		func(_ bal.BlockAccessList, a *bal.AccountAccess) {
			a.StorageReads[0], a.StorageReads[1] = a.StorageReads[1], a.StorageReads[0]
		},
		func(_ bal.BlockAccessList, a *bal.AccountAccess) { a.StorageReads[1] = a.StorageReads[0].Clone() },
		func(_ bal.BlockAccessList, a *bal.AccountAccess) {
			a.StorageReads = []*uint256.Int{a.StorageChanges[0].Slot.Clone()}
		},
		func(l bal.BlockAccessList, _ *bal.AccountAccess) { l[0], l[1] = l[1], l[0] },
		func(_ bal.BlockAccessList, a *bal.AccountAccess) {
			a.CodeChanges[0].NewCode = make([]byte, params.MaxCodeSizeAmsterdam+1)
		},
		func(_ bal.BlockAccessList, a *bal.AccountAccess) {
			a.CodeChanges[1].NewCode = bytes.Repeat([]byte{0x5b}, params.MaxCodeSizeAmsterdam)
		},
	}
	lists := make([]*bal.BlockAccessList, len(edits))
	for i, edit := range edits {
		list := fuzzAccessList(denseFuzzSeed)
		var dense *bal.AccountAccess
		for j := range *list {
			if a := &(*list)[j]; len(a.NonceChanges) >= 2 {
				dense = a
			}
		}
		if len(*list) < 2 || dense == nil || len(dense.BalanceChanges) < 2 || len(dense.CodeChanges) < 2 ||
			len(dense.StorageChanges) < 2 || len(dense.StorageReads) < 2 {
			f.Fatal("the dense seed's list lacks what the edits change")
		}
		edit(*list, dense)
		lists[i] = list
	}
	return lists
}

// FuzzAccessListStateRootRLP decodes its input as go-ethereum decodes a
// block access list a peer sends (rlp.DecodeBytes into a
// bal.BlockAccessList) and applies the list to FuzzAccessListStateRoot's
// state. Unlike FuzzAccessListStateRoot's lists, canonical by
// construction, these need not be: AccessListStateRoot must not panic; it must refuse, with an
// ErrAccessList, every list that go-ethereum's validation refuses (with
// the bounds that come from the block lifted); and on every list that
// validation accepts it must give the root of go-ethereum's
// ApplyBlockAccessList and IntermediateRoot, or make the one refusal that
// go-ethereum does not (a storage write to an account that ends the block
// empty).
func FuzzAccessListStateRootRLP(f *testing.F) {
	add := func(list *bal.BlockAccessList) {
		enc, err := rlp.EncodeToBytes(list)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
	}
	for _, seed := range accessListFuzzSeeds {
		add(fuzzAccessList(seed))
	}
	for _, list := range editedSeeds(f) {
		add(list)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var list bal.BlockAccessList
		if rlp.DecodeBytes(data, &list) != nil {
			return // not a block access list: go-ethereum drops it undecoded
		}
		fs, err := fuzzAccessListState()
		if err != nil {
			t.Fatal(err)
		}
		got, err := AccessListStateRoot(fs.root, &list, fs.tdb)
		if err != nil && !errors.Is(err, ErrAccessList) {
			t.Fatalf("an error that is not an ErrAccessList: %v", err)
		}
		endsEmpty := err != nil && strings.Contains(err.Error(), "ends the block empty")
		if gethErr := gethValidate(&list); gethErr != nil {
			if err == nil || endsEmpty {
				t.Fatalf("go-ethereum's validation refuses the list (%v); keccakroot: %x, %v", gethErr, got, err)
			}
			return
		}
		if err != nil && !endsEmpty {
			t.Fatalf("keccakroot refuses a list that go-ethereum's validation accepts: %v", err)
		}
		want, panicked, gethErr := gethListRootOrPanic(fs, &list)
		switch {
		case panicked || gethErr != nil:
			t.Fatalf("go-ethereum fails on a list its validation accepts (panicked: %v): %v", panicked, gethErr)
		case err == nil && got != want:
			t.Fatalf("root %x, go-ethereum's %x", got, want)
		}
	})
}

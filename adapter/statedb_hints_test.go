package adapter

import (
	"bytes"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/pathdb"
	"github.com/holiman/uint256"
)

// TestStateHintsKeepReads reads an account and slots through a
// NewStateDatabase reader (path scheme) and checks what it keeps for the tries: the
// account's encoding and the slot's trimmed RLP value, by hashed key, and
// nothing for a slot or account that is not there; only the last
// hintRoots roots' reads, and no more than hintsPerRoot values a root.
func TestStateHintsKeepReads(t *testing.T) {
	mpt := state.NewMPTDatabase(triedb.NewDatabase(rawdb.NewMemoryDatabase(), &triedb.Config{PathDB: pathdb.Defaults}), nil)
	statedb, err := state.New(types.EmptyRootHash, mpt)
	if err != nil {
		t.Fatal(err)
	}
	addr, slot, value := common.Address{1}, common.Hash{2}, common.Hash{31: 7}
	statedb.SetBalance(addr, uint256.NewInt(5), tracing.BalanceChangeUnspecified)
	statedb.SetState(addr, slot, value)
	root, err := statedb.Commit(benchRules, 0)
	if err != nil {
		t.Fatal(err)
	}
	sdb := NewStateDatabase(mpt).(*stateDatabaseWithCacheStats)
	reader, err := sdb.Reader(root)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := reader.Account(addr)
	if err != nil || acc == nil {
		t.Fatalf("account: %v, %v", acc, err)
	}
	if _, err := reader.Account(common.Address{9}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []common.Hash{slot, {3}} {
		if _, err := reader.Storage(addr, s); err != nil {
			t.Fatal(err)
		}
	}
	hints := sdb.hints.at(root)
	wantAccount, err := rlp.EncodeToBytes(acc)
	if err != nil {
		t.Fatal(err)
	}
	if got := hints.accounts.expected(crypto.Keccak256(addr[:])); !bytes.Equal(got, wantAccount) {
		t.Fatalf("account hint %x, want %x", got, wantAccount)
	}
	if got := hints.accounts.expected(crypto.Keccak256(common.Address{9}.Bytes())); got != nil {
		t.Fatalf("hint %x for an account that is not there", got)
	}
	if got := hints.slots(addr).expected(crypto.Keccak256(slot[:])); !bytes.Equal(got, []byte{7}) {
		t.Fatalf("slot hint %x, want 07", got)
	}
	if got := hints.slots(addr).expected(crypto.Keccak256(common.Hash{3}.Bytes())); got != nil {
		t.Fatalf("hint %x for an empty slot", got)
	}
	if hints.kept.Load() != 2 {
		t.Fatalf("%d values kept, want 2", hints.kept.Load())
	}
	// A full root keeps nothing more.
	hints.kept.Store(hintsPerRoot)
	hints.noteAccount(common.Address{4}, acc)
	if got := hints.accounts.expected(crypto.Keccak256(common.Address{4}.Bytes())); got != nil {
		t.Fatal("a root past hintsPerRoot values kept another")
	}
	// The roots read at last are kept, the oldest dropped.
	for i := range hintRoots {
		if sdb.hints.at(common.Hash{byte(i + 1)}) == nil {
			t.Fatal("no hints")
		}
	}
	if sdb.hints.at(root) == hints {
		t.Fatalf("the hints of the oldest root were kept after %d newer roots", hintRoots)
	}
	newest := sdb.hints.at(common.Hash{hintRoots})
	if again := sdb.hints.at(common.Hash{hintRoots}); again != newest {
		t.Fatal("a root's hints were made twice")
	}
}

// TestKeyHintsInterleaved files values while more are read, as a block's
// prefetcher asks while its execution reads: every value read is found,
// by its hashed key, whenever it is asked for after the read.
func TestKeyHintsInterleaved(t *testing.T) {
	k := &keyHints[common.Hash]{taken: new(atomic.Int64)}
	var slots []common.Hash
	for i := range 3000 {
		slot := common.Hash{byte(i >> 8), byte(i)}
		k.put(slot[:], common.Hash{31: byte(i%127 + 1)})
		slots = append(slots, slot)
		if i%7 == 0 || i%600 == 599 {
			if got := k.expected(crypto.Keccak256(slot[:])); !bytes.Equal(got, []byte{byte(i%127 + 1)}) {
				t.Fatalf("read %d: hint %x", i, got)
			}
		}
	}
	for i, slot := range slots {
		if got := k.expected(crypto.Keccak256(slot[:])); !bytes.Equal(got, []byte{byte(i%127 + 1)}) {
			t.Fatalf("slot %d: hint %x", i, got)
		}
	}
	if got := k.expected(crypto.Keccak256([]byte("absent"))); got != nil {
		t.Fatalf("hint %x for a slot not read", got)
	}
}

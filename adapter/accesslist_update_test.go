package adapter

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/params"
)

// captureCommit is a state database whose Commit keeps the update a
// StateDB hands it and fails with errCaptured instead of storing it, so
// that go-ethereum's update for a list can be had while the database stays
// as it was.
type captureCommit struct {
	state.Database
	update *state.StateUpdate
}

var errCaptured = errors.New("update captured, not stored")

func (c *captureCommit) Commit(update *state.StateUpdate) error {
	c.update = update
	return errCaptured
}

// gethListUpdate is the state update go-ethereum's StateDB makes of list
// on root in sdb (ApplyBlockAccessList, then Commit), without storing it.
func gethListUpdate(sdb state.Database, root common.Hash, rules params.Rules, number uint64, list *bal.BlockAccessList) (*state.StateUpdate, error) {
	capture := &captureCommit{Database: sdb}
	statedb, err := state.New(root, capture)
	if err != nil {
		return nil, err
	}
	if err := statedb.ApplyBlockAccessList(list); err != nil {
		return nil, err
	}
	if _, err := statedb.Commit(rules, number); !errors.Is(err, errCaptured) {
		return nil, err
	}
	return capture.update, nil
}

// sameStateUpdate compares two state updates: roots, block, storage key
// type, the accounts and slots with their origins as the trie database
// gets them (EncodeMPTState), the codes (their derived fields aside) and
// the node sets.
func sameStateUpdate(got, want *state.StateUpdate) error {
	if got.OriginRoot != want.OriginRoot || got.Root != want.Root || got.BlockNumber != want.BlockNumber || got.StorageKeyType != want.StorageKeyType {
		return fmt.Errorf("update %x -> %x, block %d, key type %d; go-ethereum's %x -> %x, block %d, key type %d",
			got.OriginRoot, got.Root, got.BlockNumber, got.StorageKeyType, want.OriginRoot, want.Root, want.BlockNumber, want.StorageKeyType)
	}
	gotAccounts, gotAccountsOrigin, gotStorages, gotStoragesOrigin := got.EncodeMPTState()
	wantAccounts, wantAccountsOrigin, wantStorages, wantStoragesOrigin := want.EncodeMPTState()
	if err := sameBlobs("account", gotAccounts, wantAccounts); err != nil {
		return err
	}
	if err := sameBlobs("account origin", gotAccountsOrigin, wantAccountsOrigin); err != nil {
		return err
	}
	if err := sameSlots("slot", gotStorages, wantStorages); err != nil {
		return err
	}
	if err := sameSlots("slot origin", gotStoragesOrigin, wantStoragesOrigin); err != nil {
		return err
	}
	if len(got.Codes) != len(want.Codes) {
		return fmt.Errorf("%d codes, go-ethereum %d", len(got.Codes), len(want.Codes))
	}
	for addr, w := range want.Codes {
		g := got.Codes[addr]
		if g == nil || g.Hash != w.Hash || !bytes.Equal(g.Blob, w.Blob) || g.OriginHash != w.OriginHash {
			return fmt.Errorf("code of %x: %+v, go-ethereum %+v", addr, g, w)
		}
	}
	return sameMergedNodeSet(got.Nodes, want.Nodes)
}

// sameBlobs compares two maps of encodings, naming the first key at which
// they differ.
func sameBlobs[K comparable](what string, got, want map[K][]byte) error {
	for k, w := range want {
		g, ok := got[k]
		if !ok || !bytes.Equal(g, w) || (g == nil) != (w == nil) {
			return fmt.Errorf("%s %v: %x (present %v), go-ethereum %x", what, k, g, ok, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			return fmt.Errorf("%s %v: %x, which go-ethereum does not have", what, k, got[k])
		}
	}
	return nil
}

// sameSlots is sameBlobs for slots by account.
func sameSlots[K comparable](what string, got, want map[K]map[common.Hash][]byte) error {
	keys := slices.Collect(maps.Keys(want))
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if err := sameBlobs(fmt.Sprintf("%s of %v", what, k), got[k], want[k]); err != nil {
			return err
		}
	}
	return nil
}

// checkListUpdate compares AccessListStateUpdate of list on fs's state
// with go-ethereum's update: the same update, or both refusing to wipe an
// account's storage.
func checkListUpdate(t *testing.T, fs *fuzzState, list *bal.BlockAccessList) {
	t.Helper()
	want, wantErr := gethListUpdate(fs.sdb, fs.root, benchRules, 1, list)
	got, err := AccessListStateUpdate(fs.root, list, fs.tdb, 1)
	switch {
	case wantErr != nil:
		if !strings.Contains(wantErr.Error(), "storage wiping") || !errors.Is(err, ErrAccessList) {
			t.Fatalf("AccessListStateUpdate: %v; go-ethereum: %v", err, wantErr)
		}
	case err != nil:
		t.Fatalf("AccessListStateUpdate: %v; go-ethereum's update has root %x", err, want.Root)
	default:
		if err := sameStateUpdate(got, want); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAccessListStateUpdate rolls the state chain forward from its access
// lists (executing the blocks before Amsterdam) on the hash scheme, the
// hash scheme with a snapshot tree and the path scheme (also through a node
// cache for the whole chain): each block's
// AccessListStateUpdate is go-ethereum's (ApplyBlockAccessList, then
// CommitWithUpdate), its root the header's, and committed through the
// state database it leaves a state that go-ethereum's StateDB reads as
// go-ethereum's own, through the snapshot and the path scheme's flat
// states, which a node set alone leaves at the parent's values.
func TestAccessListStateUpdate(t *testing.T) {
	chain := makeStateChain()
	for _, mode := range []lockstepMode{{scheme: 0}, {scheme: 0, snapshot: true}, {scheme: 1}, {scheme: 1, nodeCache: 1 << 20}} {
		t.Run(mode.String(), func(t *testing.T) {
			l := newLockstep(t, chain.genesis, beacon.New(ethash.NewFaker()), mode)
			nodes := CachedNodeDatabase(l.ours.tdb, NewNodeCache(mode.nodeCache)) // the trie database itself without a cache
			touched := map[common.Address]map[common.Hash]bool{}
			rolled := 0
			for _, block := range chain.blocks {
				list := block.AccessList()
				if list == nil {
					if err := l.execute(block); err != nil {
						t.Fatal(err)
					}
					continue
				}
				parent := l.headers[block.ParentHash()]
				statedb, err := state.New(parent.Root, l.geth.sdb)
				if err != nil {
					t.Fatal(err)
				}
				if err := statedb.ApplyBlockAccessList(list); err != nil {
					t.Fatal(err)
				}
				_, want, err := statedb.CommitWithUpdate(l.config.Rules(block.Number(), true, block.Time()), block.NumberU64())
				if err != nil {
					t.Fatal(err)
				}
				got, err := AccessListStateUpdate(parent.Root, list, nodes, block.NumberU64())
				if err != nil {
					t.Fatalf("block %d: %v", block.NumberU64(), err)
				}
				if got.Root != block.Root() {
					t.Fatalf("block %d: root %x, header %x", block.NumberU64(), got.Root, block.Root())
				}
				if err := sameStateUpdate(got, want); err != nil {
					t.Fatalf("block %d: %v", block.NumberU64(), err)
				}
				if err := l.ours.sdb.Commit(got); err != nil {
					t.Fatal(err)
				}
				for _, access := range *list {
					slots := touched[access.Address]
					if slots == nil {
						slots = map[common.Hash]bool{}
						touched[access.Address] = slots
					}
					for _, change := range access.StorageChanges {
						slots[change.Slot.Bytes32()] = true
					}
				}
				l.headers[block.Hash()] = block.Header()
				l.head = block.Header()
				rolled++
			}
			if rolled < stateChainForkBlocks-1 {
				t.Fatalf("rolled forward only %d blocks", rolled)
			}
			sameReads(t, l, l.head.Root, touched)
		})
	}
}

// sameReads reads the accounts and slots of touched at root through both
// sides' state databases with go-ethereum's StateDB and fails t where they
// differ.
func sameReads(t *testing.T, l *lockstep, root common.Hash, touched map[common.Address]map[common.Hash]bool) {
	t.Helper()
	var reads [2]*state.StateDB
	for i, side := range []*stateSide{l.geth, l.ours} {
		statedb, err := state.New(root, side.sdb)
		if err != nil {
			t.Fatalf("%s: %v", side.name, err)
		}
		reads[i] = statedb
	}
	geth, ours := reads[0], reads[1]
	slots := 0
	for addr, keys := range touched {
		if g, w := ours.GetBalance(addr), geth.GetBalance(addr); !g.Eq(w) {
			t.Fatalf("balance of %x: %v, go-ethereum %v", addr, g, w)
		}
		if g, w := ours.GetNonce(addr), geth.GetNonce(addr); g != w {
			t.Fatalf("nonce of %x: %d, go-ethereum %d", addr, g, w)
		}
		if g, w := ours.GetCode(addr), geth.GetCode(addr); !bytes.Equal(g, w) {
			t.Fatalf("code of %x: %x, go-ethereum %x", addr, g, w)
		}
		for key := range keys {
			if g, w := ours.GetState(addr, key), geth.GetState(addr, key); g != w {
				t.Fatalf("slot %x of %x: %x, go-ethereum %x", key, addr, g, w)
			}
			slots++
		}
	}
	if len(touched) == 0 || slots == 0 {
		t.Fatalf("read %d accounts and %d slots", len(touched), slots)
	}
	for _, statedb := range reads {
		if err := statedb.Error(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAccessListStateUpdateWipe refuses, as go-ethereum's Commit does, a
// list that leaves an account with storage empty (since Cancun no block
// wipes storage); AccessListStateRoot gives the root go-ethereum's
// IntermediateRoot gives for it.
func TestAccessListStateUpdateWipe(t *testing.T) {
	fs, err := fuzzAccessListState()
	if err != nil {
		t.Fatal(err)
	}
	// Account 3 has no code, nonce 0, a balance and storage.
	list := fuzzAccessList([]byte{3, 0, 0, 0})
	if _, err := gethListUpdate(fs.sdb, fs.root, benchRules, 1, list); err == nil || !strings.Contains(err.Error(), "storage wiping") {
		t.Fatalf("go-ethereum's Commit: %v", err)
	}
	_, err = AccessListStateUpdate(fs.root, list, fs.tdb, 1)
	if !errors.Is(err, ErrAccessList) || !strings.Contains(err.Error(), fmt.Sprintf("%x", fuzzAddress(3))) {
		t.Fatalf("AccessListStateUpdate: %v", err)
	}
	want, err := gethListRoot(fs.sdb, fs.root, benchRules, list)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := AccessListStateRoot(fs.root, list, fs.tdb); err != nil || got != want {
		t.Fatalf("AccessListStateRoot: %x, %v; go-ethereum %x", got, err, want)
	}
}

package adapter

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"
)

// gethListRoot is go-ethereum's post-state root of list on the state root
// in sdb: StateDB.ApplyBlockAccessList, then IntermediateRoot under rules.
func gethListRoot(sdb state.Database, root common.Hash, rules params.Rules, list *bal.BlockAccessList) (common.Hash, error) {
	statedb, err := state.New(root, sdb)
	if err != nil {
		return common.Hash{}, err
	}
	if err := statedb.ApplyBlockAccessList(list); err != nil {
		return common.Hash{}, err
	}
	return statedb.IntermediateRoot(rules), nil
}

// gethAccessListRoot is gethListRoot for block's list on its parent's
// state, failing t on an error.
func gethAccessListRoot(t *testing.T, l *lockstep, sdb state.Database, parent *types.Header, block *types.Block, list *bal.BlockAccessList) common.Hash {
	t.Helper()
	root, err := gethListRoot(sdb, parent.Root, l.config.Rules(block.Number(), true, block.Time()), list)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestAccessListStateRoot computes the post-state root of every Amsterdam
// block of the state chain from its access list and its parent's state
// (executed in lockstep before it), both schemes, also through one node cache
// for the whole chain (CachedNodeDatabase): the header's root, and
// go-ethereum's ApplyBlockAccessList's. Lists with one value changed (a
// balance, a nonce, a slot written or cleared) give go-ethereum's root for
// the changed list, not the header's.
func TestAccessListStateRoot(t *testing.T) {
	chain := makeStateChain()
	for scheme := range schemes {
		t.Run(schemes[scheme].name, func(t *testing.T) {
			l := newLockstep(t, chain.genesis, beacon.New(ethash.NewFaker()), lockstepMode{scheme: scheme})
			cached := CachedNodeDatabase(l.ours.tdb, NewNodeCache(1<<20)) // one cache for the whole chain
			lists := 0
			for _, block := range chain.blocks {
				parent := l.headers[block.ParentHash()]
				if list := block.AccessList(); list != nil && len(*list) > 0 {
					lists++
					got, err := AccessListStateRoot(parent.Root, list, l.ours.tdb)
					if err != nil {
						t.Fatalf("block %d: %v", block.NumberU64(), err)
					}
					if got != block.Root() {
						t.Fatalf("block %d: root %x from the access list, header %x", block.NumberU64(), got, block.Root())
					}
					if got, err := AccessListStateRoot(parent.Root, list, cached); err != nil || got != block.Root() {
						t.Fatalf("block %d: root %x, %v through a node cache, header %x", block.NumberU64(), got, err, block.Root())
					}
					if lists%5 == 1 {
						checkChangedLists(t, l, parent, block)
					}
				}
				if err := l.execute(block); err != nil {
					t.Fatal(err)
				}
			}
			if lists < stateChainForkBlocks-1 {
				t.Fatalf("only %d blocks with access lists", lists)
			}
		})
	}
}

// checkChangedLists changes one value of block's access list at a time and
// compares the root with go-ethereum's for the same list.
func checkChangedLists(t *testing.T, l *lockstep, parent *types.Header, block *types.Block) {
	t.Helper()
	for change := range 4 {
		list := block.AccessList().Copy()
		changed := false
		for i := range *list {
			a := &(*list)[i]
			switch {
			case change == 0 && len(a.BalanceChanges) > 0:
				last := &a.BalanceChanges[len(a.BalanceChanges)-1]
				last.PostBalance = new(uint256.Int).AddUint64(last.PostBalance, 1)
			case change == 1 && len(a.NonceChanges) > 0:
				a.NonceChanges[len(a.NonceChanges)-1].PostNonce += 7
			case change == 2 && len(a.StorageChanges) > 0:
				writes := a.StorageChanges[0].SlotChanges
				writes[len(writes)-1].PostValue = uint256.NewInt(0xbeef)
			case change == 3 && len(a.StorageChanges) > 0:
				writes := a.StorageChanges[len(a.StorageChanges)-1].SlotChanges
				writes[len(writes)-1].PostValue = new(uint256.Int)
			default:
				continue
			}
			changed = true
			break
		}
		if !changed {
			continue
		}
		got, err := AccessListStateRoot(parent.Root, list, l.ours.tdb)
		if err != nil {
			t.Fatalf("block %d, change %d: %v", block.NumberU64(), change, err)
		}
		want := gethAccessListRoot(t, l, l.geth.sdb, parent, block, list)
		if got != want {
			t.Fatalf("block %d, change %d: root %x, go-ethereum %x", block.NumberU64(), change, got, want)
		}
		if got == block.Root() && change != 3 {
			t.Fatalf("block %d, change %d: the changed list gives the header's root", block.NumberU64(), change)
		}
	}
}

// TestAccessListCommitRollForward executes the state chain up to Amsterdam,
// then rolls the state forward from the access lists alone with
// AccessListCommit, each node set stored into go-ethereum's trie database
// (hash scheme) before the next block: every root is the header's, and
// go-ethereum reads the final state.
func TestAccessListCommitRollForward(t *testing.T) {
	chain := makeStateChain()
	l := newLockstep(t, chain.genesis, beacon.New(ethash.NewFaker()), lockstepMode{scheme: 0})
	root := chain.genesis.ToBlock().Root()
	rolled := 0
	for _, block := range chain.blocks {
		list := block.AccessList()
		if list == nil {
			if err := l.execute(block); err != nil {
				t.Fatal(err)
			}
			root = block.Root()
			continue
		}
		got, nodes, err := AccessListCommit(root, list, l.ours.tdb)
		if err != nil {
			t.Fatalf("block %d: %v", block.NumberU64(), err)
		}
		if got != block.Root() {
			t.Fatalf("block %d: root %x, header %x", block.NumberU64(), got, block.Root())
		}
		if err := l.ours.tdb.Update(got, root, block.NumberU64(), nodes, triedb.NewStateSet()); err != nil {
			t.Fatal(err)
		}
		root = got
		rolled++
	}
	if rolled < stateChainForkBlocks-1 {
		t.Fatalf("rolled forward only %d blocks", rolled)
	}
	tr, err := trie.NewStateTrie(trie.StateTrieID(root), l.ours.tdb)
	if err != nil {
		t.Fatal(err)
	}
	if acc, err := tr.GetAccount(sender); err != nil || acc == nil || acc.Nonce == 0 {
		t.Fatalf("go-ethereum reads the sender's account at the rolled root as %v, %v", acc, err)
	}
}

// TestAccessListStateRootErrors changes a real access list (the first
// Amsterdam block's) into lists that do not fit: accounts out of order or
// repeated, slots out of order, a missing balance or value, storage written
// to an account that ends the block empty; and asks for a parent state that
// is not in the database.
func TestAccessListStateRootErrors(t *testing.T) {
	chain := makeStateChain()
	l := newLockstep(t, chain.genesis, beacon.New(ethash.NewFaker()), lockstepMode{scheme: 1})
	var block *types.Block
	for _, b := range chain.blocks {
		if b.AccessList() != nil {
			block = b
			break
		}
		if err := l.execute(b); err != nil {
			t.Fatal(err)
		}
	}
	parent := l.headers[block.ParentHash()]
	list := *block.AccessList()
	withSlots, withBalance := -1, -1
	for i := range list {
		if len(list[i].StorageChanges) >= 2 && withSlots < 0 {
			withSlots = i
		}
		if len(list[i].BalanceChanges) > 0 && withBalance < 0 {
			withBalance = i
		}
	}
	if withSlots < 0 || withBalance < 0 || len(list) < 2 {
		t.Fatal("the first Amsterdam block's list lacks an account with two slots written or a balance change")
	}
	cases := map[string]func(l bal.BlockAccessList) bal.BlockAccessList{
		"accounts out of order": func(l bal.BlockAccessList) bal.BlockAccessList { l[0], l[1] = l[1], l[0]; return l },
		"an account repeated":   func(l bal.BlockAccessList) bal.BlockAccessList { return append(l[:1:1], l...) },
		"slots out of order": func(l bal.BlockAccessList) bal.BlockAccessList {
			c := l[withSlots].StorageChanges
			c[0], c[1] = c[1], c[0]
			return l
		},
		"a balance missing": func(l bal.BlockAccessList) bal.BlockAccessList {
			c := l[withBalance].BalanceChanges
			c[len(c)-1].PostBalance = nil
			return l
		},
		"a slot's value missing": func(l bal.BlockAccessList) bal.BlockAccessList {
			c := l[withSlots].StorageChanges[0].SlotChanges
			c[len(c)-1].PostValue = nil
			return l
		},
		"storage of an account that ends empty": func(l bal.BlockAccessList) bal.BlockAccessList {
			ghost := l[withSlots].Copy()
			ghost.Address = common.Address{0: 0xff, 19: 0xff}
			ghost.BalanceChanges, ghost.NonceChanges, ghost.CodeChanges = nil, nil, nil
			ghost.StorageChanges[0].SlotChanges[len(ghost.StorageChanges[0].SlotChanges)-1].PostValue = uint256.NewInt(1)
			return append(l, ghost)
		},
	}
	for name, change := range cases {
		changed := change(*block.AccessList().Copy())
		_, err := AccessListStateRoot(parent.Root, &changed, l.ours.tdb)
		if !errors.Is(err, ErrAccessList) {
			t.Errorf("%s: %v, want ErrAccessList", name, err)
		}
	}
	if _, err := AccessListStateRoot(common.Hash{1}, block.AccessList(), l.ours.tdb); !isMissingNode(err) {
		t.Errorf("an unknown parent root: %v, want a missing node", err)
	}
	if _, err := AccessListStateRoot(parent.Root, nil, l.ours.tdb); !errors.Is(err, ErrNilArgument) {
		t.Errorf("a nil list: %v", err)
	}
}

package adapter

import (
	"errors"
	"fmt"
	"math"
	"strings"
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

// gethVerdict is what go-ethereum makes of a block access list.
type gethVerdict int

const (
	// gethRefuses: its validation (BlockAccessList.Validate) returns an
	// error or panics.
	gethRefuses gethVerdict = iota
	// gethValidatesOnly: its validation, which reads no values, passes a
	// list missing a value that ApplyBlockAccessList then dereferences on
	// a goroutine of its own, where no caller can recover the panic; so
	// the list is not applied.
	gethValidatesOnly
	// gethAccepts: its validation passes and ApplyBlockAccessList and
	// IntermediateRoot give a root.
	gethAccepts
)

// gethValidate is go-ethereum's validation of list with the bounds that
// come from the block lifted (no gas limit, and more transactions than any
// block access index counts), so that it judges what the list says alone;
// a panic is a refusal too.
func gethValidate(list *bal.BlockAccessList) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("go-ethereum's validation panicked: %v", r)
		}
	}()
	return list.Validate(math.MaxUint64, math.MaxUint32)
}

// firstAccount returns the index of the first account of list for which
// has holds, failing t if there is none.
func firstAccount(t *testing.T, list bal.BlockAccessList, what string, has func(a *bal.AccountAccess) bool) int {
	t.Helper()
	for i := range list {
		if has(&list[i]) {
			return i
		}
	}
	t.Fatalf("the first Amsterdam block's list has no account with %s", what)
	return -1
}

// withZeros returns s with n zero elements appended: the change types of
// go-ethereum's bal package are not exported, and this makes new ones.
func withZeros[S ~[]E, E any](s S, n int) S { return append(s, make(S, n)...) }

// accessListErrorsSetup executes the state chain up to its first Amsterdam
// block, returning the lockstep, that block and its parent's header.
func accessListErrorsSetup(t *testing.T) (*lockstep, *types.Block, *types.Header) {
	t.Helper()
	chain := makeStateChain()
	l := newLockstep(t, chain.genesis, beacon.New(ethash.NewFaker()), lockstepMode{scheme: 1})
	for _, b := range chain.blocks {
		if b.AccessList() != nil {
			return l, b, l.headers[b.ParentHash()]
		}
		if err := l.execute(b); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("no Amsterdam block in the state chain")
	return nil, nil, nil
}

// TestAccessListStateRootErrors changes a real access list (the first
// Amsterdam block's) into lists that do not fit: not canonical (accounts,
// slots written or read, or the changes of an account or a slot, out of
// order or repeated; a written slot without a write; a slot both read and
// written; oversized code), a slot or value missing, storage written to an
// account that ends the block empty. Each is an ErrAccessList naming the
// account, and the slot and block access index at fault where there is
// one. go-ethereum's validation refuses each list that is not canonical
// too, and passes the others: it reads no values, and it applies a storage
// write to an account that ends empty by deleting the account. The test
// also asks for a parent state that is not in the database.
func TestAccessListStateRootErrors(t *testing.T) {
	l, block, parent := accessListErrorsSetup(t)
	list := *block.AccessList()
	withSlots := firstAccount(t, list, "two slots written", func(a *bal.AccountAccess) bool { return len(a.StorageChanges) >= 2 })
	withBalance := firstAccount(t, list, "a balance change", func(a *bal.AccountAccess) bool { return len(a.BalanceChanges) > 0 })
	withBalances := firstAccount(t, list, "two balance changes", func(a *bal.AccountAccess) bool { return len(a.BalanceChanges) >= 2 })
	withNonce := firstAccount(t, list, "a nonce change after the first transaction", func(a *bal.AccountAccess) bool {
		return len(a.NonceChanges) > 0 && a.NonceChanges[len(a.NonceChanges)-1].BlockAccessIndex > 0
	})
	withReads := firstAccount(t, list, "two slots read", func(a *bal.AccountAccess) bool { return len(a.StorageReads) >= 2 })
	if len(list) < 2 {
		t.Fatal("the first Amsterdam block's list has fewer than two accounts")
	}
	addr := func(a *bal.AccountAccess) string { return fmt.Sprintf("account %x", a.Address) }
	slot := func(s *uint256.Int) string { return fmt.Sprintf("slot %x", s.Bytes32()) }
	index := func(i uint32) string { return fmt.Sprintf("index %d", i) }
	ghostAddress := common.Address{0: 0xff, 19: 0xff}

	// Each case changes a copy of the list and returns it with what the
	// error must say.
	cases := []struct {
		name   string
		change func(l bal.BlockAccessList) (bal.BlockAccessList, []string)
		geth   gethVerdict
	}{
		{"accounts out of order", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			l[0], l[1] = l[1], l[0]
			return l, []string{addr(&l[1]), fmt.Sprintf("after %x", l[0].Address)}
		}, gethRefuses},
		{"an account repeated", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			return append(l[:1:1], l...), []string{addr(&l[0])}
		}, gethRefuses},
		{"slots written out of order", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			c := l[withSlots].StorageChanges
			c[0], c[1] = c[1], c[0]
			return l, []string{addr(&l[withSlots]), slot(c[1].Slot)}
		}, gethRefuses},
		{"a written slot missing", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			l[withSlots].StorageChanges[1].Slot = nil
			return l, []string{addr(&l[withSlots]), "storage write 1"}
		}, gethRefuses},
		{"a written slot without writes", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			w := &l[withSlots].StorageChanges[1]
			w.SlotChanges = nil
			return l, []string{addr(&l[withSlots]), slot(w.Slot)}
		}, gethRefuses},
		{"a slot's writes out of order", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			w := &l[withSlots].StorageChanges[0]
			w.SlotChanges = append(w.SlotChanges[:1:1], w.SlotChanges...)
			w.SlotChanges[0].BlockAccessIndex = w.SlotChanges[1].BlockAccessIndex + 1
			return l, []string{addr(&l[withSlots]), slot(w.Slot), index(w.SlotChanges[1].BlockAccessIndex)}
		}, gethRefuses},
		{"a slot written twice at one index", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			w := &l[withSlots].StorageChanges[1]
			last := w.SlotChanges[len(w.SlotChanges)-1]
			w.SlotChanges = append(w.SlotChanges, last)
			return l, []string{addr(&l[withSlots]), slot(w.Slot), index(last.BlockAccessIndex)}
		}, gethRefuses},
		{"slots read out of order", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			r := l[withReads].StorageReads
			r[0], r[1] = r[1], r[0]
			return l, []string{addr(&l[withReads]), slot(r[1])}
		}, gethRefuses},
		{"a slot read twice", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			r := l[withReads].StorageReads
			r[1] = r[0].Clone()
			return l, []string{addr(&l[withReads]), slot(r[1])}
		}, gethRefuses},
		{"a read slot missing", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			l[withReads].StorageReads[1] = nil
			return l, []string{addr(&l[withReads]), "storage read 1"}
		}, gethRefuses},
		{"a slot both read and written", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			a := &l[withSlots]
			a.StorageReads = []*uint256.Int{a.StorageChanges[1].Slot.Clone()}
			return l, []string{addr(a), slot(a.StorageReads[0])}
		}, gethRefuses},
		{"balance changes out of order", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			c := l[withBalances].BalanceChanges
			c[0], c[1] = c[1], c[0]
			return l, []string{addr(&l[withBalances]), index(c[1].BlockAccessIndex)}
		}, gethRefuses},
		{"two balance changes at one index", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			c := l[withBalances].BalanceChanges
			c[1].BlockAccessIndex = c[0].BlockAccessIndex
			return l, []string{addr(&l[withBalances]), index(c[1].BlockAccessIndex)}
		}, gethRefuses},
		{"nonce changes out of order", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			a := &l[withNonce]
			last := a.NonceChanges[len(a.NonceChanges)-1]
			last.BlockAccessIndex--
			a.NonceChanges = append(a.NonceChanges, last)
			return l, []string{addr(a), index(last.BlockAccessIndex)}
		}, gethRefuses},
		{"two nonce changes at one index", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			a := &l[withNonce]
			last := a.NonceChanges[len(a.NonceChanges)-1]
			a.NonceChanges = append(a.NonceChanges, last)
			return l, []string{addr(a), index(last.BlockAccessIndex)}
		}, gethRefuses},
		{"code changes out of order", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			a := &l[withBalance]
			a.CodeChanges = withZeros(a.CodeChanges[:0:0], 2)
			a.CodeChanges[0].BlockAccessIndex, a.CodeChanges[0].NewCode = 2, []byte{0x60, 0x01, 0x00}
			a.CodeChanges[1].BlockAccessIndex, a.CodeChanges[1].NewCode = 1, []byte{0x60, 0x02, 0x00}
			return l, []string{addr(a), index(1)}
		}, gethRefuses},
		{"two code changes at one index", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			a := &l[withBalance]
			a.CodeChanges = withZeros(a.CodeChanges[:0:0], 2)
			a.CodeChanges[0].BlockAccessIndex, a.CodeChanges[0].NewCode = 1, []byte{0x60, 0x01, 0x00}
			a.CodeChanges[1].BlockAccessIndex, a.CodeChanges[1].NewCode = 1, []byte{0x60, 0x02, 0x00}
			return l, []string{addr(a), index(1)}
		}, gethRefuses},
		{"oversized code, not the last", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			a := &l[withBalance]
			a.CodeChanges = withZeros(a.CodeChanges[:0:0], 2)
			a.CodeChanges[0].BlockAccessIndex, a.CodeChanges[0].NewCode = 1, make([]byte, params.MaxCodeSizeAmsterdam+1)
			a.CodeChanges[1].BlockAccessIndex, a.CodeChanges[1].NewCode = 2, []byte{0x00}
			return l, []string{addr(a), index(1)}
		}, gethRefuses},
		{"a balance missing", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			c := l[withBalance].BalanceChanges
			c[len(c)-1].PostBalance = nil
			return l, []string{addr(&l[withBalance])}
		}, gethValidatesOnly},
		{"a slot's value missing", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			w := &l[withSlots].StorageChanges[0]
			w.SlotChanges[len(w.SlotChanges)-1].PostValue = nil
			return l, []string{addr(&l[withSlots]), slot(w.Slot)}
		}, gethValidatesOnly},
		{"storage of an account that ends empty", func(l bal.BlockAccessList) (bal.BlockAccessList, []string) {
			ghost := l[withSlots].Copy()
			ghost.Address = ghostAddress
			ghost.BalanceChanges, ghost.NonceChanges, ghost.CodeChanges = nil, nil, nil
			for j := range ghost.StorageChanges {
				for k := range ghost.StorageChanges[j].SlotChanges {
					ghost.StorageChanges[j].SlotChanges[k].PostValue = new(uint256.Int)
				}
			}
			w := &ghost.StorageChanges[1]
			w.SlotChanges[len(w.SlotChanges)-1].PostValue = uint256.NewInt(1)
			return append(l, ghost), []string{addr(&ghost), slot(w.Slot)}
		}, gethAccepts},
	}
	rules := l.config.Rules(block.Number(), true, block.Time())
	for _, c := range cases {
		changed, want := c.change(*block.AccessList().Copy())
		_, err := AccessListStateRoot(parent.Root, &changed, l.ours.tdb)
		if !errors.Is(err, ErrAccessList) {
			t.Errorf("%s: %v, want ErrAccessList", c.name, err)
			continue
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not name %s", c.name, err, w)
			}
		}
		gethErr := gethValidate(&changed)
		switch {
		case c.geth == gethRefuses && gethErr == nil:
			t.Errorf("%s: go-ethereum's validation accepts the list", c.name)
		case c.geth != gethRefuses && gethErr != nil:
			t.Errorf("%s: go-ethereum's validation refuses the list: %v", c.name, gethErr)
		case c.geth == gethAccepts:
			if _, err := gethListRoot(l.geth.sdb, parent.Root, rules, &changed); err != nil {
				t.Errorf("%s: go-ethereum: %v", c.name, err)
			}
		}
	}
	if _, err := AccessListStateRoot(common.Hash{1}, block.AccessList(), l.ours.tdb); !isMissingNode(err) {
		t.Errorf("an unknown parent root: %v, want a missing node", err)
	}
	if _, err := AccessListStateRoot(parent.Root, nil, l.ours.tdb); !errors.Is(err, ErrNilArgument) {
		t.Errorf("a nil list: %v", err)
	}
}

// TestAccessListStateRootCanonicalEdges changes a real access list (the
// first Amsterdam block's) into lists that stay canonical but come close
// to the rules TestAccessListStateRootErrors breaks: changes of an account
// or a slot at several indices, with gaps; code of the largest size a
// contract may have; slots read beside the slots written. go-ethereum's
// validation, with the block's own bounds, accepts each, and the root is
// go-ethereum's.
func TestAccessListStateRootCanonicalEdges(t *testing.T) {
	l, block, parent := accessListErrorsSetup(t)
	list := *block.AccessList()
	withSlots := firstAccount(t, list, "a slot first written after the first transaction", func(a *bal.AccountAccess) bool {
		return len(a.StorageChanges) > 0 && a.StorageChanges[0].SlotChanges[0].BlockAccessIndex > 0
	})
	withBalances := firstAccount(t, list, "two balance changes", func(a *bal.AccountAccess) bool { return len(a.BalanceChanges) >= 2 })
	withNonce := firstAccount(t, list, "a nonce change after the first transaction", func(a *bal.AccountAccess) bool {
		return len(a.NonceChanges) > 0 && a.NonceChanges[0].BlockAccessIndex > 0
	})
	largest := make([]byte, params.MaxCodeSizeAmsterdam)
	largest[0] = 0x5b // not all zeros, so not the empty code's hash by accident of a bug
	cases := map[string]func(l bal.BlockAccessList) bal.BlockAccessList{
		"a slot written at two indices": func(l bal.BlockAccessList) bal.BlockAccessList {
			w := &l[withSlots].StorageChanges[0]
			w.SlotChanges = append(w.SlotChanges[:1:1], w.SlotChanges...)
			w.SlotChanges[0].BlockAccessIndex, w.SlotChanges[0].PostValue = 0, uint256.NewInt(0xabc)
			return l
		},
		"balance changes with a gap": func(l bal.BlockAccessList) bal.BlockAccessList {
			l[withBalances].BalanceChanges[0].BlockAccessIndex = 0
			return l
		},
		"nonce changes at two indices": func(l bal.BlockAccessList) bal.BlockAccessList {
			a := &l[withNonce]
			a.NonceChanges = append(a.NonceChanges[:1:1], a.NonceChanges...)
			a.NonceChanges[0].BlockAccessIndex = 0
			return l
		},
		"the largest code, last": func(l bal.BlockAccessList) bal.BlockAccessList {
			a := &l[withBalances]
			a.CodeChanges = withZeros(a.CodeChanges[:0:0], 2)
			a.CodeChanges[0].BlockAccessIndex, a.CodeChanges[0].NewCode = 1, []byte{0x00}
			a.CodeChanges[1].BlockAccessIndex, a.CodeChanges[1].NewCode = 3, largest
			return l
		},
		"the largest code, not last": func(l bal.BlockAccessList) bal.BlockAccessList {
			a := &l[withBalances]
			a.CodeChanges = withZeros(a.CodeChanges[:0:0], 2)
			a.CodeChanges[0].BlockAccessIndex, a.CodeChanges[0].NewCode = 1, largest
			a.CodeChanges[1].BlockAccessIndex, a.CodeChanges[1].NewCode = 2, []byte{0x60, 0x00}
			return l
		},
		"slots read beside the slots written": func(l bal.BlockAccessList) bal.BlockAccessList {
			a := &l[withSlots]
			a.StorageReads = nil
			for j, w := range a.StorageChanges {
				next := new(uint256.Int).AddUint64(w.Slot, 1)
				if next.IsZero() || (j+1 < len(a.StorageChanges) && a.StorageChanges[j+1].Slot.Eq(next)) {
					continue // wrapped around, or written too
				}
				a.StorageReads = append(a.StorageReads, next)
			}
			if len(a.StorageReads) < 2 {
				t.Fatal("fewer than two slots beside the slots written")
			}
			return l
		},
	}
	rules := l.config.Rules(block.Number(), true, block.Time())
	for name, change := range cases {
		changed := change(*block.AccessList().Copy())
		if err := changed.Validate(block.GasLimit(), len(block.Transactions())); err != nil {
			t.Fatalf("%s: go-ethereum's validation refuses the list: %v", name, err)
		}
		got, err := AccessListStateRoot(parent.Root, &changed, l.ours.tdb)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want, err := gethListRoot(l.geth.sdb, parent.Root, rules, &changed)
		if err != nil {
			t.Fatalf("%s: go-ethereum: %v", name, err)
		}
		if got != want {
			t.Errorf("%s: root %x, go-ethereum's %x", name, got, want)
		}
	}
}

package adapter

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/pathdb"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/triehash"
)

// TestNewStateDatabaseWraps checks which databases NewStateDatabase wraps
// and that a wrapped one keeps the wrapped one's optional methods and no
// others.
func TestNewStateDatabaseWraps(t *testing.T) {
	if NewStateDatabase(nil) != nil {
		t.Fatal("NewStateDatabase(nil) is not nil")
	}
	disk := rawdb.NewMemoryDatabase()
	mpt := state.NewMPTDatabase(triedb.NewDatabase(disk, triedb.HashDefaults), nil)
	wrapped := NewStateDatabase(mpt)
	if _, ok := wrapped.(cacheStatsReaders); !ok {
		t.Fatal("the wrapped MPT database lost ReadersWithCacheStats")
	}
	if wrapped.TrieDB() != mpt.TrieDB() || !wrapped.Type().Is(state.TypeMPT) {
		t.Fatal("the wrapped database is not the MPT database's")
	}
	if again := NewStateDatabase(wrapped); again != wrapped {
		t.Fatal("wrapping twice made a new database")
	}
	if plain := NewStateDatabase(struct{ state.Database }{mpt}); plain == nil {
		t.Fatal("a database without ReadersWithCacheStats was not wrapped")
	} else if _, ok := plain.(cacheStatsReaders); ok {
		t.Fatal("a database without ReadersWithCacheStats gained it")
	}
	ubtDB := triedb.NewDatabase(rawdb.NewMemoryDatabase(), &triedb.Config{IsUBT: true, PathDB: pathdb.Defaults})
	if ubt := state.NewUBTDatabase(ubtDB, nil); NewStateDatabase(ubt) != state.Database(ubt) {
		t.Fatal("a UBT database was wrapped")
	}
	if historic := state.NewHistoricDatabase(mpt.TrieDB(), nil); NewStateDatabase(historic) != state.Database(historic) {
		t.Fatal("a historic database was wrapped")
	}
	tr, err := wrapped.OpenTrie(types.EmptyRootHash)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tr.(*SecureTrie); !ok {
		t.Fatalf("OpenTrie returned a %T", tr)
	}
	if _, err := wrapped.OpenTrie(common.Hash{1}); !isMissingNode(err) {
		t.Fatalf("OpenTrie of an unknown root: %v, want a missing node", err)
	}
}

// isMissingNode reports whether err is a missing node as both keccakroot
// and go-ethereum report it.
func isMissingNode(err error) bool {
	var ours *triehash.MissingNodeError
	var geth *trie.MissingNodeError
	return errors.As(err, &ours) && errors.As(err, &geth)
}

// TestStateDBCopy shows what go-ethereum's StateDB.Copy does on
// NewStateDatabase: a copy before the StateDB opens its tries works and
// reaches the same root; after, Copy panics on the foreign trie type.
func TestStateDBCopy(t *testing.T) {
	sdb := NewStateDatabase(state.NewMPTDatabase(triedb.NewDatabase(rawdb.NewMemoryDatabase(), triedb.HashDefaults), nil))
	statedb, err := state.New(types.EmptyRootHash, sdb)
	if err != nil {
		t.Fatal(err)
	}
	statedb.SetBalance(common.Address{1}, uint256.NewInt(5), 0)
	statedb.SetState(common.Address{1}, common.Hash{2}, common.Hash{3})
	cp := statedb.Copy()
	rules := params.MergedTestChainConfig.Rules(common.Big0, true, 0)
	want := statedb.IntermediateRoot(rules)
	if got := cp.IntermediateRoot(rules); got != want || want == types.EmptyRootHash {
		t.Fatalf("the copy's root %x, the original's %x", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("StateDB.Copy with a SecureTrie open did not panic")
		}
	}()
	statedb.Copy()
}

// TestStateDatabaseFaults executes a block of the state chain on states
// whose trie database lost a node, or holds a truncated one, on the way to
// an account the block changes: go-ethereum's and NewStateDatabase's
// StateDB both fail the block, and a SecureTrie's change through the node
// fails with an error that names it.
func TestStateDatabaseFaults(t *testing.T) {
	chain := makeStateChain()
	const done = 30
	for _, fault := range []string{"missing", "truncated"} {
		t.Run(fault, func(t *testing.T) {
			l := newLockstep(t, chain.genesis, beacon.New(ethash.NewFaker()), lockstepMode{scheme: 0})
			for _, block := range chain.blocks[:done] {
				if err := l.execute(block); err != nil {
					t.Fatal(err)
				}
			}
			root := chain.blocks[done-1].Root()
			var target common.Hash
			for _, side := range []*stateSide{l.geth, l.ours} {
				if err := side.tdb.Commit(root, false); err != nil {
					t.Fatal(err)
				}
				if target == (common.Hash{}) {
					target = nodeOnPath(t, side.tdb, root, storeA)
				}
				switch blob := rawdb.ReadLegacyTrieNode(side.disk, target); fault {
				case "missing":
					rawdb.DeleteLegacyTrieNode(side.disk, target)
				case "truncated":
					rawdb.WriteLegacyTrieNode(side.disk, target, blob[:len(blob)-1])
				}
				// A trie database without the caches that hold the node.
				side.tdb = triedb.NewDatabase(side.disk, triedb.HashDefaults)
				mpt := state.NewMPTDatabase(side.tdb, state.NewCodeDB(side.disk))
				side.sdb = mpt
				if side == l.ours {
					side.sdb = NewStateDatabase(mpt)
				}
			}
			// The block: both StateDBs fail it, with go-ethereum's error
			// where its reader meets the node first (it reads state
			// before the tries are opened).
			parent := l.headers[chain.blocks[done].ParentHash()]
			_, gethErr := l.run(l.geth, parent, chain.blocks[done])
			_, err := l.run(l.ours, parent, chain.blocks[done])
			if gethErr == nil || err == nil {
				t.Fatalf("a block on a state with a %s node: keccakroot %v, go-ethereum %v", fault, err, gethErr)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("%x", target)) && err.Error() != gethErr.Error() {
				t.Fatalf("the error neither names node %x nor is go-ethereum's: %v", target, err)
			}
			// The trie itself, as StateDB uses it once its reader is
			// past: the change fails and names the node.
			tr, err := l.ours.sdb.OpenTrie(root)
			if err != nil {
				t.Fatal(err)
			}
			err = tr.UpdateAccount(storeA, &types.StateAccount{Balance: uint256.NewInt(1), Root: types.EmptyRootHash, CodeHash: types.EmptyCodeHash[:]}, 0)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%x", target)) {
				t.Fatalf("UpdateAccount through a %s node: %v", fault, err)
			}
			if fault == "missing" && !isMissingNode(err) {
				t.Fatalf("UpdateAccount through a missing node: %v, not a missing node error for both", err)
			}
			var invalid *triehash.InvalidNodeError
			if fault == "truncated" && !errors.As(err, &invalid) {
				t.Fatalf("UpdateAccount through a truncated node: %v, not an InvalidNodeError", err)
			}
		})
	}
}

// nodeOnPath returns the hash of the account trie node one level below
// the root on the way to addr.
func nodeOnPath(t *testing.T, tdb *triedb.Database, root common.Hash, addr common.Address) common.Hash {
	t.Helper()
	tr, err := OpenSecureTrie(trie.StateTrieID(root), tdb)
	if err != nil {
		t.Fatal(err)
	}
	proof := memorydb.New()
	if err := tr.Prove(Keccak256(addr[:]), proof); err != nil {
		t.Fatal(err)
	}
	nodes, err := tr.Trie().Prove(Keccak256(addr[:]))
	if err != nil || len(nodes) < 3 {
		t.Fatalf("a proof of %d nodes: %v", len(nodes), err)
	}
	if !bytes.Equal(nodes[0], rawdb.ReadLegacyTrieNode(tdb.Disk(), root)) {
		t.Fatal("the proof does not start at the stored root")
	}
	return Keccak256Hash(nodes[1])
}

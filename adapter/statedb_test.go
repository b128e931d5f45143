package adapter

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
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
	if reader, err := wrapped.Reader(types.EmptyRootHash); err != nil {
		t.Fatal(err)
	} else if _, kept := reader.(*hintingReader); kept {
		t.Fatal("the hash scheme's reader keeps hints")
	}
	pathMPT := state.NewMPTDatabase(triedb.NewDatabase(disk, &triedb.Config{PathDB: pathdb.Defaults}), nil)
	checkReadersKeepStats(t, pathMPT, NewStateDatabase(pathMPT))
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

// checkReadersKeepStats checks that the readers of wrapped, a path-scheme
// database, which keep what they read as hints, have go-ethereum's statistics method where
// mpt's readers have it, and only there.
func checkReadersKeepStats(t *testing.T, mpt state.Database, wrapped state.Database) {
	t.Helper()
	hasStats := func(r state.Reader) bool { _, ok := r.(state.ReaderStater); return ok }
	theirs, err := mpt.Reader(types.EmptyRootHash)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := wrapped.Reader(types.EmptyRootHash)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ours.(*hintingReader); !ok && !hasStats(ours) {
		t.Fatalf("Reader returned a %T, not a reader that keeps hints", ours)
	}
	if hasStats(ours) != hasStats(theirs) {
		t.Fatalf("Reader: statistics %v, go-ethereum's %v", hasStats(ours), hasStats(theirs))
	}
	process, prefetch, err := wrapped.(cacheStatsReaders).ReadersWithCacheStats(types.EmptyRootHash)
	if err != nil {
		t.Fatal(err)
	}
	if !hasStats(process) || !hasStats(prefetch) {
		t.Fatalf("ReadersWithCacheStats gave readers without statistics: %T, %T", process, prefetch)
	}
	if hasStats(hinting(struct{ state.Reader }{theirs}, new(stateHints).at(common.Hash{}))) {
		t.Fatal("a reader without statistics gained them")
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

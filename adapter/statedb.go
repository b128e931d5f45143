package adapter

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb/database"

	"github.com/keccakroot/keccakroot/triehash"
)

// NewStateDatabase returns go-ethereum's Merkle state database db with
// keccakroot's tries: OpenTrie and OpenStorageTrie return SecureTries,
// which load, update, hash and commit the state with keccakroot's Trie,
// while everything else (Iteratee, TrieDB, Commit, Type, and
// ReadersWithCacheStats where db has it, which core.BlockChain uses for its
// prefetching reader) is db's own. On the path scheme the readers
// (Reader's, and ReadersWithCacheStats') are db's, returning what they
// return, and keep the accounts and slots they read, those of the last four
// state roots (at most 131,072 values a root, about 20 MB): a StateDB reads
// every value it changes before its tries load the key's path, and the
// tries take the key's leaf from that value, without reading it from the
// trie database, where the leaf's hash is the one its parent holds. A
// client switches its StateDB with one line:
//
//	sdb := adapter.NewStateDatabase(state.NewMPTDatabase(tdb, codedb).WithSnapshot(snaps))
//	statedb, err := state.New(parentRoot, sdb)
//
// The roots, node sets and witnesses are go-ethereum's, byte for byte, and
// a node the trie database lacks is an error that errors.As finds a
// *trie.MissingNodeError in, as go-ethereum's is (the message is
// keccakroot's). A storage slot whose stored value is not an RLP string is
// an error, where go-ethereum returns the content of whatever it finds. A
// database that opens no Merkle tries is returned unchanged: a
// binary-trie (UBT) database, go-ethereum's HistoricDB, a database this
// function returned, and nil.
//
// What a client loses: go-ethereum's StateDB.Copy knows only go-ethereum's
// own trie types and panics on a StateDB whose account trie is a
// SecureTrie, which it is from the first IntermediateRoot (Commit calls it)
// on. Copies made before that work (the tries are opened anew from the
// database). go-ethereum copies state for its miner's pending block,
// transaction tracing (debug_trace*), gas estimation and the transaction
// pool's nonce tracker: keep those on go-ethereum's own database, as
// core.BlockChain's StateAt does unless changed. Likewise a SecureTrie's
// NodeIterator serves only a trie unchanged since it was opened, which is
// how go-ethereum's state dump and iterators use it.
func NewStateDatabase(db state.Database) state.Database {
	return NewStateDatabaseWithNodeCache(db, nil)
}

// NewStateDatabaseWithNodeCache is NewStateDatabase with cache between the
// tries and the trie database: the tries look each node up in cache before
// the trie database, and keep there the nodes they read and those their
// Commit hands to the StateDB. A nil cache is NewStateDatabase.
//
// It is for a client at the head of a path-scheme chain, with memory to
// spare. The path scheme keeps the last 128 blocks' changes as diff layers
// in memory, and its reader looks for every node in each of them, newest
// first, before its disk layer (about 70 ns a layer on Zen 5: a node no
// layer holds costs about 9 µs at 128 layers against 0.5 µs at none). The
// cache answers by hash at once for the nodes committed since it began,
// which the layers hold, and for the nodes read before. A node the cache
// lacks is then most likely one the last blocks left alone: on the path
// scheme the tries read it from the key-value store by its path first, and
// take it if its hash is the one asked for, skipping the layers; only if
// the store holds another node there (or none) do they ask the trie
// database's reader. In the project's benchmark (1,000,000 accounts, blocks
// of 2,000 accounts and 5,000 slots, 128 layers) a 1 GiB cache, which holds
// about what the layers hold, made hashing and committing a block 1.85 to
// 2.72 times as fast as go-ethereum's on one core and 1.84 to 1.92 times on
// two (1.31 and 1.25 times without a cache). Serving a
// node by its hash is right in any state, so the cache may last for the
// life of the chain and be shared by the databases of one chain; a node the
// trie database loses is still served from it while it lasts. A database
// that NewStateDatabase or this function returned comes back unchanged,
// with the cache it had.
func NewStateDatabaseWithNodeCache(db state.Database, cache *NodeCache) state.Database {
	switch db.(type) {
	case nil, *StateDatabase, *stateDatabaseWithCacheStats, *state.HistoricDB:
		return db
	}
	if !db.Type().Is(state.TypeMPT) {
		return db
	}
	base := &StateDatabase{Database: db, cache: cache}
	if tdb := db.TrieDB(); tdb != nil && tdb.Scheme() == rawdb.PathScheme {
		// Measured on the path scheme only: see statedb_hints.go.
		base.hints = new(stateHints)
	}
	if warmer, ok := db.(cacheStatsReaders); ok {
		return &stateDatabaseWithCacheStats{StateDatabase: base, warmer: warmer}
	}
	return base
}

// StateDatabase is a go-ethereum state.Database whose tries are
// keccakroot's: see NewStateDatabase and NewStateDatabaseWithNodeCache.
type StateDatabase struct {
	state.Database // the wrapped database, which does all but open tries
	cache          *NodeCache
	hints          *stateHints // what its readers read, for its tries
}

// nodes returns the trie database, with the node cache in front if there
// is one.
func (d *StateDatabase) nodes() database.NodeDatabase {
	return CachedNodeDatabase(d.TrieDB(), d.cache)
}

// OpenTrie opens the account trie of the state root.
func (d *StateDatabase) OpenTrie(root common.Hash) (state.Trie, error) {
	t, err := openSecureTrie(triehash.Options{}, trie.StateTrieID(root), d.nodes(), true, d.hints.at(root).accountHints())
	if err != nil {
		return nil, err
	}
	return t, nil
}

// OpenStorageTrie opens the storage trie of address, with root, in the
// state stateRoot. The account trie is unused, as in go-ethereum's Merkle
// database.
func (d *StateDatabase) OpenStorageTrie(stateRoot common.Hash, address common.Address, root common.Hash, _ state.Trie) (state.Trie, error) {
	t, err := openStorageTrie(stateRoot, address, root, d.nodes(), true, d.hints.at(stateRoot).slotHints(address))
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Reader is the wrapped database's reader of the state root, which keeps
// the values it reads as hints for the tries of that state (see
// statedb_hints.go); what it returns is the wrapped reader's.
func (d *StateDatabase) Reader(root common.Hash) (state.Reader, error) {
	r, err := d.Database.Reader(root)
	if err != nil {
		return nil, err
	}
	return hinting(r, d.hints.at(root)), nil
}

// Unwrap returns the wrapped database.
func (d *StateDatabase) Unwrap() state.Database { return d.Database }

// cacheStatsReaders is the optional method of go-ethereum's state
// databases that core.BlockChain looks for to share one cached reader
// between block execution and its speculative prefetcher.
type cacheStatsReaders interface {
	ReadersWithCacheStats(stateRoot common.Hash) (state.Reader, state.Reader, error)
}

// stateDatabaseWithCacheStats is a StateDatabase over a database that has
// ReadersWithCacheStats, which it passes on: a type of its own, so that a
// database without the method is not made to seem to have it.
type stateDatabaseWithCacheStats struct {
	*StateDatabase
	warmer cacheStatsReaders
}

// ReadersWithCacheStats is the wrapped database's.
func (d *stateDatabaseWithCacheStats) ReadersWithCacheStats(stateRoot common.Hash) (state.Reader, state.Reader, error) {
	process, prefetch, err := d.warmer.ReadersWithCacheStats(stateRoot)
	if err != nil {
		return nil, nil, err
	}
	hints := d.hints.at(stateRoot)
	return hinting(process, hints), hinting(prefetch, hints), nil
}

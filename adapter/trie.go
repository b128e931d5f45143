package adapter

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb/database"

	"github.com/keccakroot/keccakroot/internal/nodeset"
	"github.com/keccakroot/keccakroot/triehash"
)

// OpenTrie opens the trie id names (the account trie, or a storage trie
// with its owner) in go-ethereum's trie database, as trie.New does: nodes
// are read from db, by path and hash, as the trie needs them. A
// *triedb.Database of either scheme is a database.NodeDatabase. Commit the
// changes with CommitTrie. A nil id, or a nil db for a trie that is not
// empty, is an ErrNilArgument. Each node read from a hash-scheme database is
// checked against its hash, as OpenSecureTrie checks it.
func OpenTrie(id *trie.ID, db database.NodeDatabase) (*triehash.Trie, error) {
	return openTrie(triehash.Options{}, id, db)
}

func openTrie(opts triehash.Options, id *trie.ID, db database.NodeDatabase) (*triehash.Trie, error) {
	if id == nil {
		return nil, nilArgument("trie ID")
	}
	if id.Root == (common.Hash{}) || id.Root == types.EmptyRootHash {
		return opts.NewTrie(types.EmptyRootHash, nil)
	}
	if db == nil {
		return nil, nilArgument("trie database")
	}
	src, check, err := trieNodes(db, id)
	if err != nil {
		return nil, &triehash.MissingNodeError{Hash: id.StateRoot, Err: err}
	}
	if check {
		src = triehash.VerifyingSource(src)
	}
	return opts.NewTrie(id.Root, src)
}

// trieNodes returns the source of the nodes of the trie id names in db,
// and whether the trie is to check them against their hashes, as it does
// over a triehash.VerifyingSource: on a hash-scheme database, whose reader
// returns whatever is stored under a hash. The caller wraps the source
// last, outside anything it adds, so that the trie sees the
// VerifyingSource and checks the nodes it loads together in batches (a
// key's path; a level of Prefetch's and UpdateBatch's loads). Below the cache of a CachedNodeDatabase the
// source checks each node itself instead (hashCheckedReader), and check is
// false: a spoiled node stays out of the cache, and the nodes the cache
// serves are not hashed again. On the path scheme the cache's misses are
// read from the store first (storeFirstReader).
func trieNodes(db database.NodeDatabase, id *trie.ID) (src triehash.NodeSource, check bool, err error) {
	db, cache := splitCache(db)
	reader, err := db.NodeReader(id.StateRoot)
	if err != nil {
		return nil, false, err
	}
	check = keyedByHash(db)
	if cache != nil {
		if check {
			reader = hashCheckedReader{reader}
		} else if store := pathStore(db); store != nil {
			reader = storeFirstReader{store: store, reader: reader}
		}
		reader, check = cachedNodeReader{reader: reader, cache: cache}, false
	}
	return nodeReader{reader: reader, owner: id.Owner}, check, nil
}

// keyedByHash reports whether db is a trie database of the hash scheme,
// whose reader returns whatever is stored under a node's hash, unchecked.
// (The path scheme's reader checks the hash of what it finds at a path.)
func keyedByHash(db database.NodeDatabase) bool {
	scheme, ok := db.(interface{ Scheme() string })
	return ok && scheme.Scheme() == rawdb.HashScheme
}

// hashCheckedReader is a hash-scheme trie database's reader with the check
// the path scheme's reader makes (see OpenSecureTrie), below a NodeCache
// (see trieNodes): a node whose Keccak-256 is not the hash asked for is an
// error, which the trie reports as a missing node at that path, as
// go-ethereum reports the path scheme's. It costs one Keccak-256 of each
// node read from the trie database; the cache above it serves the nodes it
// holds unhashed.
type hashCheckedReader struct{ reader database.NodeReader }

func (r hashCheckedReader) Node(owner common.Hash, path []byte, hash common.Hash) ([]byte, error) {
	blob, err := r.reader.Node(owner, path, hash)
	if err != nil || len(blob) == 0 {
		return blob, err
	}
	if err := triehash.CheckNode(blob, hash); err != nil {
		return nil, err
	}
	return blob, nil
}

// nodeReader serves a trie's nodes from go-ethereum's trie database. Its
// readers (hash and path scheme) are safe for concurrent use, as the
// Trie's Prefetch and UpdateBatch need: go-ethereum's prefetcher and its
// own UpdateBatch read through them from several goroutines too.
type nodeReader struct {
	reader database.NodeReader
	owner  common.Hash
}

func (r nodeReader) Node(path []byte, hash [32]byte) ([]byte, error) {
	return r.reader.Node(r.owner, path, hash)
}

// CommitTrie commits t and returns its root and the node set that
// triedb.Database.Update takes (within a trienode.MergedNodeSet): the same
// nodes, deletions and origins as go-ethereum's trie.Trie.Commit(false),
// nil when nothing changed. owner is the zero hash for the account trie and
// the hashed address for a storage trie. t stays usable, on top of what it
// committed, while its source serves the nodes it has not loaded yet (see
// StateTrie.Commit for go-ethereum's path scheme).
func CommitTrie(t *triehash.Trie, owner common.Hash) (common.Hash, *trienode.NodeSet, error) {
	if t == nil {
		return common.Hash{}, nil, nilArgument("trie")
	}
	// The blobs are the trie's own and never change (see
	// triehash.ChangeFunc): the set shares them rather than copies.
	changes := nodeset.NewSized(owner, t.CommitSizeHint())
	set := changes.Set
	root, err := t.CommitChanges(changes.Add)
	if err != nil {
		return common.Hash{}, nil, err
	}
	if len(set.Nodes) == 0 {
		return root, nil, nil
	}
	return root, set, nil
}

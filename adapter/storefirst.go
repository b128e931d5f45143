package adapter

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/triedb/database"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// pathStore returns the key-value store of a path-scheme trie database,
// or nil for any other database.
func pathStore(db database.NodeDatabase) ethdb.KeyValueReader {
	tdb, ok := db.(interface {
		Scheme() string
		Disk() ethdb.Database
	})
	if !ok || tdb.Scheme() != rawdb.PathScheme {
		return nil
	}
	return tdb.Disk()
}

// storeFirstReader reads a node of a path-scheme trie database from its
// key-value store by path, checked against the hash asked for, and asks the
// trie database's reader only if the store holds another node there (or
// none). Below a NodeCache (see trieNodes) the nodes that reach it are
// mostly ones the last blocks did not rewrite, which the store holds: the
// reader would look for each in every diff layer first, about 9 µs at 128
// layers on Zen 5, against 2 to 3 µs for the store's read and the hash. A
// node is its hash's wherever it is found, so what the store gives is
// right even where the layers hold a newer state; a node the layers
// rewrote costs the store's read on top of the reader's.
type storeFirstReader struct {
	store  ethdb.KeyValueReader
	reader database.NodeReader
}

func (r storeFirstReader) Node(owner common.Hash, path []byte, hash common.Hash) ([]byte, error) {
	var blob []byte
	if owner == (common.Hash{}) {
		blob = rawdb.ReadAccountTrieNode(r.store, path)
	} else {
		blob = rawdb.ReadStorageTrieNode(r.store, owner, path)
	}
	if len(blob) > 0 && fastkeccak.Sum256(blob) == hash {
		return blob, nil
	}
	return r.reader.Node(owner, path, hash)
}

package adapter

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"

	"github.com/keccakroot/keccakroot/triehash"
)

// TestOpenTrieChecksHashScheme stores, on the hash scheme, a valid node
// in place of another (a branch under the root replaced by a sibling
// branch) and updates a key below it through OpenTrie: a missing node
// error naming the replaced node's hash and path, where go-ethereum's trie
// takes the node that decodes. (TestStateDatabaseFaults checks
// OpenSecureTrie's tries, through the StateDB.)
func TestOpenTrieChecksHashScheme(t *testing.T) {
	disk := rawdb.NewMemoryDatabase()
	tdb := triedb.NewDatabase(disk, triedb.HashDefaults)
	gt := trie.NewEmpty(tdb)
	var keys [][]byte
	for i := range 400 {
		key := Keccak256(fmt.Appendf(nil, "key %d", i))
		keys = append(keys, key)
		if err := gt.Update(key, []byte{1, byte(i), byte(i >> 8)}); err != nil {
			t.Fatal(err)
		}
	}
	root, nodes := gt.Commit(false)
	if err := tdb.Update(root, types.EmptyRootHash, 0, trienode.NewWithNodeSet(nodes), nil); err != nil {
		t.Fatal(err)
	}
	if err := tdb.Commit(root, false); err != nil {
		t.Fatal(err)
	}
	// The branches at paths 0 and 1: the first replaced by the second.
	victim, other := nodes.Nodes[string([]byte{0})], nodes.Nodes[string([]byte{1})]
	if victim == nil || other == nil {
		t.Fatal("no branches at paths 0 and 1")
	}
	rawdb.WriteLegacyTrieNode(disk, victim.Hash, other.Blob)
	var key []byte
	for _, k := range keys {
		if k[0]>>4 == 0 {
			key = k
			break
		}
	}

	// go-ethereum's trie, on a fresh trie database, takes the node.
	fresh := triedb.NewDatabase(disk, triedb.HashDefaults)
	theirs, err := trie.New(trie.StateTrieID(root), fresh)
	if err != nil {
		t.Fatal(err)
	}
	if err := theirs.Update(key, []byte{2}); err != nil {
		t.Fatalf("go-ethereum's trie refused the replaced node (%v): the test no longer shows the difference", err)
	}
	ours, err := OpenTrie(trie.StateTrieID(root), triedb.NewDatabase(disk, triedb.HashDefaults))
	if err != nil {
		t.Fatal(err)
	}
	err = ours.Update(key, []byte{2})
	var missing *triehash.MissingNodeError
	if !errors.As(err, &missing) || missing.Hash != victim.Hash || string(missing.Path) != string([]byte{0}) {
		t.Fatalf("Update under a replaced node: %v, want a missing node error for %x at path 0", err, victim.Hash)
	}
}

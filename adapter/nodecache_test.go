package adapter

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/database"
)

// cachedBytes is what c holds: its blobs' bytes, and how many of them.
func cachedBytes(c *NodeCache) (size, count int) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for _, gen := range []map[common.Hash][]byte{s.newer, s.older} {
			for _, blob := range gen {
				size += len(blob)
				count++
			}
		}
		s.mu.Unlock()
	}
	return size, count
}

// TestNodeCacheBound fills a cache with many times its size and checks that
// it never holds more than its size, that it serves the nodes as they were
// added, and that a node read between the additions stays.
func TestNodeCacheBound(t *testing.T) {
	r := newRand(t)
	const size = 2 << 20
	c := NewNodeCache(size)
	hot := randHash(r)
	hotBlob := bytes.Repeat([]byte{0xab}, 500)
	c.add(hot, hotBlob)
	added := map[common.Hash][]byte{}
	for i := range 40_000 {
		hash, blob := randHash(r), make([]byte, 1+r.IntN(600))
		for j := range blob {
			blob[j] = byte(r.Uint32())
		}
		c.add(hash, blob)
		added[hash] = blob
		if i%100 == 0 && !bytes.Equal(c.get(hot), hotBlob) {
			t.Fatalf("after %d additions the node read every 100 is gone", i)
		}
		if i%1000 == 0 {
			if held, _ := cachedBytes(c); held > size {
				t.Fatalf("after %d additions the cache holds %d bytes, more than its %d", i, held, size)
			}
		}
	}
	held, count := cachedBytes(c)
	if held < size/4 {
		t.Fatalf("the cache holds only %d bytes of its %d", held, size)
	}
	served := 0
	for hash, blob := range added {
		if got := c.get(hash); got != nil {
			served++
			if !bytes.Equal(got, blob) {
				t.Fatalf("node %x served as %x, added as %x", hash, got, blob)
			}
		}
	}
	// Reading the older generation's nodes moves them into the newer, which
	// fills and drops the rest of the older on the way: not all are served.
	if served < count/4 {
		t.Fatalf("served %d of the %d nodes it holds", served, count)
	}
	if hits, misses := c.Stats(); hits == 0 || misses == 0 {
		t.Fatalf("stats: %d hits, %d misses", hits, misses)
	}
	if NewNodeCache(0) != nil || CachedNodeDatabase(nil, c) != nil {
		t.Fatal("a zero size is a cache, or a nil database is not nil")
	}
	if hits, misses := NewNodeCache(0).Stats(); hits != 0 || misses != 0 {
		t.Fatalf("no cache has %d hits and %d misses", hits, misses)
	}
}

// TestNodeCacheConcurrent adds and reads from several goroutines at once
// (run under -race in CI).
func TestNodeCacheConcurrent(t *testing.T) {
	c := NewNodeCache(64 << 10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 5_000 {
				var hash common.Hash
				hash[0], hash[1], hash[2] = byte(i), byte(i>>8), byte(g)
				blob := []byte{byte(i), byte(g), 1, 2, 3}
				c.add(hash, blob)
				if got := c.get(hash); got != nil && !bytes.Equal(got, blob) {
					t.Errorf("node %x: %x, added %x", hash, got, blob)
					return
				}
			}
		})
	}
	wg.Wait()
}

// countingDatabase is a trie database that counts the nodes its readers
// serve.
type countingDatabase struct {
	database.NodeDatabase
	mu    sync.Mutex
	reads int
}

func (d *countingDatabase) NodeReader(root common.Hash) (database.NodeReader, error) {
	r, err := d.NodeDatabase.NodeReader(root)
	if err != nil {
		return nil, err
	}
	return countingReader{r, d}, nil
}

type countingReader struct {
	database.NodeReader
	d *countingDatabase
}

func (r countingReader) Node(owner common.Hash, path []byte, hash common.Hash) ([]byte, error) {
	r.d.mu.Lock()
	r.d.reads++
	r.d.mu.Unlock()
	return r.NodeReader.Node(owner, path, hash)
}

// TestCachedNodeDatabase reads a trie twice through one cache: the second
// pass reads nothing from the database and finds the same values; a node
// the cache holds is served after the database loses it (a node is its
// hash's), and one it does not hold is still a *trie.MissingNodeError.
func TestCachedNodeDatabase(t *testing.T) {
	r := newRand(t)
	disk := rawdb.NewMemoryDatabase()
	tdb := triedb.NewDatabase(disk, triedb.HashDefaults)
	theirs, err := trie.NewStateTrie(trie.StateTrieID(types.EmptyRootHash), tdb)
	if err != nil {
		t.Fatal(err)
	}
	addrs := make([]common.Address, 2000)
	for i := range addrs {
		addrs[i] = randAddress(r)
		if err := theirs.UpdateAccount(addrs[i], randAccount(r), 0); err != nil {
			t.Fatal(err)
		}
	}
	root, set := theirs.Commit(false)
	updateDB(t, tdb, root, types.EmptyRootHash, 1, trienode.NewWithNodeSet(set))
	if err := tdb.Commit(root, false); err != nil {
		t.Fatal(err)
	}
	counting := &countingDatabase{NodeDatabase: tdb}
	cache := NewNodeCache(16 << 20)
	cached := CachedNodeDatabase(counting, cache)
	if again := CachedNodeDatabase(cached, cache); again.(*cachedNodeDatabase).NodeDatabase != counting {
		t.Fatal("a CachedNodeDatabase of a CachedNodeDatabase wraps the wrapper")
	}
	want, err := trie.NewStateTrie(trie.StateTrieID(root), tdb)
	if err != nil {
		t.Fatal(err)
	}
	for pass := range 2 {
		ours, err := OpenSecureTrie(trie.StateTrieID(root), cached)
		if err != nil {
			t.Fatal(err)
		}
		for _, addr := range addrs[:500] {
			got, err := ours.GetAccount(addr)
			wantAcc, _ := want.GetAccount(addr)
			if err != nil || got == nil || got.Balance.Cmp(wantAcc.Balance) != 0 {
				t.Fatalf("pass %d, account %x: %v, %v; want %v", pass, addr, got, err, wantAcc)
			}
		}
		if pass == 0 && counting.reads == 0 {
			t.Fatal("the first pass read nothing from the database")
		}
		if pass == 1 && counting.reads != 0 {
			t.Fatalf("the second pass read %d nodes from the database, not the cache", counting.reads)
		}
		counting.reads = 0
	}
	// Drop every node but the root (the hash scheme's reader opens only a
	// state whose root it has) from the store: what the cache holds still
	// serves.
	it := disk.NewIterator(nil, nil)
	for it.Next() {
		if bytes.Equal(it.Key(), root[:]) {
			continue
		}
		if err := disk.Delete(it.Key()); err != nil {
			t.Fatal(err)
		}
	}
	it.Release()
	ours, err := OpenSecureTrie(trie.StateTrieID(root), cached)
	if err != nil {
		t.Fatal(err)
	}
	if acc, err := ours.GetAccount(addrs[0]); err != nil || acc == nil {
		t.Fatalf("a cached path after the store lost it: %v, %v", acc, err)
	}
	var missing *trie.MissingNodeError
	for _, addr := range addrs[500:] {
		if _, err := ours.GetAccount(addr); err != nil {
			if !errors.As(err, &missing) {
				t.Fatalf("an uncached node the store lost: %v, not a *trie.MissingNodeError", err)
			}
			return
		}
	}
	t.Fatal("1,500 accounts read whose leaves were never cached, no missing node")
}

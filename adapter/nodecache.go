package adapter

import (
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/triedb/database"
)

// nodeCacheShards is how many independently locked parts a NodeCache has,
// so that the trie prefetcher's goroutines and the tries' own loaders
// rarely wait for each other.
const nodeCacheShards = 64

// NodeCache keeps stored trie nodes by their hash, for the tries opened on
// a CachedNodeDatabase or a NewStateDatabaseWithNodeCache, across blocks:
// the nodes near the roots, which every block reads again, and the nodes
// the last blocks committed come from it without the trie database's
// reader (the path scheme's walk through its diff layers, the copy out of
// its clean cache, its hash check, the store). A node is its hash's in
// every state and under either scheme, so an entry never goes stale,
// whatever the trie database prunes or reorganises. 64 MiB holds about the
// top four levels of a mainnet-sized account trie; to stand in for the
// path scheme's diff layers it must hold what they hold (see
// NewStateDatabaseWithNodeCache).
//
// It holds at most its size in nodes (plus its maps' own memory): each of
// its shards keeps two generations, entries going into the newer; when the
// newer holds half the shard's share, the older is dropped and the newer
// takes its place, and a hit in the older moves the entry back into the
// newer, so the nodes read every block stay. A NodeCache is safe for
// concurrent use and may be shared by several databases of one chain.
type NodeCache struct {
	shards [nodeCacheShards]nodeCacheShard
	limit  int // bytes a shard's newer generation may hold

	hits, misses atomic.Uint64
}

type nodeCacheShard struct {
	mu           sync.Mutex
	newer, older map[common.Hash][]byte
	newerBytes   int
	_            [32]byte // keeps neighbouring shards' locks off one cache line
}

// NewNodeCache returns a cache of about size bytes of nodes, or nil (no
// cache) for a size of zero or less.
func NewNodeCache(size int) *NodeCache {
	if size <= 0 {
		return nil
	}
	return &NodeCache{limit: max(size/nodeCacheShards/2, 1)}
}

// Stats returns how many lookups found their node and how many did not;
// zeros for a nil cache (no cache).
func (c *NodeCache) Stats() (hits, misses uint64) {
	if c == nil {
		return 0, 0
	}
	return c.hits.Load(), c.misses.Load()
}

func (c *NodeCache) shard(hash *common.Hash) *nodeCacheShard {
	return &c.shards[hash[0]%nodeCacheShards]
}

// get returns the node of hash, or nil.
func (c *NodeCache) get(hash common.Hash) []byte {
	s := c.shard(&hash)
	s.mu.Lock()
	blob, ok := s.newer[hash]
	if !ok {
		if blob, ok = s.older[hash]; ok {
			delete(s.older, hash)
			s.insert(hash, blob, c.limit)
		}
	}
	s.mu.Unlock()
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return blob
}

// add keeps blob, which the caller has from a trie database's reader and
// must never change, as the node of hash.
func (c *NodeCache) add(hash common.Hash, blob []byte) {
	s := c.shard(&hash)
	s.mu.Lock()
	if _, ok := s.newer[hash]; !ok {
		s.insert(hash, blob, c.limit)
	}
	s.mu.Unlock()
}

func (s *nodeCacheShard) insert(hash common.Hash, blob []byte, limit int) {
	if s.newerBytes+len(blob) > limit && len(s.newer) > 0 {
		s.older, s.newer, s.newerBytes = s.newer, nil, 0
	}
	if s.newer == nil {
		s.newer = make(map[common.Hash][]byte, len(s.older))
	}
	s.newer[hash] = blob
	s.newerBytes += len(blob)
}

// CachedNodeDatabase returns db with its nodes read through cache: the
// tries that OpenSecureTrie and AccessListStateRoot open on it look a node
// up in cache first and keep what they read from db there, and a
// SecureTrie's Commit keeps the nodes it stores. On a path-scheme trie
// database (a *triedb.Database) a node the cache lacks is read from the
// key-value store by its path first, and from db's reader only if the
// store holds another node there (see NewStateDatabaseWithNodeCache). A nil
// cache returns db.
//
// Never put a cache over a witness's nodes (WitnessNodes) or any source
// whose point is to have only some nodes: a cached node would stand in for
// one the source lacks, and a witness missing a node would verify.
func CachedNodeDatabase(db database.NodeDatabase, cache *NodeCache) database.NodeDatabase {
	if cache == nil || db == nil {
		return db
	}
	if c, ok := db.(*cachedNodeDatabase); ok {
		db = c.NodeDatabase
	}
	return &cachedNodeDatabase{NodeDatabase: db, cache: cache}
}

// cachedNodeDatabase is CachedNodeDatabase's result. The tries take it
// apart (splitCache) and read the wrapped database through the cache
// themselves, so that the wrapped database's other methods (preimages,
// iteration) stay in reach.
type cachedNodeDatabase struct {
	database.NodeDatabase
	cache *NodeCache
}

// NodeReader returns the wrapped database's reader of the state, reading
// through the cache.
func (d *cachedNodeDatabase) NodeReader(stateRoot common.Hash) (database.NodeReader, error) {
	reader, err := d.NodeDatabase.NodeReader(stateRoot)
	if err != nil {
		return nil, err
	}
	return cachedNodeReader{reader: reader, cache: d.cache}, nil
}

// splitCache returns the database a CachedNodeDatabase wraps and its
// cache, or db and nil for any other database.
func splitCache(db database.NodeDatabase) (database.NodeDatabase, *NodeCache) {
	if c, ok := db.(*cachedNodeDatabase); ok {
		return c.NodeDatabase, c.cache
	}
	return db, nil
}

// cachedNodeReader is a trie database's reader with a NodeCache in front.
type cachedNodeReader struct {
	reader database.NodeReader
	cache  *NodeCache
}

// Node returns the node of hash from the cache, or else from the reader,
// keeping it in the cache. Only what the reader vouches for goes in: its
// answer for hash (go-ethereum's readers check it, or key by it).
func (r cachedNodeReader) Node(owner common.Hash, path []byte, hash common.Hash) ([]byte, error) {
	if blob := r.cache.get(hash); blob != nil {
		return blob, nil
	}
	blob, err := r.reader.Node(owner, path, hash)
	if err == nil && len(blob) > 0 {
		r.cache.add(hash, blob)
	}
	return blob, err
}

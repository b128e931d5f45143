package adapter

import (
	"sync"
	"sync/atomic"

	"github.com/keccakroot/keccakroot/triehash"
)

// readRecorder is the NodeSource of a SecureTrie: it serves the nodes from
// the trie database and keeps each one it served with its path, the nodes a
// witness of the trie's work needs (go-ethereum's tries keep the same, as
// their prevalue tracer).
//
// The reads are logged, not put in a map by path: go-ethereum's StateDB asks
// for a trie's witness only when it collects one, while every load is
// recorded, so a load costs an append to two slices (the path into its
// shard's buffer), and the map is built when witness asks for it. A map
// insert with its key's allocation cost a load about half as much again as
// the load itself from go-ethereum's in-memory trie database
// (BenchmarkSecureTrieLoads).
//
// The trie's Prefetch and UpdateBatch read from several goroutines at once,
// each walking its own subtrees, so the log is kept in one shard per first
// nibble of the path, each with its own lock: with one lock, the goroutines
// of a Prefetch on two cores waited for each other at every load. A shard is
// made on its first read: most storage tries read a few nodes.
type readRecorder struct {
	src    triehash.NodeSource
	shards [17]atomic.Pointer[readLog] // by the path's first nibble; the root's last
	// proving is set while Prove reads: a proof's nodes are not the
	// trie's reads, as go-ethereum's Prove does not track them.
	proving atomic.Bool
}

// readLog is the log of one shard of a readRecorder.
type readLog struct {
	mu    sync.Mutex
	paths []byte         // the paths read, one after another
	reads []recordedRead // in the order they were read
}

// recordedRead is one node read: its path ends at end in the log's paths,
// where the path of the read before it ends.
type recordedRead struct {
	end  int
	blob []byte
}

func (r *readRecorder) Node(path []byte, hash [32]byte) ([]byte, error) {
	blob, err := r.src.Node(path, hash)
	if err != nil || len(blob) == 0 {
		return blob, err
	}
	r.record(path, blob)
	return blob, nil
}

// record logs blob as the node read at path, unless Prove is reading.
func (r *readRecorder) record(path, blob []byte) {
	if r.proving.Load() {
		return
	}
	shard := r.shard(path)
	shard.mu.Lock()
	shard.paths = append(shard.paths, path...)
	shard.reads = append(shard.reads, recordedRead{end: len(shard.paths), blob: blob})
	shard.mu.Unlock()
}

// shard returns the log of path's shard, made if it is the shard's first
// read.
func (r *readRecorder) shard(path []byte) *readLog {
	at := &r.shards[16]
	if len(path) > 0 {
		at = &r.shards[path[0]&15]
	}
	if shard := at.Load(); shard != nil {
		return shard
	}
	if shard := new(readLog); at.CompareAndSwap(nil, shard) {
		return shard
	}
	return at.Load()
}

// witness returns the nodes read so far, by path, in a map of its own; nil
// if none. A path read more than once holds the last node read there (the
// reads of one path are in one shard, in order).
func (r *readRecorder) witness() map[string][]byte {
	var nodes map[string][]byte
	for i := range r.shards {
		shard := r.shards[i].Load()
		if shard == nil {
			continue
		}
		shard.mu.Lock()
		if len(shard.reads) > 0 && nodes == nil {
			nodes = make(map[string][]byte)
		}
		start := 0
		for _, read := range shard.reads {
			nodes[string(shard.paths[start:read.end])] = read.blob
			start = read.end
		}
		shard.mu.Unlock()
	}
	return nodes
}

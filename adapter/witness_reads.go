package adapter

import (
	"sync"

	"github.com/keccakroot/keccakroot/triehash"
)

// readRecorder is the NodeSource of a SecureTrie: it serves the nodes from
// the trie database and keeps each one it served with its path, the nodes a
// witness of the trie's work needs (go-ethereum's tries keep the same, as
// their prevalue tracer). The trie's Prefetch and UpdateBatch read from
// several goroutines at once, hence the lock.
//
// The reads are logged, not put in a map by path: go-ethereum's StateDB asks
// for a trie's witness only when it collects one, while every load is
// recorded, so a load costs an append to two slices (the path into a shared
// buffer), and the map is built when witness asks for it. A map insert with
// its key's allocation cost a load about as much as the rest of the load
// from go-ethereum's in-memory trie database (BenchmarkSecureTrieLoads).
type readRecorder struct {
	src triehash.NodeSource

	mu    sync.Mutex
	paths []byte         // the paths read, one after another
	reads []recordedRead // in the order they were read
}

// recordedRead is one node read: its path ends at end in the recorder's
// paths, where the path of the read before it ends.
type recordedRead struct {
	end  int
	blob []byte
}

func (r *readRecorder) Node(path []byte, hash [32]byte) ([]byte, error) {
	blob, err := r.src.Node(path, hash)
	if err != nil || len(blob) == 0 {
		return blob, err
	}
	r.mu.Lock()
	r.paths = append(r.paths, path...)
	r.reads = append(r.reads, recordedRead{end: len(r.paths), blob: blob})
	r.mu.Unlock()
	return blob, nil
}

// witness returns the nodes read so far, by path, in a map of its own; nil
// if none. A path read more than once holds the last node read there.
func (r *readRecorder) witness() map[string][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reads) == 0 {
		return nil
	}
	nodes := make(map[string][]byte, len(r.reads))
	start := 0
	for _, read := range r.reads {
		nodes[string(r.paths[start:read.end])] = read.blob
		start = read.end
	}
	return nodes
}

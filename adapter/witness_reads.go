package adapter

import (
	"maps"
	"sync"

	"github.com/keccakroot/keccakroot/triehash"
)

// readRecorder is the NodeSource of a SecureTrie: it serves the nodes from
// the trie database and keeps each one it served by path, the nodes a
// witness of the trie's work needs (go-ethereum's tries keep the same, as
// their prevalue tracer). The trie's Prefetch and UpdateBatch read from
// several goroutines at once, hence the lock.
type readRecorder struct {
	src triehash.NodeSource

	mu    sync.Mutex
	blobs map[string][]byte
}

func (r *readRecorder) Node(path []byte, hash [32]byte) ([]byte, error) {
	blob, err := r.src.Node(path, hash)
	if err != nil || len(blob) == 0 {
		return blob, err
	}
	r.mu.Lock()
	if r.blobs == nil {
		r.blobs = make(map[string][]byte)
	}
	r.blobs[string(path)] = blob
	r.mu.Unlock()
	return blob, nil
}

// witness returns a copy of the nodes read so far, by path; nil if none.
func (r *readRecorder) witness() map[string][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.blobs) == 0 {
		return nil
	}
	return maps.Clone(r.blobs)
}

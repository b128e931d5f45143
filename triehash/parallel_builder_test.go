package triehash

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"
)

func TestParallelBuilderMatchesBuilder(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{0, 1, 2, 255, 256, 257, 258, 513, 3000} {
		// Small chunks, so that the keys cross many chunk boundaries.
		chunkSize := []int{1, 2, 7, 64, parallelChunk}[n%5]
		for _, prefixes := range []bool{false, true} {
			keyLen := 32
			if prefixes {
				keyLen = 4
			}
			keys, values := randomSet(rng, n, keyLen, prefixes, 120)
			want, wantNodes := buildRecorded(t, keys, values)
			for _, workers := range []int{1, 2, 3, 8} {
				var nodes []gethNode
				p := NewParallelBuilder(func(path []byte, hash [32]byte, blob []byte) {
					nodes = append(nodes, gethNode{bytes.Clone(path), hash, bytes.Clone(blob)})
				}, workers)
				p.chunkSize = chunkSize
				feedPieces(t, rng, p, keys, values, workers%2 == 0)
				if got := p.Hash(); got != want {
					t.Fatalf("%d keys, %d workers: root %x, Builder %x", len(keys), workers, got, want)
				}
				if len(nodes) != len(wantNodes) {
					t.Fatalf("%d keys, %d workers: %d nodes, Builder %d", len(keys), workers, len(nodes), len(wantNodes))
				}
				for i := range nodes {
					if nodes[i].String() != wantNodes[i].String() {
						t.Fatalf("%d keys, %d workers: node %d differs:\n got %v\nwant %v", len(keys), workers, i, nodes[i], wantNodes[i])
					}
				}
			}
		}
	}
}

// feedPieces gives p the keys and values one by one or, if batches, in
// pieces of random lengths that go alternately through UpdateBatch and
// through Update, so that the batches begin anywhere in a chunk.
func feedPieces(t *testing.T, rng *rand.Rand, p *ParallelBuilder, keys, values [][]byte, batches bool) {
	t.Helper()
	if !batches {
		feed(t, p, keys, values)
		return
	}
	for i := 0; i < len(keys); {
		n := min(1+rng.IntN(2*p.chunkSize+3), len(keys)-i)
		pieceKeys, pieceValues := keys[i:i+n], values[i:i+n]
		if rng.IntN(3) > 0 {
			if err := p.UpdateBatch(pieceKeys, pieceValues); err != nil {
				t.Fatal(err)
			}
		} else {
			feed(t, p, pieceKeys, pieceValues)
		}
		i += n
	}
}

func TestParallelBuilderErrorsAndReset(t *testing.T) {
	before := runtime.NumGoroutine()
	p := NewParallelBuilder(nil, 2)
	p.chunkSize = 100
	keys, values := randomSet(rand.New(rand.NewPCG(23, 24)), 1000, 32, false, 50)
	for i := range 600 {
		if err := p.Update(keys[i], values[i]); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		key, value []byte
		want       error
	}{
		{keys[599], []byte{1}, ErrDuplicateKey},
		{keys[10], []byte{1}, ErrUnsorted},
		{keys[700], nil, ErrEmptyValue},
		{make([]byte, MaxKeyLength+1), []byte{1}, ErrKeyTooLong},
	}
	for _, c := range cases {
		if err := p.Update(c.key, c.value); !errors.Is(err, c.want) {
			t.Errorf("Update: %v, want %v", err, c.want)
		}
	}
	// Abandon the trie half way; the next one must be unaffected.
	p.Reset()
	for i := range keys {
		if err := p.Update(keys[i], values[i]); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := p.Hash(), gethTrieRoot(t, keys, values); got != want {
		t.Fatalf("root after Reset %x, want %x", got, want)
	}
	if err := p.Update([]byte{0xff}, []byte{1}); !errors.Is(err, ErrHashed) {
		t.Errorf("Update after Hash: %v", err)
	}
	p.Reset()
	if got := p.Hash(); got != EmptyRoot {
		t.Errorf("empty trie %x", got)
	}
	// The workers end once they see the stop; on a loaded machine that
	// can take a while after Reset returns.
	if n := goroutinesAbove(before, false); n > 0 {
		t.Errorf("%d goroutines left running after Hash", n)
	}
}

// TestParallelBuilderDroppedStops drops a ParallelBuilder in the middle of a
// trie, without Hash or Reset: once it is collected, its goroutines must
// end.
func TestParallelBuilderDroppedStops(t *testing.T) {
	before := runtime.NumGoroutine()
	keys, values := randomSet(rand.New(rand.NewPCG(25, 26)), 2000, 32, false, 50)
	func() {
		p := NewParallelBuilder(func([]byte, [32]byte, []byte) {}, 2)
		p.chunkSize = 100
		feed(t, p, keys, values)
	}()
	if n := goroutinesAbove(before, true); n > 0 {
		t.Fatalf("%d goroutines still running after the ParallelBuilder was dropped", n)
	}
}

// TestParallelBuilderLargeFirstValue checks that a chunk sized from its
// first key and value does not take one large value as the size of every
// value to come: a trie of two keys, the first with a 64 KiB value, may
// allocate a few times that value more than one whose first value is small,
// and the capped room per key, not a chunk's worth of such values.
func TestParallelBuilderLargeFirstValue(t *testing.T) {
	testLargeFirstValue(t, parallelChunk, func() interface {
		Update(key, value []byte) error
		Hash() [32]byte
	} {
		return NewParallelBuilder(nil, 2)
	})
}

// testLargeFirstValue checks that a builder's allocations, for a trie of two
// keys, grow with its first value by not much more than a few copies of it:
// a buffer presized from it would take a chunk's worth.
func testLargeFirstValue(t *testing.T, chunk int, newBuilder func() interface {
	Update(key, value []byte) error
	Hash() [32]byte
}) {
	t.Helper()
	build := func(firstValue int) (uint64, [32]byte) {
		keys := [][]byte{{1, 2, 3}, {1, 2, 4}}
		values := [][]byte{bytes.Repeat([]byte{7}, firstValue), {3}}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p := newBuilder()
		for i := range keys {
			if err := p.Update(keys[i], values[i]); err != nil {
				t.Fatal(err)
			}
		}
		root := p.Hash()
		runtime.ReadMemStats(&after)
		if want, _ := gethStackTrie(t, keys, values); root != want {
			t.Fatalf("first value of %d bytes: root %x, StackTrie %x", firstValue, root, want)
		}
		return after.TotalAlloc - before.TotalAlloc, root
	}
	small, _ := build(32)
	const large = 64 << 10
	big, _ := build(large)
	if limit := small + uint64(chunk+1)*maxPresizedLeaf + 8*large; big > limit {
		t.Fatalf("a first value of %d bytes took %d bytes in all, one of 32 bytes %d: want at most %d", large, big, small, limit)
	}
}

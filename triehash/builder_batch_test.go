package triehash

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// batchBuilder is what Builder and ParallelBuilder have in common.
type batchBuilder interface {
	Update(key, value []byte) error
	UpdateBatch(keys, values [][]byte) error
	Hash() [32]byte
	Reset()
}

// TestUpdateBatch checks that UpdateBatch gives a Builder's and a
// ParallelBuilder's root and errors exactly as a loop of Update: on sets
// of many sizes (shorter and longer than the read-ahead), and on batches
// with a key out of order, a duplicate, an empty value, a key too long and
// slices of different lengths, after which the keys before the fault stay
// added, as a loop leaves them. The ParallelBuilders with small chunks
// hand many chunks of a batch to their workers, faults among them.
func TestUpdateBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	parallel := func(chunkSize int) func() batchBuilder {
		return func() batchBuilder {
			p := NewParallelBuilder(nil, 2)
			p.chunkSize = chunkSize
			return p
		}
	}
	builders := map[string]func() batchBuilder{
		"Builder":                       func() batchBuilder { return NewBuilder(nil) },
		"ParallelBuilder":               parallel(parallelChunk),
		"ParallelBuilder, chunks of 1":  parallel(1),
		"ParallelBuilder, chunks of 7":  parallel(7),
		"ParallelBuilder, chunks of 32": parallel(32),
	}
	for name, newBuilder := range builders {
		for _, n := range []int{0, 1, 2, readAhead - 1, readAhead, readAhead + 1, 300, 5000} {
			keys, values := randomSet(rng, n, 32, false, 100)
			loop, batch := newBuilder(), newBuilder()
			for i := range keys {
				if err := loop.Update(keys[i], values[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := batch.UpdateBatch(keys, values); err != nil {
				t.Fatalf("%s, %d keys: %v", name, n, err)
			}
			if got, want := batch.Hash(), loop.Hash(); got != want {
				t.Fatalf("%s, %d keys: UpdateBatch root %x, Update loop %x", name, n, got, want)
			}
		}
		keys, values := randomSet(rng, 100, 32, false, 100)
		faults := map[string]func(k, v [][]byte) ([][]byte, [][]byte){
			"out of order": func(k, v [][]byte) ([][]byte, [][]byte) { k[40], k[41] = k[41], k[40]; return k, v },
			"duplicate":    func(k, v [][]byte) ([][]byte, [][]byte) { k[60] = k[59]; return k, v },
			"empty value":  func(k, v [][]byte) ([][]byte, [][]byte) { v[70] = nil; return k, v },
			"key too long": func(k, v [][]byte) ([][]byte, [][]byte) {
				k[99] = append(slices.Clone(k[98]), make([]byte, MaxKeyLength)...)
				return k, v
			},
		}
		for fault, spoil := range faults {
			k, v := spoil(slices.Clone(keys), slices.Clone(values))
			loop, batch := newBuilder(), newBuilder()
			var loopErr error
			stop := len(k)
			for i := range k {
				if loopErr = loop.Update(k[i], v[i]); loopErr != nil {
					stop = i
					break
				}
			}
			err := batch.UpdateBatch(k, v)
			if loopErr == nil || err == nil {
				t.Fatalf("%s, %s: UpdateBatch %v, Update loop %v", name, fault, err, loopErr)
			}
			if err.Error() != "triehash: UpdateBatch key "+strconv.Itoa(stop)+": "+loopErr.Error() {
				t.Fatalf("%s, %s: UpdateBatch %q, want key %d's %q", name, fault, err, stop, loopErr)
			}
			// The keys before the fault stay added, as the loop leaves
			// them: both hash to the same root.
			if got, want := batch.Hash(), loop.Hash(); got != want {
				t.Fatalf("%s, %s: after the error, root %x, Update loop %x", name, fault, got, want)
			}
		}
		if err := newBuilder().UpdateBatch(keys, values[1:]); !errors.Is(err, ErrLengthMismatch) {
			t.Fatalf("%s: slices of different lengths: %v", name, err)
		}
	}
}

// TestHashGroupFor checks the leaf batch's hash group for each width of
// one-block kernel: a multiple of it, within the queue's arrays.
func TestHashGroupFor(t *testing.T) {
	for w, want := range map[int]int{1: 16, 2: 16, 4: 16, 5: 20, 8: 16} {
		got := hashGroupFor(w)
		if got != want || got > maxHashGroup || got%w != 0 {
			t.Errorf("hashGroupFor(%d) = %d, want %d (a multiple of %d, at most %d)", w, got, want, w, maxHashGroup)
		}
	}
}

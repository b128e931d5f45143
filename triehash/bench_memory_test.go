package triehash

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/ethereum/go-ethereum/trie"
)

// peakSamples is how many times, spread evenly over the keys, a peak
// measurement looks at the live heap during one build.
const peakSamples = 64

// heapProbe measures the live heap a builder holds while it builds: the
// heap left after a full collection, sampled at regular points, minus the
// heap before the builder existed. It counts everything the builder keeps
// reachable, its own buffers and, for go-ethereum's StackTrie, the nodes it
// has put in its pools (still reachable through sync.Pool after one
// collection).
type heapProbe struct {
	baseline, peak uint64
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// newHeapProbe takes the baseline. The second collection empties the
// sync.Pool victim caches, so that nodes pooled by an earlier build, which
// the next one reuses, are not counted as already there.
func newHeapProbe() *heapProbe {
	runtime.GC()
	return &heapProbe{baseline: liveHeap()}
}

func (p *heapProbe) sample() {
	if live := liveHeap(); live > p.baseline {
		p.peak = max(p.peak, live-p.baseline)
	}
}

// trieUpdater is what the peak measurement needs of a builder.
type trieUpdater interface {
	Update(key, value []byte) error
}

// feed updates u with every key and its value, in order. It does not call
// tb.Helper, which allocates: the memory measurements run through it.
func feed(tb testing.TB, u trieUpdater, keys, values [][]byte) {
	for i := range keys {
		if err := u.Update(keys[i], values[i]); err != nil {
			tb.Fatal(err)
		}
	}
}

// peakPasses is how many times a peak measurement builds the trie; it
// keeps the smallest peak. The runtime allocates now and then for itself
// (a new thread's structures, say) and keeps it: such an allocation lands
// in one pass's peak, and in the next pass's baseline. The benchmark, whose
// millions of keys make each pass long, takes two; TestBuilderMemoryBounded,
// which must not fail on a busy CI machine where that happens more often,
// takes testPeakPasses.
const (
	peakPasses     = 2
	testPeakPasses = 5
)

// measurePeak builds the trie of the sorted keys with the builder
// newBuilder returns, sampling the live heap every 1/peakSamples of the keys
// and once more after hash, and returns the largest excess over the
// baseline (the smallest of passes builds) and the root.
func measurePeak(tb testing.TB, passes int, keys, values [][]byte, newBuilder func() trieUpdater, hash func(trieUpdater) [32]byte) (uint64, [32]byte) {
	var peak uint64
	var root [32]byte
	for pass := range passes {
		probe := newHeapProbe()
		builder := newBuilder()
		every := max(1, len(keys)/peakSamples)
		for i := range keys {
			if err := builder.Update(keys[i], values[i]); err != nil {
				tb.Fatal(err)
			}
			if i%every == every-1 {
				probe.sample()
			}
		}
		r := hash(builder)
		probe.sample()
		runtime.KeepAlive(builder)
		if pass > 0 && r != root {
			tb.Fatalf("root %x, then %x from the same keys", root, r)
		}
		if pass == 0 || probe.peak < peak {
			peak = probe.peak
		}
		root = r
	}
	return peak, root
}

// BenchmarkSortedAccountsMemory: what a fresh Builder, ParallelBuilder and
// go-ethereum's StackTrie each hold and allocate to build the trie of
// sorted accounts. peak-B is the peak live heap of one build (see
// heapProbe, measurePeak); B/op and allocs/op are those of a whole build,
// from a new builder each time.
func BenchmarkSortedAccountsMemory(b *testing.B) {
	sizes := []int{100000, 1000000}
	if testing.Short() {
		sizes = []int{1000}
	}
	impls := []struct {
		name string
		new  func() trieUpdater
		hash func(trieUpdater) [32]byte
	}{
		{"keccakroot",
			func() trieUpdater { return NewBuilder(nil) },
			func(u trieUpdater) [32]byte { return u.(*Builder).Hash() }},
		{"keccakroot-parallel",
			func() trieUpdater { return NewParallelBuilder(nil, 0) },
			func(u trieUpdater) [32]byte { return u.(*ParallelBuilder).Hash() }},
		{"go-ethereum",
			func() trieUpdater { return trie.NewStackTrie(nil) },
			func(u trieUpdater) [32]byte { return u.(*trie.StackTrie).Hash() }},
	}
	for _, n := range sizes {
		s := benchAccounts(b, n)
		for _, impl := range impls {
			b.Run(fmt.Sprintf("keys=%d/impl=%s", n, impl.name), func(b *testing.B) {
				b.ReportAllocs()
				peak, root := measurePeak(b, peakPasses, s.sortedKeys, s.sortedValues, impl.new, impl.hash)
				if root != s.wantSecureRoot {
					b.Fatalf("root %x, want %x", root, s.wantSecureRoot)
				}
				for b.Loop() {
					u := impl.new()
					feed(b, u, s.sortedKeys, s.sortedValues)
					root = impl.hash(u)
				}
				reportPerKey(b, n)
				b.ReportMetric(float64(peak), "peak-B")
				if root != s.wantSecureRoot {
					b.Fatalf("root %x, want %x", root, s.wantSecureRoot)
				}
			})
		}
	}
}

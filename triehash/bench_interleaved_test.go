package triehash

import (
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/trie"

	"github.com/keccakroot/keccakroot/internal/benchturns"
)

// BenchmarkSortedAccountsInterleaved builds the trie of the same sorted
// accounts with go-ethereum's StackTrie, the Builder and the
// ParallelBuilder (GOMAXPROCS goroutines; run with -cpu 1,2), each fed a
// key at a time and in one UpdateBatch, in turn, one build each per
// iteration, for both layouts of the input (one buffer; each key and value
// an allocation of its own), and reports each one's ns/key and its speed-up
// over StackTrie as metrics (see benchturns). Summarise with
//
//	benchstat -filter '.unit:/^speedup-/' file
func BenchmarkSortedAccountsInterleaved(b *testing.B) {
	for _, n := range benchSizes(b) {
		s := benchAccounts(b, n)
		for _, layout := range layouts {
			keys, values := s.inLayout(layout)
			b.Run(fmt.Sprintf("keys=%d/layout=%s", n, layout), func(b *testing.B) {
				builder := NewBuilder(nil)
				parallel := NewParallelBuilder(nil, 0)
				// build feeds bb key by key, or in one UpdateBatch.
				build := func(bb batchBuilder, batch bool) func() [32]byte {
					return func() [32]byte {
						bb.Reset()
						if batch {
							if err := bb.UpdateBatch(keys, values); err != nil {
								b.Fatal(err)
							}
						} else {
							feed(b, bb, keys, values)
						}
						return bb.Hash()
					}
				}
				builds := []struct {
					name string
					root func() [32]byte
				}{
					{"go-ethereum", func() [32]byte {
						st := trie.NewStackTrie(nil)
						feed(b, st, keys, values)
						return st.Hash()
					}},
					{"keccakroot", build(builder, false)},
					{"keccakroot-batch", build(builder, true)},
					{"keccakroot-parallel", build(parallel, false)},
					{"keccakroot-parallel-batch", build(parallel, true)},
				}
				turns := make([]benchturns.Turn, len(builds))
				for i, build := range builds {
					turns[i].Call = func(int) {
						if root := build.root(); root != s.wantSecureRoot {
							b.Fatalf("%s: root %x, want %x", build.name, root, s.wantSecureRoot)
						}
					}
				}
				perBuild := benchturns.Measure(b, 1, turns)
				for i, build := range builds {
					b.ReportMetric(perBuild[i]/float64(n), "ns/key-"+build.name)
					if i > 0 {
						b.ReportMetric(perBuild[0]/perBuild[i], "speedup-"+build.name)
					}
				}
			})
		}
	}
}

// BenchmarkSortedAccountsCPUTime is BenchmarkSortedAccountsInterleaved for
// the two one-goroutine builders, StackTrie and the Builder, timed by the
// CPU time of the thread they run on rather than by the wall clock: on a
// shared host the ratio then holds still within a few percent. Work the
// runtime does on other threads, the garbage collection of StackTrie's
// nodes in particular, is not counted, which favours StackTrie. Run with
// -cpu 1 and summarise as above.
func BenchmarkSortedAccountsCPUTime(b *testing.B) {
	for _, n := range benchSizes(b) {
		s := benchAccounts(b, n)
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			builder := NewBuilder(nil)
			check := func(name string, root [32]byte) {
				if root != s.wantSecureRoot {
					b.Fatalf("%s: root %x, want %x", name, root, s.wantSecureRoot)
				}
			}
			turns := []benchturns.Turn{
				{Call: func(int) {
					st := trie.NewStackTrie(nil)
					feed(b, st, s.sortedKeys, s.sortedValues)
					check("go-ethereum", st.Hash())
				}},
				{Call: func(int) {
					builder.Reset()
					feed(b, builder, s.sortedKeys, s.sortedValues)
					check("keccakroot", builder.Hash())
				}},
			}
			clock := benchturns.StartThreadClock()
			defer clock.Stop()
			perBuild := benchturns.MeasureBy(b, 1, turns, clock.Now)
			b.ReportMetric(perBuild[0]/float64(n), "ns/key-go-ethereum")
			b.ReportMetric(perBuild[1]/float64(n), "ns/key-keccakroot")
			b.ReportMetric(perBuild[0]/perBuild[1], "speedup-keccakroot")
		})
	}
}

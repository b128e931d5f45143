package triehash

import (
	"fmt"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/trie"
)

// BenchmarkSortedAccountsInterleaved builds the trie of the same sorted
// accounts with go-ethereum's StackTrie, the Builder and the
// ParallelBuilder (GOMAXPROCS goroutines; run with -cpu 1,2) in turn, one
// build each per iteration, and reports each one's ns/key and its speed-up
// over StackTrie as metrics. BenchmarkSortedAccounts runs one
// implementation's builds after the other's, so on a shared host a burst of
// load can land on one of them; here it lands on all three alike.
// Summarise with
//
//	benchstat -filter '.unit:/^speedup-/' file
func BenchmarkSortedAccountsInterleaved(b *testing.B) {
	for _, n := range benchSizes(b) {
		s := benchAccounts(b, n)
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			builder := NewBuilder(nil)
			parallel := NewParallelBuilder(nil, 0)
			builds := []struct {
				name string
				root func() [32]byte
			}{
				{"go-ethereum", func() [32]byte {
					st := trie.NewStackTrie(nil)
					feed(b, st, s.sortedKeys, s.sortedValues)
					return st.Hash()
				}},
				{"keccakroot", func() [32]byte {
					builder.Reset()
					feed(b, builder, s.sortedKeys, s.sortedValues)
					return builder.Hash()
				}},
				{"keccakroot-parallel", func() [32]byte {
					parallel.Reset()
					feed(b, parallel, s.sortedKeys, s.sortedValues)
					return parallel.Hash()
				}},
			}
			total := make([]time.Duration, len(builds))
			iterations := 0
			for b.Loop() {
				for i, build := range builds {
					start := time.Now()
					root := build.root()
					total[i] += time.Since(start)
					if root != s.wantSecureRoot {
						b.Fatalf("%s: root %x, want %x", build.name, root, s.wantSecureRoot)
					}
				}
				iterations++
			}
			for i, build := range builds {
				b.ReportMetric(float64(total[i].Nanoseconds())/float64(iterations*n), "ns/key-"+build.name)
				if i > 0 {
					b.ReportMetric(float64(total[0])/float64(total[i]), "speedup-"+build.name)
				}
			}
		})
	}
}

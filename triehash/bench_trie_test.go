package triehash

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb/database"
)

// memNodes is a committed trie's nodes by path, served from memory without
// checks to go-ethereum's trie.Trie and to a Trie alike, so that the
// benchmarks time the tries and not the store.
type memNodes map[string][]byte

func (m memNodes) NodeReader(common.Hash) (database.NodeReader, error) { return gethReader(m), nil }

type gethReader memNodes

func (m gethReader) Node(_ common.Hash, path []byte, _ common.Hash) ([]byte, error) {
	return m[string(path)], nil
}

func (m memNodes) Node(path []byte, _ [32]byte) ([]byte, error) { return m[string(path)], nil }

// benchState is a committed state trie of random accounts.
type benchState struct {
	root  [32]byte
	nodes memNodes
	keys  [][]byte // the hashed addresses, sorted
}

var benchStates = map[int]*benchState{}

func committedAccounts(b *testing.B, n int) *benchState {
	if s, ok := benchStates[n]; ok {
		return s
	}
	accounts := benchAccounts(b, n)
	s := &benchState{nodes: memNodes{}, keys: accounts.sortedKeys}
	builder := NewBuilder(func(path []byte, _ [32]byte, blob []byte) {
		s.nodes[string(path)] = bytes.Clone(blob)
	})
	feed(b, builder, accounts.sortedKeys, accounts.sortedValues)
	s.root = builder.Hash()
	benchStates[n] = s
	return s
}

// blockChanges returns a block's worth of changes to s: 80% changed
// accounts, 15% new ones and 5% deleted.
func blockChanges(s *benchState, n int) []op {
	rng := rand.New(rand.NewPCG(uint64(n), 2))
	ops := make([]op, n)
	for i := range ops {
		value := AppendAccount(nil, &Account{Nonce: rng.Uint64N(1000), StorageRoot: EmptyRoot, CodeHash: EmptyCodeHash})
		switch r := rng.IntN(100); {
		case r < 80:
			ops[i] = op{s.keys[rng.IntN(len(s.keys))], value}
		case r < 95:
			ops[i] = op{crypto.Keccak256(fmt.Appendf(nil, "new %d", i)), value}
		default:
			ops[i] = op{key: s.keys[rng.IntN(len(s.keys))]}
		}
	}
	return ops
}

// BenchmarkTrieBlock opens a state trie of a million accounts at its root,
// applies a block's changes and hashes it, with go-ethereum's trie.Trie and
// with Trie taking turns, and reports the time per change of the updates
// and of Hash for each, and the speed-ups, as metrics. Hash uses
// GOMAXPROCS goroutines in both: run with -cpu 1,2.
func BenchmarkTrieBlock(b *testing.B) {
	accounts := 1000000
	if testing.Short() {
		accounts = 10000
	}
	s := committedAccounts(b, accounts)
	for _, changes := range []int{1000, 10000} {
		ops := blockChanges(s, changes)
		want := gethBlockRoot(b, s, ops)
		b.Run(fmt.Sprintf("accounts=%d/changes=%d", accounts, changes), func(b *testing.B) {
			var update, hash [2]time.Duration
			var alloc [2]uint64
			var mem runtime.MemStats
			for b.Loop() {
				for impl := range 2 {
					runtime.ReadMemStats(&mem)
					before := mem.TotalAlloc
					start := time.Now()
					var root [32]byte
					if impl == 0 {
						gt, err := trie.New(trie.TrieID(common.Hash(s.root)), s.nodes)
						if err != nil {
							b.Fatal(err)
						}
						applyAll(b, gt, ops)
						mid := time.Now()
						update[0] += mid.Sub(start)
						root = gt.Hash()
						hash[0] += time.Since(mid)
					} else {
						tr, err := NewTrie(s.root, s.nodes)
						if err != nil {
							b.Fatal(err)
						}
						applyAll(b, tr, ops)
						mid := time.Now()
						update[1] += mid.Sub(start)
						root = tr.Hash()
						hash[1] += time.Since(mid)
					}
					runtime.ReadMemStats(&mem)
					alloc[impl] += mem.TotalAlloc - before
					if root != want {
						b.Fatalf("impl %d: root %x, want %x", impl, root, want)
					}
				}
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N*changes) }
			b.ReportMetric(per(update[0]), "ns/update-go-ethereum")
			b.ReportMetric(per(update[1]), "ns/update-keccakroot")
			b.ReportMetric(per(hash[0]), "ns/hash-go-ethereum")
			b.ReportMetric(per(hash[1]), "ns/hash-keccakroot")
			b.ReportMetric(float64(alloc[0])/float64(b.N*changes), "B/change-go-ethereum")
			b.ReportMetric(float64(alloc[1])/float64(b.N*changes), "B/change-keccakroot")
			b.ReportMetric(float64(hash[0])/float64(hash[1]), "speedup-hash")
			b.ReportMetric(float64(update[0]+hash[0])/float64(update[1]+hash[1]), "speedup-update+hash")
		})
	}
}

func gethBlockRoot(b *testing.B, s *benchState, ops []op) [32]byte {
	gt, err := trie.New(trie.TrieID(common.Hash(s.root)), s.nodes)
	if err != nil {
		b.Fatal(err)
	}
	applyAll(b, gt, ops)
	return gt.Hash()
}

func applyAll(b *testing.B, tr interface{ Update(k, v []byte) error }, ops []op) {
	for _, o := range ops {
		if err := tr.Update(o.key, o.value); err != nil {
			b.Fatal(err)
		}
	}
}

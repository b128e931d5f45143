package triehash

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
)

// The benchmarks put keccakroot beside go-ethereum in one run, with names
// benchstat pairs by impl. Each checks its root against go-ethereum's,
// computed in the same benchmark. Run with -benchmem; ns/key and B/key are
// reported as metrics.

// accountSet is n random accounts as a state trie holds them: the
// Keccak-256 of an address as key, the encoded account as value.
type accountSet struct {
	addresses      [][]byte // unhashed, random order
	values         [][]byte // value of addresses[i]
	sortedKeys     [][]byte // hashed keys, ascending
	sortedValues   [][]byte
	wantSecureRoot [32]byte

	// scatteredKeys and scatteredValues are sortedKeys and sortedValues
	// with each key and each value an allocation of its own, allocated in
	// random order: the layout of a caller that decodes its entries one by
	// one or sorts the entries of a map, where each key and value visited
	// in order is far from the one before (see scatteredAccounts).
	scatteredKeys, scatteredValues [][]byte
}

// layouts are the memory layouts of the builders' input: one buffer in
// order, or each key and value on its own.
var layouts = []string{"contiguous", "scattered"}

// inLayout returns the sorted keys and values of s laid out as layout says.
func (s *accountSet) inLayout(layout string) (keys, values [][]byte) {
	if layout == "scattered" {
		s.scatter()
		return s.scatteredKeys, s.scatteredValues
	}
	return s.sortedKeys, s.sortedValues
}

// scatter makes scatteredKeys and scatteredValues once: every key and value
// copied into an allocation of its own, the allocations made in a random
// order of the pairs, so that neighbours in key order are neighbours in
// memory only by chance.
func (s *accountSet) scatter() {
	if s.scatteredKeys != nil {
		return
	}
	n := len(s.sortedKeys)
	s.scatteredKeys, s.scatteredValues = make([][]byte, n), make([][]byte, n)
	rng := rand.New(rand.NewPCG(uint64(n), 2))
	for _, i := range rng.Perm(n) {
		s.scatteredKeys[i] = bytes.Clone(s.sortedKeys[i])
		s.scatteredValues[i] = bytes.Clone(s.sortedValues[i])
	}
}

var accountSets = map[int]*accountSet{}

func benchAccounts(b *testing.B, n int) *accountSet {
	if s, ok := accountSets[n]; ok {
		return s
	}
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	s := &accountSet{}
	type kv struct{ k, v []byte }
	pairs := make([]kv, n)
	for i := range n {
		addr := make([]byte, 20)
		for j := range addr {
			addr[j] = byte(rng.Uint32())
		}
		a := Account{Nonce: rng.Uint64N(1000), StorageRoot: EmptyRoot, CodeHash: EmptyCodeHash}
		a.Balance.SetUint64(rng.Uint64())
		v := AppendAccount(nil, &a)
		s.addresses = append(s.addresses, addr)
		s.values = append(s.values, v)
		pairs[i] = kv{crypto.Keccak256(addr), v}
	}
	slices.SortFunc(pairs, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	// Sorted input comes from a database iterator or a sorted file in
	// practice: lay it out in one buffer in order, not scattered.
	arena := make([]byte, 0, n*(32+80))
	for _, p := range pairs {
		arena = append(arena, p.k...)
		s.sortedKeys = append(s.sortedKeys, arena[len(arena)-len(p.k):len(arena):len(arena)])
		arena = append(arena, p.v...)
		s.sortedValues = append(s.sortedValues, arena[len(arena)-len(p.v):len(arena):len(arena)])
	}
	st := trie.NewStackTrie(nil)
	for i := range s.sortedKeys {
		if err := st.Update(s.sortedKeys[i], s.sortedValues[i]); err != nil {
			b.Fatal(err)
		}
	}
	s.wantSecureRoot = st.Hash()
	accountSets[n] = s
	return s
}

func reportPerKey(b *testing.B, keys int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(keys), "ns/key")
}

func benchSizes(b *testing.B) []int {
	if testing.Short() {
		return []int{1000}
	}
	return []int{1000, 100000, 1000000}
}

// BenchmarkSortedAccounts: Builder and ParallelBuilder (GOMAXPROCS
// goroutines; run with -cpu 1,2) against go-ethereum's StackTrie on the same
// sorted input.
func BenchmarkSortedAccounts(b *testing.B) {
	for _, n := range benchSizes(b) {
		s := benchAccounts(b, n)
		b.Run(fmt.Sprintf("keys=%d/impl=keccakroot", n), func(b *testing.B) {
			b.ReportAllocs()
			builder := NewBuilder(nil)
			var root [32]byte
			for b.Loop() {
				builder.Reset()
				for i := range s.sortedKeys {
					if err := builder.Update(s.sortedKeys[i], s.sortedValues[i]); err != nil {
						b.Fatal(err)
					}
				}
				root = builder.Hash()
			}
			reportPerKey(b, n)
			if root != s.wantSecureRoot {
				b.Fatalf("root %x, want %x", root, s.wantSecureRoot)
			}
		})
		b.Run(fmt.Sprintf("keys=%d/impl=keccakroot-parallel", n), func(b *testing.B) {
			b.ReportAllocs()
			builder := NewParallelBuilder(nil, 0)
			var root [32]byte
			for b.Loop() {
				builder.Reset()
				for i := range s.sortedKeys {
					if err := builder.Update(s.sortedKeys[i], s.sortedValues[i]); err != nil {
						b.Fatal(err)
					}
				}
				root = builder.Hash()
			}
			reportPerKey(b, n)
			if root != s.wantSecureRoot {
				b.Fatalf("root %x, want %x", root, s.wantSecureRoot)
			}
		})
		b.Run(fmt.Sprintf("keys=%d/impl=go-ethereum", n), func(b *testing.B) {
			b.ReportAllocs()
			var root [32]byte
			for b.Loop() {
				st := trie.NewStackTrie(nil)
				for i := range s.sortedKeys {
					if err := st.Update(s.sortedKeys[i], s.sortedValues[i]); err != nil {
						b.Fatal(err)
					}
				}
				root = st.Hash()
			}
			reportPerKey(b, n)
			if root != s.wantSecureRoot {
				b.Fatalf("root %x, want %x", root, s.wantSecureRoot)
			}
		})
	}
}

// BenchmarkUnsortedAccounts: SecureRoot on addresses in random order against
// go-ethereum's trie.Trie in secure mode (hash each key, insert, Hash).
func BenchmarkUnsortedAccounts(b *testing.B) {
	for _, n := range benchSizes(b) {
		s := benchAccounts(b, n)
		b.Run(fmt.Sprintf("keys=%d/impl=keccakroot", n), func(b *testing.B) {
			b.ReportAllocs()
			var root [32]byte
			for b.Loop() {
				var err error
				if root, err = SecureRoot(s.addresses, s.values); err != nil {
					b.Fatal(err)
				}
			}
			reportPerKey(b, n)
			if root != s.wantSecureRoot {
				b.Fatalf("root %x, want %x", root, s.wantSecureRoot)
			}
		})
		b.Run(fmt.Sprintf("keys=%d/impl=go-ethereum", n), func(b *testing.B) {
			b.ReportAllocs()
			var root [32]byte
			for b.Loop() {
				tr := trie.NewEmpty(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil))
				for i := range s.addresses {
					if err := tr.Update(crypto.Keccak256(s.addresses[i]), s.values[i]); err != nil {
						b.Fatal(err)
					}
				}
				root = tr.Hash()
			}
			reportPerKey(b, n)
			if root != s.wantSecureRoot {
				b.Fatalf("root %x, want %x", root, s.wantSecureRoot)
			}
		})
	}
}

// BenchmarkListRoot: the transaction root of a block, ListRoot against
// types.DeriveSha with a StackTrie, on pre-encoded transactions.
func BenchmarkListRoot(b *testing.B) {
	for _, n := range []int{200, 2000} {
		txs := randomTransactions(rand.New(rand.NewPCG(1, uint64(n))), n)
		encoded := make([][]byte, n)
		for i := range txs {
			var w bytes.Buffer
			txs.EncodeIndex(i, &w)
			encoded[i] = w.Bytes()
		}
		want := types.DeriveSha(txs, trie.NewStackTrie(nil))
		b.Run(fmt.Sprintf("txs=%d/impl=keccakroot", n), func(b *testing.B) {
			b.ReportAllocs()
			var root [32]byte
			for b.Loop() {
				root = ListRoot(n, func(i int, buf []byte) []byte { return append(buf, encoded[i]...) })
			}
			reportPerKey(b, n)
			if root != want {
				b.Fatalf("root %x, want %x", root, want)
			}
		})
		b.Run(fmt.Sprintf("txs=%d/impl=go-ethereum", n), func(b *testing.B) {
			b.ReportAllocs()
			var root [32]byte
			for b.Loop() {
				root = types.DeriveSha(txs, trie.NewStackTrie(nil))
			}
			reportPerKey(b, n)
			if root != want {
				b.Fatalf("root %x, want %x", root, want)
			}
		})
	}
}

package triehash

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"

	"github.com/keccakroot/keccakroot/internal/benchturns"
)

// The proof benchmarks verify the same proofs with go-ethereum and with
// keccakroot, taking turns (see benchturns), and report each one's time
// per proof and keccakroot's speed-up as metrics. Every call checks its
// result. Summarise with
//
//	benchstat -filter '.unit:/^speedup-/' file

// provenAccounts is a state trie of 200,000 accounts in go-ethereum's trie,
// to prove from.
type provenAccounts struct {
	*accountSet
	geth *trie.Trie
	root [32]byte
}

var benchProven *provenAccounts

func benchProvenAccounts(b *testing.B) *provenAccounts {
	if benchProven != nil {
		return benchProven
	}
	s := benchAccounts(b, 200_000)
	tr := trie.NewEmpty(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil))
	for i := range s.sortedKeys {
		tr.MustUpdate(s.sortedKeys[i], s.sortedValues[i])
	}
	benchProven = &provenAccounts{accountSet: s, geth: tr, root: tr.Hash()}
	if benchProven.root != s.wantSecureRoot {
		b.Fatalf("go-ethereum's trie has root %x, its StackTrie %x", benchProven.root, s.wantSecureRoot)
	}
	return benchProven
}

// prove returns go-ethereum's proof of the keys, as one list.
func (p *provenAccounts) prove(b *testing.B, keys ...[]byte) [][]byte {
	return gethProve(b, p.geth, keys...)
}

// gethProofDB is what go-ethereum's verifiers need first: the proof's
// nodes in a database under their hashes.
func gethProofDB(proof [][]byte) *memorydb.Database {
	db := memorydb.New()
	for _, n := range proof {
		db.Put(crypto.Keccak256(n), n)
	}
	return db
}

// BenchmarkVerifyProof verifies account proofs of a 200,000-account state
// trie (8 nodes or so each). from=list is a proof as it arrives (in
// eth_getProof's answer): go-ethereum puts it in a database first, as its
// VerifyProof needs, which hashes each node; keccakroot's VerifyProof
// takes the list. from=db is a proof already in a database, which both
// read; it times the walk alone.
func BenchmarkVerifyProof(b *testing.B) {
	p := benchProvenAccounts(b)
	const proofs = 256
	keys, values := make([][]byte, proofs), make([][]byte, proofs)
	lists := make([][][]byte, proofs)
	dbs := make([]*memorydb.Database, proofs)
	for i := range proofs {
		j := i * len(p.sortedKeys) / proofs
		keys[i], values[i] = p.sortedKeys[j], p.sortedValues[j]
		lists[i] = p.prove(b, keys[i])
		dbs[i] = gethProofDB(lists[i])
	}
	check := func(impl string, i int, value []byte, err error) {
		if err != nil || !bytes.Equal(value, values[i]) {
			b.Fatalf("%s: proof of key %x: value %x, %v; want %x", impl, keys[i], value, err, values[i])
		}
	}
	root := common.Hash(p.root)
	impls := map[string][2]func(i int){
		"from=list": {
			func(i int) {
				value, err := trie.VerifyProof(root, keys[i], gethProofDB(lists[i]))
				check("go-ethereum", i, value, err)
			},
			func(i int) {
				value, err := VerifyProof(p.root, keys[i], lists[i])
				check("keccakroot", i, value, err)
			},
		},
		"from=db": {
			func(i int) {
				value, err := trie.VerifyProof(root, keys[i], dbs[i])
				check("go-ethereum", i, value, err)
			},
			func(i int) {
				value, err := VerifyProofFrom(p.root, keys[i], dbSource{dbs[i]})
				check("keccakroot", i, value, err)
			},
		},
	}
	for _, from := range []string{"from=list", "from=db"} {
		b.Run(from, func(b *testing.B) {
			b.ReportAllocs()
			reportTurns(b, proofs, "proof", impls[from])
		})
	}
}

// BenchmarkVerifyRangeProof verifies ranges of 1,000 consecutive accounts
// of a 200,000-account state trie with the proofs of their first and last
// keys, as snap sync does: go-ethereum from a database it fills with the
// proof first, keccakroot from the list.
func BenchmarkVerifyRangeProof(b *testing.B) {
	p := benchProvenAccounts(b)
	const ranges, size = 16, 1000
	type rangeProof struct{ keys, values, proof [][]byte }
	cases := make([]rangeProof, ranges)
	for i := range cases {
		lo := i * (len(p.sortedKeys) - size) / (ranges - 1)
		c := rangeProof{keys: p.sortedKeys[lo : lo+size], values: p.sortedValues[lo : lo+size]}
		c.proof = p.prove(b, c.keys[0], c.keys[size-1])
		cases[i] = c
	}
	check := func(impl string, i int, more bool, err error) {
		// Only the last range reaches the end of the trie.
		if err != nil || more != (i < ranges-1) {
			b.Fatalf("%s: range %d: more %v, %v", impl, i, more, err)
		}
	}
	root := common.Hash(p.root)
	for _, layout := range layouts {
		in := cases
		if layout == "scattered" {
			in = make([]rangeProof, ranges)
			for i, c := range cases {
				in[i] = rangeProof{proof: c.proof}
				in[i].keys, in[i].values = scatterPairs(c.keys, c.values, uint64(i))
			}
		}
		b.Run(fmt.Sprintf("keys=%d/layout=%s", size, layout), func(b *testing.B) {
			b.ReportAllocs()
			reportTurns(b, ranges, "range", [2]func(i int){
				func(i int) {
					c := in[i]
					more, err := trie.VerifyRangeProof(root, c.keys[0], c.keys, c.values, gethProofDB(c.proof))
					check("go-ethereum", i, more, err)
				},
				func(i int) {
					c := in[i]
					more, err := VerifyRangeProof(p.root, c.keys[0], c.keys, c.values, c.proof)
					check("keccakroot", i, more, err)
				},
			})
		})
	}
}

// scatterFiller keeps the allocations that scatterPairs puts between the
// pairs it copies.
var scatterFiller [][]byte

// scatterPairs copies keys and values each into an allocation of its own,
// made in a random order with 4 KiB allocations between them, so that the
// pairs of a range lie far apart on a heap larger than the caches, as the
// decoded keys and values of a snap sync response do.
func scatterPairs(keys, values [][]byte, seed uint64) ([][]byte, [][]byte) {
	outKeys, outValues := make([][]byte, len(keys)), make([][]byte, len(values))
	rng := rand.New(rand.NewPCG(seed, 3))
	for _, i := range rng.Perm(len(keys)) {
		outKeys[i] = bytes.Clone(keys[i])
		scatterFiller = append(scatterFiller, make([]byte, 4096))
		outValues[i] = bytes.Clone(values[i])
		scatterFiller = append(scatterFiller, make([]byte, 4096))
	}
	return outKeys, outValues
}

// reportTurns times go-ethereum's and keccakroot's calls in turns of
// calls calls and reports ns per what for each, and the speed-up.
func reportTurns(b *testing.B, calls int, what string, impls [2]func(i int)) {
	turns := []benchturns.Turn{{Call: impls[0]}, {Call: impls[1]}}
	perCall := benchturns.Measure(b, calls, turns)
	b.ReportMetric(perCall[0], "ns/"+what+"-go-ethereum")
	b.ReportMetric(perCall[1], "ns/"+what+"-keccakroot")
	b.ReportMetric(perCall[0]/perCall[1], "speedup-keccakroot")
}

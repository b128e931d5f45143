package triehash

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/trie"
)

// proofList records the nodes go-ethereum's Prove writes, in order.
type proofList [][]byte

func (l *proofList) Put(_, value []byte) error {
	*l = append(*l, bytes.Clone(value))
	return nil
}

func (l *proofList) Delete([]byte) error { return nil }

// gethProve returns go-ethereum's proofs of keys in tr, as one list; nil
// if they have no nodes.
func gethProve(tb testing.TB, tr *trie.Trie, keys ...[]byte) [][]byte {
	tb.Helper()
	var proof proofList
	for _, key := range keys {
		if err := tr.Prove(key, &proof); err != nil {
			tb.Fatal(err)
		}
	}
	return proof
}

// proofDB is a proof as the database go-ethereum's verifiers read.
func proofDB(proof [][]byte) *memorydb.Database {
	db := memorydb.New()
	for _, n := range proof {
		db.Put(crypto.Keccak256(n), n)
	}
	return db
}

// provenTrie is a random trie in go-ethereum's trie.Trie and in a Trie
// opened from its committed nodes.
type provenTrie struct {
	keys, values [][]byte
	geth         *trie.Trie
	ours         *Trie
	root         [32]byte
	store        *pathStore // what both read the trie's nodes from
}

func newProvenTrie(t testing.TB, rng *rand.Rand, kind keyKind, n int) *provenTrie {
	store := newPathStore()
	p := &provenTrie{keys: kind.make(rng, n), store: store}
	for range p.keys {
		p.values = append(p.values, randomValue(rng, 40))
	}
	p.root = gethCommitted(t, store, p.keys, p.values)
	var err error
	if p.geth, err = trie.New(trie.TrieID(common.Hash(p.root)), store); err != nil {
		t.Fatal(err)
	}
	if p.ours, err = NewTrie(p.root, store.source()); err != nil {
		t.Fatal(err)
	}
	return p
}

// probeKeys returns keys of the trie and keys that are not in it.
func (p *provenTrie) probeKeys(rng *rand.Rand, kind keyKind) [][]byte {
	var probes [][]byte
	for range 40 {
		probes = append(probes, p.keys[rng.IntN(len(p.keys))])
	}
	return append(probes, kind.make(rng, 20)...)
}

// TestProveMatchesGeth: Prove lists the nodes go-ethereum's Prove writes,
// in the same order, for keys present and absent.
func TestProveMatchesGeth(t *testing.T) {
	for _, kind := range keyKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 12))
			p := newProvenTrie(t, rng, kind, 500)
			for _, key := range p.probeKeys(rng, kind) {
				var want proofList
				if err := p.geth.Prove(key, &want); err != nil {
					t.Fatal(err)
				}
				got, err := p.ours.Prove(key)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.EqualFunc(got, want, bytes.Equal) {
					t.Fatalf("Prove(%x): %d nodes, go-ethereum %d, or they differ", key, len(got), len(want))
				}
			}
		})
	}
}

// TestProveKeepsNoNodes: as go-ethereum's, Prove leaves the nodes it
// loads out of the trie, so that serving proofs does not fill it: proving
// a key again reads its nodes from the source again, and so does a Get.
func TestProveKeepsNoNodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	p := newProvenTrie(t, rng, keyKinds[0], 500)
	reads := func(f func() error) int64 {
		t.Helper()
		before := p.store.reads.Load()
		if err := f(); err != nil {
			t.Fatal(err)
		}
		return p.store.reads.Load() - before
	}
	key := p.keys[0]
	prove := func() error { _, err := p.ours.Prove(key); return err }
	first := reads(prove)
	if first == 0 {
		t.Fatal("Prove read no node from the source")
	}
	if again := reads(prove); again != first {
		t.Fatalf("Prove again read %d nodes, the first %d", again, first)
	}
	if get := reads(func() error { _, err := p.ours.Get(key); return err }); get != first {
		t.Fatalf("Get after Prove read %d nodes, Prove %d", get, first)
	}
}

// tamperings change a valid proof as an attacker or a bug would.
var tamperings = []struct {
	name string
	do   func(rng *rand.Rand, proof [][]byte) [][]byte
}{
	{"none", func(_ *rand.Rand, p [][]byte) [][]byte { return p }},
	{"node dropped", dropProofNode},
	{"byte changed", changeProofByte},
	{"junk added", addJunkNodes},
	{"truncated node", func(rng *rand.Rand, p [][]byte) [][]byte {
		if len(p) == 0 {
			return p
		}
		p = slices.Clone(p)
		i := rng.IntN(len(p))
		p[i] = p[i][:rng.IntN(len(p[i]))]
		return p
	}},
}

// dropProofNode returns a copy of proof without one of its nodes.
func dropProofNode(rng *rand.Rand, p [][]byte) [][]byte {
	if len(p) == 0 {
		return p
	}
	i := rng.IntN(len(p))
	return slices.Delete(slices.Clone(p), i, i+1)
}

// changeProofByte returns a copy of proof with one byte of a node changed.
func changeProofByte(rng *rand.Rand, p [][]byte) [][]byte {
	if len(p) == 0 {
		return p
	}
	p = slices.Clone(p)
	i := rng.IntN(len(p))
	p[i] = bytes.Clone(p[i])
	p[i][rng.IntN(len(p[i]))] ^= byte(1 + rng.IntN(255))
	return p
}

// addJunkNodes returns a copy of proof with a random blob and a node that
// is no node of the trie added.
func addJunkNodes(rng *rand.Rand, p [][]byte) [][]byte {
	return append(slices.Clone(p), randomValue(rng, 80), []byte{0xc2, 0x80, 0x80})
}

// TestVerifyProofMatchesGeth: on good and tampered proofs, against the
// right root and a wrong one, VerifyProof returns go-ethereum's value and
// accepts exactly what go-ethereum accepts.
func TestVerifyProofMatchesGeth(t *testing.T) {
	for _, kind := range keyKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(13, 14))
			p := newProvenTrie(t, rng, kind, 500)
			decisions := map[string]int{}
			for _, key := range p.probeKeys(rng, kind) {
				proof, err := p.ours.Prove(key)
				if err != nil {
					t.Fatal(err)
				}
				for _, tamper := range tamperings {
					bad := tamper.do(rng, proof)
					for _, root := range [][32]byte{p.root, {1}} {
						want, wantErr := trie.VerifyProof(common.Hash(root), key, proofDB(bad))
						got, err := VerifyProof(root, key, bad)
						if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
							t.Fatalf("%s, key %x: VerifyProof = %x, %v; go-ethereum %x, %v", tamper.name, key, got, err, want, wantErr)
						}
						decisions[fmt.Sprintf("%s %v", tamper.name, err == nil)]++
					}
				}
			}
			for _, d := range []string{"none true", "node dropped false", "byte changed false"} {
				if decisions[d] == 0 {
					t.Errorf("no case of %q: the test lost its coverage (%v)", d, decisions)
				}
			}
		})
	}
}

// TestTrieFromProofs opens a partial trie from the union of proofs for
// some keys, changes those keys, and compares its root with go-ethereum's
// after the same changes; a key off the proven paths is a missing node.
func TestTrieFromProofs(t *testing.T) {
	for _, kind := range keyKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(15, 16))
			p := newProvenTrie(t, rng, kind, 500)
			var witness [][]byte
			touched := p.probeKeys(rng, kind)
			for _, key := range touched {
				proof, err := p.ours.Prove(key)
				if err != nil {
					t.Fatal(err)
				}
				witness = append(witness, proof...)
			}
			partial, err := NewTrie(p.root, NewProofSource(witness))
			if err != nil {
				t.Fatal(err)
			}
			for i, key := range touched {
				value := randomValue(rng, 40)
				if i%5 == 0 {
					value = nil
				}
				if err := partial.Update(key, value); err != nil {
					// A deletion that collapses a branch needs the
					// sibling, which no proof of these keys holds.
					if value != nil || !errors.Is(err, ErrMissingNode) {
						t.Fatalf("change %d of the proven key %x: %v", i, key, err)
					}
					continue
				}
				if err := p.geth.Update(key, value); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := partial.Hash(), p.geth.Hash(); got != want {
				t.Fatalf("partial trie root %x, go-ethereum %x", got, want)
			}
		})
	}
}

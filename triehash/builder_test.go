package triehash

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
)

// gethTrieRoot is the reference for any key set: go-ethereum's full trie,
// which (unlike StackTrie) supports keys that are prefixes of others.
func gethTrieRoot(t testing.TB, keys, values [][]byte) [32]byte {
	t.Helper()
	tr := trie.NewEmpty(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil))
	for i := range keys {
		if err := tr.Update(keys[i], values[i]); err != nil {
			t.Fatal(err)
		}
	}
	return tr.Hash()
}

// gethNode is one onTrieNode callback, copied.
type gethNode struct {
	path []byte
	hash [32]byte
	blob []byte
}

func (n gethNode) String() string {
	return fmt.Sprintf("path %x hash %x blob %x", n.path, n.hash, n.blob)
}

// gethStackTrie returns StackTrie's root and callback stream for sorted keys.
func gethStackTrie(t testing.TB, keys, values [][]byte) ([32]byte, []gethNode) {
	t.Helper()
	var nodes []gethNode
	st := trie.NewStackTrie(func(path []byte, hash common.Hash, blob []byte) {
		nodes = append(nodes, gethNode{bytes.Clone(path), hash, bytes.Clone(blob)})
	})
	for i := range keys {
		if err := st.Update(keys[i], values[i]); err != nil {
			t.Fatal(err)
		}
	}
	return st.Hash(), nodes
}

func buildRecorded(t testing.TB, keys, values [][]byte) ([32]byte, []gethNode) {
	t.Helper()
	var nodes []gethNode
	b := NewBuilder(func(path []byte, hash [32]byte, blob []byte) {
		nodes = append(nodes, gethNode{bytes.Clone(path), hash, bytes.Clone(blob)})
	})
	for i := range keys {
		if err := b.Update(keys[i], values[i]); err != nil {
			t.Fatal(err)
		}
	}
	return b.Hash(), nodes
}

// randomSet returns sorted, distinct keys with random values. With
// prefixes, keys have random lengths and some are prefixes of others; else
// all keys have keyLen bytes drawn from a small alphabet, so they share long
// prefixes.
func randomSet(rng *rand.Rand, n, keyLen int, prefixes bool, maxValue int) (keys, values [][]byte) {
	seen := map[string]bool{}
	// Short keys run out of distinct values: stop trying after a while.
	for attempts := 0; len(keys) < n && attempts < 50*n; attempts++ {
		l := keyLen
		if prefixes {
			l = rng.IntN(keyLen + 1)
		}
		k := make([]byte, l)
		for i := range k {
			k[i] = byte(rng.IntN(4)) * 0x11 // few distinct nibbles: long shared prefixes
			if rng.IntN(3) == 0 {
				k[i] = byte(rng.Uint32())
			}
		}
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		keys = append(keys, k)
	}
	slices.SortFunc(keys, bytes.Compare)
	for range keys {
		v := make([]byte, 1+rng.IntN(maxValue))
		for i := range v {
			v[i] = byte(rng.Uint32())
		}
		values = append(values, v)
	}
	return keys, values
}

func TestBuilderMatchesStackTrie(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sizes := []int{0, 1, 2, 3, 10, 100, 1000, 10000}
	if testing.Short() {
		sizes = sizes[:7]
	}
	for _, n := range sizes {
		for _, keyLen := range []int{1, 2, 5, 32} {
			for _, maxValue := range []int{1, 4, 40, 2048} {
				if n*maxValue > 4<<20 {
					continue
				}
				keys, values := randomSet(rng, n, keyLen, false, maxValue)
				wantRoot, wantNodes := gethStackTrie(t, keys, values)
				gotRoot, gotNodes := buildRecorded(t, keys, values)
				if gotRoot != wantRoot {
					t.Fatalf("n=%d keyLen=%d value<=%d: root %x, StackTrie %x", n, keyLen, maxValue, gotRoot, wantRoot)
				}
				// Without onNode, inner nodes are hashed in deferred batches.
				plain := NewBuilder(nil)
				for i := range keys {
					if err := plain.Update(keys[i], values[i]); err != nil {
						t.Fatal(err)
					}
				}
				if got := plain.Hash(); got != wantRoot {
					t.Fatalf("n=%d keyLen=%d value<=%d, no onNode: root %x, StackTrie %x", n, keyLen, maxValue, got, wantRoot)
				}
				if len(gotNodes) != len(wantNodes) {
					t.Fatalf("n=%d keyLen=%d: %d nodes reported, StackTrie %d", n, keyLen, len(gotNodes), len(wantNodes))
				}
				for i := range gotNodes {
					g, w := gotNodes[i], wantNodes[i]
					if !bytes.Equal(g.path, w.path) || g.hash != w.hash || !bytes.Equal(g.blob, w.blob) {
						t.Fatalf("n=%d keyLen=%d node %d:\n got %v\nwant %v", n, keyLen, i, g, w)
					}
				}
			}
		}
	}
}

// TestBuilderPrefixKeys covers what StackTrie cannot: keys of any length,
// some of them prefixes of others, checked against the full trie.
func TestBuilderPrefixKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 300 {
		n := rng.IntN(60)
		keys, values := randomSet(rng, n, 1+rng.IntN(6), true, 1+rng.IntN(70))
		want := gethTrieRoot(t, keys, values)
		got, _ := buildRecorded(t, keys, values)
		if got != want {
			t.Fatalf("round %d: root %x, trie.Trie %x\nkeys %x", round, got, want, keys)
		}
		if got, err := (Options{Workers: 1}).Root(keys, values); err != nil || got != want {
			t.Fatalf("round %d, no onNode: root %x, %v; trie.Trie %x", round, got, err, want)
		}
	}
}

func TestBuilderErrors(t *testing.T) {
	b := NewBuilder(nil)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(b.Update([]byte{0x10}, []byte{1}))
	cases := []struct {
		key, value []byte
		want       error
	}{
		{[]byte{0x10}, []byte{1}, ErrDuplicateKey},
		{[]byte{0x0f}, []byte{1}, ErrUnsorted},
		{[]byte{0x20}, nil, ErrEmptyValue},
		{make([]byte, MaxKeyLength+1), []byte{1}, ErrKeyTooLong},
	}
	for _, c := range cases {
		err := b.Update(c.key, c.value)
		if !errors.Is(err, c.want) {
			t.Errorf("Update(%x, %x) = %v, want %v", c.key, c.value, err, c.want)
		}
		if err != nil && !bytes.Contains([]byte(err.Error()), []byte(fmt.Sprintf("%x", c.key[:min(len(c.key), 4)]))) {
			t.Errorf("error %q does not name the key %x", err, c.key)
		}
	}
	// The failures left the builder as it was: finishing it gives the
	// root of the one good key.
	want := gethTrieRoot(t, [][]byte{{0x10}}, [][]byte{{1}})
	if got := b.Hash(); got != want {
		t.Fatalf("root after rejected updates %x, want %x", got, want)
	}
	if err := b.Update([]byte{0x30}, []byte{1}); !errors.Is(err, ErrHashed) {
		t.Fatalf("Update after Hash = %v, want ErrHashed", err)
	}
	b.Reset()
	must(b.Update([]byte{0x05}, []byte{2}))
	if got, want := b.Hash(), gethTrieRoot(t, [][]byte{{0x05}}, [][]byte{{2}}); got != want {
		t.Fatalf("after Reset: %x, want %x", got, want)
	}
	b.Reset()
	if got := b.Hash(); got != EmptyRoot {
		t.Fatalf("empty trie root %x", got)
	}
}

// TestCompareKeys checks compareKeys against bytes.Compare and a nibble by
// nibble count, on pairs that share up to all of their bytes, across the
// eight-byte steps, and that are prefixes of each other.
func TestCompareKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	naive := func(a, b []byte) int {
		n := 0
		for n < 2*len(a) && n < 2*len(b) && nibble(a, n) == nibble(b, n) {
			n++
		}
		return n
	}
	for range 20000 {
		a := make([]byte, rng.IntN(40))
		for i := range a {
			a[i] = byte(rng.IntN(3)) << (4 * rng.IntN(2))
		}
		b := bytes.Clone(a[:rng.IntN(len(a)+1)])
		for range rng.IntN(4) {
			b = append(b, byte(rng.IntN(3))<<(4*rng.IntN(2)))
		}
		if len(b) > 0 && rng.IntN(2) == 0 {
			b[rng.IntN(len(b))] ^= byte(1) << rng.IntN(8)
		}
		shared, ascending := compareKeys(a, b)
		if want := naive(a, b); shared != want {
			t.Fatalf("compareKeys(%x, %x) shares %d nibbles, want %d", a, b, shared, want)
		}
		if want := bytes.Compare(a, b) < 0; ascending != want {
			t.Fatalf("compareKeys(%x, %x) ascending %v, want %v", a, b, ascending, want)
		}
	}
}

// TestPrependLeaf checks that a leaf written in front of its value, as the
// batch stage writes it, is the leaf appendLeaf appends, for every depth of
// keys of several lengths and values around the RLP header sizes, and that
// it fits the room leafRoom leaves.
func TestPrependLeaf(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 1))
	for _, keyLen := range []int{1, 2, 9, 32, 54, 55, 56, 300} {
		key := make([]byte, keyLen)
		for i := range key {
			key[i] = byte(rng.Uint32())
		}
		for _, valueLen := range []int{1, 2, 20, 54, 55, 56, 196, 197, 198, 199, 200, 255, 256, 70000} {
			value := make([]byte, valueLen)
			for i := range value {
				value[i] = byte(rng.Uint32())
			}
			if valueLen == 1 {
				value[0] &= 0x7f // a byte below 0x80 is its own encoding
			}
			for from := 1; from <= 2*keyLen; from++ {
				want := appendLeaf(nil, key, from, value)
				room := leafRoom(keyLen, valueLen)
				buf := make([]byte, 3+room+valueLen)
				copy(buf[3+room:], value)
				start := prependLeaf(buf, 3+room, len(buf), key, from)
				if start < 3 || !bytes.Equal(buf[start:], want) {
					t.Fatalf("key of %d bytes, value of %d, from nibble %d: leaf at %d of room %d\n%x, appendLeaf\n%x",
						keyLen, valueLen, from, start-3, room, buf[max(start, 0):], want)
				}
			}
		}
	}
}

// TestBuilderLargeFirstValue: a long first value does not size the
// Builder's leaf buffer for a chunk of such values (with onNode it keeps a
// whole chunk's encodings, so that is where a presize from it would cost
// most).
func TestBuilderLargeFirstValue(t *testing.T) {
	for _, watched := range []bool{false, true} {
		testLargeFirstValue(t, leafChunk, func() interface {
			Update(key, value []byte) error
			Hash() [32]byte
		} {
			if watched {
				return NewBuilder(func([]byte, [32]byte, []byte) {})
			}
			return NewBuilder(nil)
		})
	}
}

// TestBuilderReportOnlyAt checks a Builder whose onNode wants only some
// depths (reportOnlyAt, as VerifyRangeProof's subtree hashers use it): the
// same root, and exactly the nodes at those depths that a Builder reporting
// every node reports, each once with its path and hash and without its
// encoding, while the nodes elsewhere wait to be hashed in batches.
func TestBuilderReportOnlyAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	type set struct {
		name         string
		keys, values [][]byte
	}
	var sets []set
	names, keySets, valueSets := edgeSets()
	for i, name := range names {
		if len(keySets[i]) > 1 {
			sets = append(sets, set{name, keySets[i], valueSets[i]})
		}
	}
	rounds := 40
	if testing.Short() {
		rounds = 8 // and the edge sets without their largest (see edgeSets)
	}
	for round := range rounds {
		n := 2 + rng.IntN(3000)
		keys, values := randomSet(rng, n, 32, false, 40)
		if round%4 == 0 {
			keys, values = randomSet(rng, n, 6, true, 40)
		}
		sets = append(sets, set{fmt.Sprintf("round %d, %d keys", round, len(keys)), keys, values})
	}
	for _, s := range sets {
		if len(s.keys) < 2 {
			continue
		}
		want, all := buildRecorded(t, s.keys, s.values) // the edge sets have keys StackTrie panics on
		deepest := 0
		for _, n := range all {
			deepest = max(deepest, len(n.path))
		}
		for _, pick := range []string{"every depth", "one depth", "random depths"} {
			depths := make([]bool, deepest+1)
			switch pick {
			case "every depth":
				for d := range depths {
					depths[d] = true
				}
			case "one depth":
				depths[rng.IntN(len(depths))] = true
			default:
				for d := range depths {
					depths[d] = rng.IntN(3) == 0
				}
			}
			wanted := map[string]gethNode{}
			for _, n := range all {
				if depths[len(n.path)] {
					wanted[string(n.path)] = n
				}
			}
			got := map[string]gethNode{}
			b := NewBuilder(func(path []byte, hash [32]byte, blob []byte) {
				if _, twice := got[string(path)]; twice {
					t.Fatalf("%s, %s: node at %x reported twice", s.name, pick, path)
				}
				got[string(path)] = gethNode{bytes.Clone(path), hash, blob}
			})
			b.reportOnlyAt(depths)
			if err := b.UpdateBatch(s.keys, s.values); err != nil {
				t.Fatal(err)
			}
			if root := b.Hash(); root != want {
				t.Fatalf("%s, %s: root %x, want %x", s.name, pick, root, want)
			}
			if len(got) != len(wanted) {
				t.Fatalf("%s, %s: %d nodes reported, want %d", s.name, pick, len(got), len(wanted))
			}
			for path, w := range wanted {
				g, ok := got[path]
				if !ok || g.hash != w.hash || g.blob != nil {
					t.Fatalf("%s, %s: node at %x: got hash %x and blob %x (reported %v), want hash %x and no blob", s.name, pick, w.path, g.hash, g.blob, ok, w.hash)
				}
			}
		}
	}
}

package triehash

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// withVerify turns verifyPrecomputed on until the test ends.
func withVerify(t *testing.T) {
	old := verifyPrecomputed
	verifyPrecomputed = true
	t.Cleanup(func() { verifyPrecomputed = old })
}

// TestPrecomputedNodesMatchCore runs the builders with every node of the
// batch stage checked against the core's own encoding (a mismatch panics),
// on key sets that put leaves and bottom branches at every depth and across
// chunk boundaries, and checks the results against go-ethereum too. Build
// with -tags triehash_verify to run every test of the package so.
func TestPrecomputedNodesMatchCore(t *testing.T) {
	withVerify(t)
	rng := rand.New(rand.NewPCG(33, 34))
	for _, n := range []int{1, 2, 63, 64, 65, 66, 129, 1000, 5000} {
		for _, keyLen := range []int{1, 2, 5, 32} {
			for _, maxValue := range []int{1, 30, 200} {
				keys, values := randomSet(rng, n, keyLen, false, maxValue)
				wantRoot, wantNodes := gethStackTrie(t, keys, values)
				got, nodes := buildRecorded(t, keys, values)
				if got != wantRoot {
					t.Fatalf("%d keys of %d bytes: root %x, StackTrie %x", len(keys), keyLen, got, wantRoot)
				}
				sameNodes(t, "Builder", nodes, wantNodes)
				b := NewBuilder(nil)
				feed(t, b, keys, values)
				if got := b.Hash(); got != wantRoot {
					t.Fatalf("%d keys of %d bytes, no onNode: root %x, StackTrie %x", len(keys), keyLen, got, wantRoot)
				}
				p := NewParallelBuilder(nil, 2)
				p.chunkSize = 1 + n%70
				feed(t, p, keys, values)
				if got := p.Hash(); got != wantRoot {
					t.Fatalf("%d keys of %d bytes, ParallelBuilder: root %x, StackTrie %x", len(keys), keyLen, got, wantRoot)
				}
			}
		}
	}
	for round := range 200 {
		keys, values := randomSet(rng, rng.IntN(300), 1+rng.IntN(6), true, 1+rng.IntN(70))
		want := gethTrieRoot(t, keys, values)
		if got, _ := buildRecorded(t, keys, values); got != want {
			t.Fatalf("round %d: root %x, trie.Trie %x", round, got, want)
		}
	}
	keys, values := randomSet(rng, 9000, 32, false, 100)
	want := gethTrieRoot(t, keys, values)
	for _, workers := range []int{1, 2} {
		if got, err := (Options{Workers: workers}).Root(keys, values); err != nil || got != want {
			t.Fatalf("Root on %d workers: %x, %v; want %x", workers, got, err, want)
		}
	}
}

// TestVerifyPrecomputedCatchesMismatch gives the core precomputed nodes that
// differ from its own, one way after another, and expects the check to
// name each.
func TestVerifyPrecomputedCatchesMismatch(t *testing.T) {
	withVerify(t)
	value := bytes.Repeat([]byte{7}, 40) // leaves of 32 bytes and more: hashed
	keys := [][]byte{{0x12, 0x30}, {0x12, 0x34}, {0x56, 0x00}}
	leaf := func(key []byte, depth int) precomputedNode {
		enc := appendLeaf(nil, key, depth, value)
		return precomputedNode{ref: &ref{size: 32, data: fastkeccak.Sum256(enc)}, encoding: enc}
	}
	bottom := func(depth int, children ...precomputedNode) precomputedNode {
		br := branch{depth: depth}
		for i, c := range children {
			n := nibble(keys[i], depth)
			br.children[n], br.childMask = *c.ref, br.childMask|1<<n
		}
		enc := appendBranch(nil, &br)
		return precomputedNode{ref: &ref{size: 32, data: fastkeccak.Sum256(enc)}, encoding: enc, depth: depth}
	}
	// Keys 0 and 1 part at nibble 3, under a bottom branch; key 2 parts
	// from them at nibble 0.
	good := []precomputedNode{leaf(keys[0], 4), leaf(keys[1], 4), leaf(keys[2], 1)}
	goodBottom := bottom(3, good[0], good[1])
	build := func(leaves []precomputedNode, br precomputedNode) (msg string) {
		defer func() {
			if r := recover(); r != nil {
				msg = fmt.Sprint(r)
			}
		}()
		c := streamCore{}
		for i, key := range keys {
			c.key, c.value = key, value
			c.leaf, c.hasLeaf = leaves[i], true
			if i == 1 {
				c.bottom, c.hasBottom = br, true
			}
			if i+1 < len(keys) {
				c.advance(commonPrefixNibbles(key, keys[i+1]))
			}
		}
		want := gethTrieRoot(t, keys, [][]byte{value, value, value})
		if got := c.finish().data; got != want {
			return fmt.Sprintf("root %x, want %x", got, want)
		}
		return ""
	}
	if msg := build(good, goodBottom); msg != "" {
		t.Fatalf("correct precomputed nodes: %s", msg)
	}
	wrongHash := func(n precomputedNode) precomputedNode {
		wrong := *n.ref
		wrong.data[0] ^= 1
		n.ref = &wrong
		return n
	}
	wrongEncoding := func(n precomputedNode) precomputedNode {
		n.encoding = append(bytes.Clone(n.encoding[:len(n.encoding)-1]), 8)
		return n
	}
	deeper := goodBottom
	deeper.depth = 2
	for _, tc := range []struct {
		name   string
		leaves []precomputedNode
		bottom precomputedNode
		want   string
	}{
		{"leaf hash", []precomputedNode{good[0], wrongHash(good[1]), good[2]}, goodBottom, "precomputed leaf at depth 4 of key 1234"},
		{"leaf encoding", []precomputedNode{wrongEncoding(good[0]), good[1], good[2]}, goodBottom, "precomputed leaf at depth 4 of key 1230"},
		{"leaf depth", []precomputedNode{good[0], good[1], leaf(keys[2], 2)}, goodBottom, "precomputed leaf at depth 1 of key 5600"},
		{"bottom hash", good, wrongHash(goodBottom), "precomputed bottom branch at depth 3"},
		{"bottom encoding", good, wrongEncoding(goodBottom), "precomputed bottom branch at depth 3"},
		{"bottom depth", good, deeper, "precomputed bottom branch at depth 2 of key 1234 (reference"},
	} {
		if msg := build(tc.leaves, tc.bottom); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: check says %q, want it to say %q", tc.name, msg, tc.want)
		}
	}
}

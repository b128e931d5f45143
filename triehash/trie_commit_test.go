package triehash

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestComparePathsAsBytes checks that comparing paths by pathKey orders
// them as bytes.Compare does, on paths around the key's 15-nibble limit
// that share long prefixes, and that a sorted droppedNodes finds each of
// its paths and no other.
func TestComparePathsAsBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	paths := [][]byte{{}, {0}, {0, 0}}
	for range 400 {
		p := make([]byte, rng.IntN(2*pathKeyNibbles+3))
		for i := range p {
			p[i] = 7 * byte(rng.IntN(3)) // few nibbles: many shared prefixes
		}
		paths = append(paths, p)
	}
	sign := func(x int) int { return min(max(x, -1), 1) }
	for _, a := range paths {
		for _, b := range paths {
			got := comparePaths(pathKey(a), a, pathKey(b), b)
			if want := bytes.Compare(a, b); sign(got) != want {
				t.Fatalf("comparePaths(%x, %x) = %d, want %d", a, b, got, want)
			}
		}
	}

	var d droppedNodes
	seen := map[string]bool{}
	for i, p := range paths {
		if !seen[string(p)] && i%2 == 0 {
			seen[string(p)] = true
			d.add(p, []byte{byte(i)})
		}
	}
	d.sort()
	for i := 1; i < len(d.prevs); i++ {
		if bytes.Compare(d.path(i-1), d.path(i)) >= 0 {
			t.Fatalf("sorted paths %x and %x out of order", d.path(i-1), d.path(i))
		}
	}
	for _, p := range paths {
		// Every search starts from another place: before, at and past
		// the path's entry, and off either end.
		near := rng.IntN(len(d.prevs)+3) - 1
		if got := d.restore(p, &near) != nil; got != seen[string(p)] {
			t.Fatalf("restore(%x) found %v, want %v", p, got, seen[string(p)])
		}
		if near < 0 || near > len(d.prevs) || near > 0 && bytes.Compare(d.path(near-1), p) >= 0 ||
			near < len(d.prevs) && bytes.Compare(d.path(near), p) < 0 {
			t.Fatalf("restore(%x) left near at %d, not the path's place among %d entries", p, near, len(d.prevs))
		}
	}
}

// TestCommitBlobsUnmodified checks ChangeFunc's promise that the blobs it
// receives are never modified, though Commit cuts them from blocks it
// shares among them: a store keeps them uncopied while the trie changes
// and commits again and again.
func TestCommitBlobsUnmodified(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tr, err := NewTrie(EmptyRoot, nil)
	if err != nil {
		t.Fatal(err)
	}
	type kept struct{ blob, copied []byte }
	var all []kept
	var keys [][]byte
	for round := range 6 {
		for range 300 {
			key := make([]byte, 1+rng.IntN(6))
			for i := range key {
				key[i] = byte(rng.IntN(4))
			}
			keys = append(keys, key)
			if err := tr.Update(key, randomValue(rng, 60)); err != nil {
				t.Fatal(err)
			}
		}
		for range 60 {
			if err := tr.Delete(keys[rng.IntN(len(keys))]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := tr.CommitChanges(func(_ []byte, _ [32]byte, blob, _ []byte) {
			if blob != nil {
				all = append(all, kept{blob, bytes.Clone(blob)})
			}
		}); err != nil {
			t.Fatalf("round %d: Commit: %v", round, err)
		}
	}
	for i, k := range all {
		if !bytes.Equal(k.blob, k.copied) {
			t.Fatalf("blob %d of %d changed after it was handed over: %x, was %x", i, len(all), k.blob, k.copied)
		}
	}
}

// TestTrieCommitOrigins checks the origins Commit reports for stored nodes
// that a change leaves in place, which keep their stored encodings as the
// origins of their paths instead of going into the dropped list: a leaf
// whose new value makes it an embedded node (its path deleted, the old leaf
// the origin), a branch that loses one of two children and collapses into
// its parent's short node, and a branch that only changes; each alone and
// all at once, against go-ethereum's node set.
func TestTrieCommitOrigins(t *testing.T) {
	value := bytes.Repeat([]byte{0xaa}, 40) // long enough to store every leaf by hash
	keys := [][]byte{
		{0x10}, {0x20}, {0x30}, // leaves of the root branch
		{0x40, 0x01}, {0x40, 0x02}, // a branch of two at path 4 0 0, under an extension
		{0x50, 0x01}, {0x50, 0x02}, {0x50, 0x03}, // a branch of three at path 5 0 0
	}
	values := make([][]byte, len(keys))
	for i := range values {
		values[i] = value
	}
	embedded := op{keys[0], []byte{1}}
	collapsed := op{key: keys[4]}
	changed := op{keys[6], bytes.Repeat([]byte{0xbb}, 40)}
	// What go-ethereum's set must hold for each case to be the one named:
	// at path, a deletion (stored false) or a stored node, with an origin.
	type expect struct {
		path   []byte
		stored bool
	}
	cases := []struct {
		name string
		ops  []op
		want []expect
	}{
		{"leaf becomes embedded", []op{embedded}, []expect{{[]byte{1}, false}}},
		{"branch collapses", []op{collapsed}, []expect{{[]byte{4, 0, 0}, false}, {[]byte{4}, true}}},
		{"branch changes", []op{changed}, []expect{{[]byte{5, 0, 0}, true}}},
		{"all three", []op{embedded, collapsed, changed}, []expect{{[]byte{1}, false}, {[]byte{4, 0, 0}, false}, {[]byte{5, 0, 0}, true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store := newPathStore()
			root := gethCommitted(t, store, keys, values)
			gt := gethUpdated(t, store, root, c.ops)
			wantRoot, set := gt.Commit(false)
			want := gethChanges(set)
			for _, e := range c.want {
				w, ok := want[string(e.path)]
				if !ok || (w.blob != nil) != e.stored || w.prev == nil {
					t.Fatalf("go-ethereum's set at path %x is %v (present %v), not the case this test means", e.path, w, ok)
				}
			}
			tr, err := NewTrie(root, store.source())
			if err != nil {
				t.Fatal(err)
			}
			for step, o := range c.ops {
				if err := applyOp(tr, o, step); err != nil {
					t.Fatal(err)
				}
			}
			checkCommit(t, "", tr, wantRoot, want)
		})
	}
}

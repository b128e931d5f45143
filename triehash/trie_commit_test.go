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
		if got := d.restore(p) != nil; got != seen[string(p)] {
			t.Fatalf("restore(%x) found %v, want %v", p, got, seen[string(p)])
		}
	}
}

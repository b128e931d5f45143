package triehash

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// nodeSet collects onNode calls as a sorted list, for comparing the set of
// nodes independent of order.
func nodeSet(nodes []gethNode) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.String()
	}
	slices.Sort(out)
	return out
}

func TestParallelMatchesSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	type input struct {
		name         string
		keys, values [][]byte
	}
	var inputs []input
	for _, n := range []int{parallelMinKeys - 1, parallelMinKeys, 9000} {
		keys, values := randomSet(rng, n, 32, false, 100)
		inputs = append(inputs, input{"random", keys, values})
	}
	// Keys that all share the first nibble: no root branch to split on.
	keys, values := randomSet(rng, 5000, 6, false, 10)
	for i := range keys {
		keys[i][0] = 0x70 | keys[i][0]&0x0f
	}
	keys, values = dedupe(keys, values)
	inputs = append(inputs, input{"one-first-nibble", keys, values})
	// Keys of all lengths, the empty key among them.
	keys, values = randomSet(rng, 5000, 5, true, 50)
	inputs = append(inputs, input{"prefixes", keys, values})

	for _, in := range inputs {
		want := gethTrieRoot(t, in.keys, in.values)
		var wantNodes []gethNode
		for _, workers := range []int{1, 2, 3, 8} {
			var nodes []gethNode
			opts := Options{Workers: workers, OnNode: func(path []byte, hash [32]byte, blob []byte) {
				nodes = append(nodes, gethNode{bytes.Clone(path), hash, bytes.Clone(blob)})
			}}
			k, v := shuffled(rng, in.keys, in.values)
			got, err := opts.Root(k, v)
			if err != nil || got != want {
				t.Fatalf("%s, %d keys, %d workers: Root = %x, %v; want %x", in.name, len(k), workers, got, err, want)
			}
			if workers == 1 {
				wantNodes = nodes
			} else if !slices.Equal(nodeSet(nodes), nodeSet(wantNodes)) {
				t.Fatalf("%s, %d workers: %d nodes reported, one worker reports %d, or they differ", in.name, workers, len(nodes), len(wantNodes))
			}
		}
	}
}

func dedupe(keys, values [][]byte) ([][]byte, [][]byte) {
	type kv struct{ k, v []byte }
	pairs := make([]kv, len(keys))
	for i := range keys {
		pairs[i] = kv{keys[i], values[i]}
	}
	slices.SortFunc(pairs, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	pairs = slices.CompactFunc(pairs, func(a, b kv) bool { return bytes.Equal(a.k, b.k) })
	keys, values = keys[:0], values[:0]
	for _, p := range pairs {
		keys, values = append(keys, p.k), append(values, p.v)
	}
	return keys, values
}

func TestParallelErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	keys, values := randomSet(rng, 6000, 32, false, 20)
	keys = append(keys, keys[4321])
	values = append(values, []byte{1})
	for _, workers := range []int{1, 2, 8} {
		_, err := Options{Workers: workers}.Root(keys, values)
		if !errors.Is(err, ErrDuplicateKey) || !strings.Contains(err.Error(), fmt.Sprintf("%x", keys[4321])) {
			t.Errorf("%d workers, repeated key: %v", workers, err)
		}
		_, err = Options{Workers: workers}.SecureRoot(keys, values)
		if !errors.Is(err, ErrDuplicateKey) {
			t.Errorf("%d workers, SecureRoot with repeated key: %v", workers, err)
		}
	}
	values[10] = nil
	if _, err := (Options{Workers: 2}).Root(keys[:6000], values[:6000]); !errors.Is(err, ErrEmptyValue) {
		t.Errorf("empty value: %v", err)
	}
}

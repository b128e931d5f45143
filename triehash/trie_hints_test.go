package triehash

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// hintedStore is a HintedSource over a pathStore: it counts the nodes the
// trie asks for, and keeps the leaves the trie took from its values.
type hintedStore struct {
	store  *pathStore
	values map[string][]byte // by key; read-only while a trie uses it
	asked  atomic.Int64
	mu     sync.Mutex
	taken  map[string][]byte // by path
}

func newHintedStore(store *pathStore, values map[string][]byte) *hintedStore {
	return &hintedStore{store: store, values: values, taken: map[string][]byte{}}
}

func (h *hintedStore) Node(path []byte, hash [32]byte) ([]byte, error) {
	h.asked.Add(1)
	return h.store.node(path, hash)
}

func (h *hintedStore) ExpectedValue(key []byte) []byte { return h.values[string(key)] }

func (h *hintedStore) HintTaken(path, blob []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.taken[string(path)]; ok {
		panic(fmt.Sprintf("leaf at %x taken twice", path))
	}
	h.taken[string(path)] = bytes.Clone(blob)
}

// TestTrieHintedLeaves opens the same stored trie three times: without
// hints, with the right values of the keys a block changes (and values for
// keys the trie does not hold), and with wrong values for the same keys.
// Loaded every way a Trie loads (Prefetch, UpdateBatch, and the changes
// one by one), the three must commit the same root and node set. The right
// hints must spare reads, each leaf taken being the node stored at its
// path, and the nodes read and taken together be those the trie without
// hints read; wrong ones must take nothing and read what it read.
func TestTrieHintedLeaves(t *testing.T) {
	for _, kind := range keyKinds {
		for _, workers := range []int{1, 2} {
			for _, way := range []string{"prefetch", "batch", "one-by-one"} {
				t.Run(fmt.Sprintf("keys=%s/workers=%d/%s", kind.name, workers, way), func(t *testing.T) {
					testHintedLeaves(t, kind, workers, way)
				})
			}
		}
	}
}

func testHintedLeaves(t *testing.T, kind keyKind, workers int, way string) {
	rng := rand.New(rand.NewPCG(uint64(workers), uint64(len(way))))
	store := newPathStore()
	keys, values, live, root := committedKeys(t, store, kind, rng, 3000)
	stored := map[string][]byte{}
	for i := range keys {
		stored[string(keys[i])] = values[i]
	}
	ops := randomOps(rng, kind, live, 600, false)
	right, wrong := map[string][]byte{}, map[string][]byte{}
	for _, o := range ops {
		v, ok := stored[string(o.key)]
		if !ok {
			v = randomValue(rng, 40) // a key the trie does not hold
		}
		right[string(o.key)] = v
		wrong[string(o.key)] = append(slices.Clone(v), 1)
	}
	sources := map[string]*hintedStore{
		"plain": newHintedStore(store, nil),
		"right": newHintedStore(store, right),
		"wrong": newHintedStore(store, wrong),
	}
	var (
		wantRoot    [32]byte
		wantChanges map[string]change
	)
	for _, name := range []string{"plain", "right", "wrong"} {
		src := sources[name]
		tr, err := Options{Workers: workers}.NewTrie(root, src)
		if err != nil {
			t.Fatal(err)
		}
		if err := applyHinted(tr, way, ops); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		gotRoot, changes := commitChanges(t, tr)
		if name == "plain" {
			wantRoot, wantChanges = gotRoot, changes
			continue
		}
		if gotRoot != wantRoot {
			t.Fatalf("%s: root %x, without hints %x", name, gotRoot, wantRoot)
		}
		if diff := diffChanges(changes, wantChanges); diff != "" {
			t.Fatalf("%s: node set differs from the one without hints:\n%s", name, diff)
		}
	}
	plain, good, bad := sources["plain"], sources["right"], sources["wrong"]
	if len(bad.taken) != 0 || bad.asked.Load() != plain.asked.Load() {
		t.Fatalf("wrong hints: %d leaves taken, %d nodes asked for; without hints %d asked for", len(bad.taken), bad.asked.Load(), plain.asked.Load())
	}
	if got, want := good.asked.Load()+int64(len(good.taken)), plain.asked.Load(); got != want {
		t.Fatalf("right hints: %d nodes asked for and %d taken, without hints %d asked for", good.asked.Load(), len(good.taken), want)
	}
	for _, path := range slices.Sorted(maps.Keys(good.taken)) {
		if want := store.nodes[path]; !bytes.Equal(good.taken[path], want) {
			t.Fatalf("leaf taken at %x is %x, the stored node %x", path, good.taken[path], want)
		}
	}
	if len(good.taken) < len(ops)/8 { // short keys make many leaves small enough to be embedded
		t.Fatalf("right hints: %d leaves taken for %d changes: the test does not reach the guesses", len(good.taken), len(ops))
	}
}

// applyHinted applies ops to tr the given way: Prefetch of their keys then
// the changes, one UpdateBatch, or the changes alone.
func applyHinted(tr *Trie, way string, ops []op) error {
	keys, values := batchOf(ops)
	switch way {
	case "prefetch":
		if err := tr.Prefetch(keys); err != nil {
			return err
		}
	case "batch":
		return tr.UpdateBatch(keys, values)
	}
	for step, o := range ops {
		if err := applyOp(tr, o, step); err != nil {
			return err
		}
	}
	return nil
}

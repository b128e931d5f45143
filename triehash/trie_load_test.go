package triehash

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb/database"
)

// askedPaths records the paths a trie asks its store for.
type askedPaths struct {
	store *pathStore
	paths []string
}

func (a *askedPaths) NodeReader(common.Hash) (database.NodeReader, error) { return a, nil }

// Node serves go-ethereum.
func (a *askedPaths) Node(_ common.Hash, path []byte, hash common.Hash) ([]byte, error) {
	return a.ask(path, hash)
}

func (a *askedPaths) ask(path []byte, hash [32]byte) ([]byte, error) {
	a.paths = append(a.paths, string(path))
	return a.store.node(path, hash)
}

// take returns the paths asked for since the last take.
func (a *askedPaths) take() []string {
	paths := slices.Clone(a.paths)
	a.paths = a.paths[:0]
	return paths
}

// TestTrieLoadsWhatGethLoads applies random changes and reads to a Trie and
// to go-ethereum's trie.Trie, both opened over the same committed nodes,
// and checks after each that the Trie asked its store for no node that
// go-ethereum did not: loading a key's way down in one go (loadPath) asks
// for nothing that a walk down the key would not load. The Trie may ask for
// less, since it keeps what a change that changes nothing loaded (a
// deletion of a key that is not there), where go-ethereum drops it.
func TestTrieLoadsWhatGethLoads(t *testing.T) {
	for _, kind := range keyKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(9, 10))
			store := newPathStore()
			_, _, live, root := committedKeys(t, store, kind, rng, 3000)
			ours, theirs := &askedPaths{store: store}, &askedPaths{store: store}
			tr, err := NewTrie(root, sourceFunc(ours.ask))
			if err != nil {
				t.Fatal(err)
			}
			gt, err := trie.New(trie.TrieID(common.Hash(root)), theirs)
			if err != nil {
				t.Fatal(err)
			}
			ours.take()
			theirs.take()
			loads := 0
			for step, o := range randomOps(rng, kind, live, 1500, false) {
				if step%3 == 0 {
					if _, err := tr.Get(o.key); err != nil {
						t.Fatal(err)
					}
					if _, err := gt.Get(o.key); err != nil {
						t.Fatal(err)
					}
				} else {
					if err := applyOp(tr, o, step); err != nil {
						t.Fatal(err)
					}
					if err := applyOp(gt, o, step); err != nil {
						t.Fatal(err)
					}
				}
				got, want := ours.take(), theirs.take()
				for _, path := range got {
					if !slices.Contains(want, path) {
						t.Fatalf("step %d (key %x): asked for path %x; go-ethereum asked for %x", step, o.key, path, want)
					}
				}
				if len(got) != len(slices.Compact(slices.Sorted(slices.Values(got)))) {
					t.Fatalf("step %d (key %x): asked for a path twice: %x", step, o.key, got)
				}
				loads += len(got)
			}
			if loads < 500 {
				t.Fatalf("only %d loads in 1,500 steps: the test does not reach the store", loads)
			}
			if got, want := tr.Hash(), gt.Hash(); got != [32]byte(want) {
				t.Fatalf("root %x, go-ethereum %x", got, want)
			}
		})
	}
}

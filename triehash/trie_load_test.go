package triehash

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
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

// TestTrieLoadPathFailsMidway takes away a node two levels below the first
// node a key's way loads, so that loading the way fails after it has read
// the nodes above: Get, Update and Delete each report the missing node by
// its path and hash, leave the trie as it was (its root, and no node of
// the way linked in), and succeed once the source has the node again.
func TestTrieLoadPathFailsMidway(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	store := newPathStore()
	keys, _, _, root := committedKeys(t, store, keyKinds[0], rng, 3000)
	key := keys[0]
	k := keyNibbles(key)
	missing := string(k[:3])
	blob, ok := store.nodes[missing]
	if !ok {
		t.Fatalf("no node at path %x: the trie is too shallow for the test", k[:3])
	}
	hidden := true
	src := sourceFunc(func(path []byte, hash [32]byte) ([]byte, error) {
		if hidden && string(path) == missing {
			return nil, nil
		}
		return store.node(path, hash)
	})
	tr, err := NewTrie(root, src)
	if err != nil {
		t.Fatal(err)
	}
	wantHash := crypto.Keccak256Hash(blob)
	for name, call := range map[string]func() error{
		"Get":    func() error { _, err := tr.Get(key); return err },
		"Update": func() error { return tr.Update(key, []byte{1}) },
		"Delete": func() error { return tr.Delete(key) },
	} {
		var miss *MissingNodeError
		if err := call(); !errors.As(err, &miss) || string(miss.Path) != missing || miss.Hash != wantHash {
			t.Fatalf("%s with node %x missing: %v", name, k[:3], err)
		}
		if _, ok := tr.root.(*fullNode).children[k[0]].(*hashNode); !ok {
			t.Fatalf("%s failed but left the way's first node linked in", name)
		}
		if got := tr.Hash(); got != root {
			t.Fatalf("%s failed but moved the root to %x", name, got)
		}
	}
	hidden = false
	if v, err := tr.Get(key); err != nil || v == nil {
		t.Fatalf("Get once the node is back: %x, %v", v, err)
	}
	if got := tr.Hash(); got != root {
		t.Fatalf("root %x after Get, want %x", got, root)
	}
}

package triehash

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// op is one change: a value to store, or nil to delete.
type op struct {
	key, value []byte
}

// randomOps returns a block's worth of changes to the trie of live keys:
// about 80% updates of live keys, 15% new keys and 5% deletions, plus a few
// deletions of keys that are not there. With all set, every live key is
// deleted.
func randomOps(rng *rand.Rand, kind keyKind, live map[string]bool, n int, all bool) []op {
	var keys [][]byte
	for k := range live {
		keys = append(keys, []byte(k))
	}
	// Map order is random per run; sort for a reproducible sequence.
	slices.SortFunc(keys, bytes.Compare)
	var ops []op
	if all {
		for _, k := range keys {
			ops = append(ops, op{key: k})
		}
		rng.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
		return ops
	}
	fresh := kind.make(rng, n/6+1)
	for range n {
		switch r := rng.IntN(100); {
		case r < 80 && len(keys) > 0:
			ops = append(ops, op{keys[rng.IntN(len(keys))], randomValue(rng, 40)})
		case r < 95 && len(fresh) > 0:
			ops = append(ops, op{fresh[0], randomValue(rng, 40)})
			fresh = fresh[1:]
		case r < 99 && len(keys) > 0:
			ops = append(ops, op{key: keys[rng.IntN(len(keys))]})
		default:
			ops = append(ops, op{key: kind.make(rng, 1)[0]}) // most likely absent
		}
	}
	return ops
}

// applyOp applies o to a trie through Update (or Delete for a nil value on
// odd steps, to use both).
func applyOp(tr interface {
	Update(k, v []byte) error
	Delete(k []byte) error
}, o op, step int) error {
	if o.value == nil && step%2 == 1 {
		return tr.Delete(o.key)
	}
	return tr.Update(o.key, o.value)
}

// TestTrieMatchesGeth applies rounds of random changes to a go-ethereum
// trie.Trie, reopened at each committed root, and to two Tries: one kept
// open across rounds, one opened afresh each round. After every round the
// roots, the values and the committed node sets (additions, deletions and
// origins, path by path) must be the same.
func TestTrieMatchesGeth(t *testing.T) {
	for _, kind := range keyKinds {
		for _, workers := range []int{1, 2, 8} {
			t.Run(fmt.Sprintf("keys=%s/workers=%d", kind.name, workers), func(t *testing.T) {
				testTrieRounds(t, kind, workers, 12)
			})
		}
	}
}

func testTrieRounds(t *testing.T, kind keyKind, workers, rounds int) {
	rng := rand.New(rand.NewPCG(uint64(workers), uint64(len(kind.name))))
	store := newPathStore()
	_, _, live, root := committedKeys(t, store, kind, rng, 1500)
	opts := Options{Workers: workers}
	kept, err := opts.NewTrie(root, store.source())
	if err != nil {
		t.Fatal(err)
	}
	deletions := 0
	for round := range rounds {
		gt, err := trie.New(trie.TrieID(common.Hash(root)), store)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := opts.NewTrie(root, store.source())
		if err != nil {
			t.Fatal(err)
		}
		n := []int{10, 300, 1000}[round%3]
		ops := randomOps(rng, kind, live, n, round == rounds-2)
		for step, o := range ops {
			for _, tr := range []interface {
				Update(k, v []byte) error
				Delete(k []byte) error
			}{gt, kept, fresh} {
				if err := applyOp(tr, o, step); err != nil {
					t.Fatalf("round %d step %d: %v", round, step, err)
				}
			}
			if o.value == nil {
				delete(live, string(o.key))
			} else {
				live[string(o.key)] = true
			}
			if step%97 == 0 {
				want := gt.Hash()
				if got := kept.Hash(); got != want {
					t.Fatalf("round %d step %d: kept trie's root %x, want %x", round, step, got, want)
				}
			}
		}
		checkPendingPaths(t, fmt.Sprintf("round %d, kept trie", round), kept)
		checkPendingPaths(t, fmt.Sprintf("round %d, fresh trie", round), fresh)
		wantRoot, set, deleted := commitRound(t, round, gt, map[string]*Trie{"kept": kept, "fresh": fresh}, ops)
		deletions += deleted
		if round == rounds-2 && wantRoot != EmptyRoot {
			t.Fatalf("round %d deleted every key, root %x", round, wantRoot)
		}
		store.apply(set)
		root = wantRoot
	}
	if deletions == 0 {
		t.Fatal("no round deleted a stored node: the test does not cover deletions")
	}
}

// TestTrieCommitOrderAnyWorkers commits the same changes with one worker,
// which walks the changed nodes on the calling goroutine, and with two and
// eight, which share out the root's subtrees: the changes must come out
// the same, in the same order.
func TestTrieCommitOrderAnyWorkers(t *testing.T) {
	for _, kind := range keyKinds {
		t.Run("keys="+kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(kind.name))))
			store := newPathStore()
			_, _, live, root := committedKeys(t, store, kind, rng, 1500)
			ops := randomOps(rng, kind, live, 1000, false)
			var streams [][]string
			for _, workers := range []int{1, 2, 8} {
				tr, err := Options{Workers: workers}.NewTrie(root, store.source())
				if err != nil {
					t.Fatal(err)
				}
				for step, o := range ops {
					if err := applyOp(tr, o, step); err != nil {
						t.Fatal(err)
					}
				}
				var stream []string
				if _, err := tr.CommitChanges(func(path []byte, hash [32]byte, blob, prev []byte) {
					stream = append(stream, fmt.Sprintf("%x %x %x %x", path, hash, blob, prev))
				}); err != nil {
					t.Fatal(err)
				}
				streams = append(streams, stream)
			}
			if len(streams[0]) < parallelMinPending {
				t.Fatalf("%d changes committed: too few for the workers to share out", len(streams[0]))
			}
			for i, workers := range []int{2, 8} {
				if !slices.Equal(streams[0], streams[i+1]) {
					t.Errorf("%d workers: the committed changes differ from one worker's", workers)
				}
			}
		})
	}
}

// TestTrieEmpty covers the empty trie: opened from the zero hash or
// EmptyRoot with no source, filled and emptied again.
func TestTrieEmpty(t *testing.T) {
	for _, root := range [][32]byte{{}, EmptyRoot} {
		tr, err := NewTrie(root, nil)
		if err != nil {
			t.Fatal(err)
		}
		if h := tr.Hash(); h != EmptyRoot {
			t.Fatalf("empty trie hash %x", h)
		}
		if v, err := tr.Get([]byte("a")); v != nil || err != nil {
			t.Fatalf("Get on an empty trie: %x, %v", v, err)
		}
		if err := tr.Update([]byte("a"), []byte("b")); err != nil {
			t.Fatal(err)
		}
		if h := tr.Hash(); h == EmptyRoot {
			t.Fatal("hash unchanged by Update")
		}
		if err := tr.Delete([]byte("a")); err != nil {
			t.Fatal(err)
		}
		if h := tr.Hash(); h != EmptyRoot {
			t.Fatalf("hash after deleting the one key: %x", h)
		}
	}
	if _, err := NewTrie([32]byte{1}, nil); !errors.Is(err, ErrMissingNode) {
		t.Fatalf("NewTrie of a root without a source: %v", err)
	}
}

// TestTrieMissingNodes opens a trie over a store with nodes taken away and
// applies changes: each change that needs a missing node fails with an
// error naming its path and hash, and leaves the trie as it was; the root
// and node set after the changes that succeed match go-ethereum's.
func TestTrieMissingNodes(t *testing.T) {
	for _, kind := range keyKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			root, _, live, full, partial := partialTrie(t, kind, rng)
			removed := len(full.nodes) - len(partial.nodes)
			tr, err := Options{Workers: 1}.NewTrie(root, partial.source())
			if err != nil {
				t.Fatal(err)
			}
			gt, err := trie.New(trie.TrieID(common.Hash(root)), full)
			if err != nil {
				t.Fatal(err)
			}
			failed := 0
			for step, o := range randomOps(rng, kind, live, 600, false) {
				before := tr.Hash()
				err := applyOp(tr, o, step)
				if err != nil {
					var missing *MissingNodeError
					if !errors.As(err, &missing) {
						t.Fatalf("step %d: error %v is not a MissingNodeError", step, err)
					}
					if _, gone := full.nodes[string(missing.Path)]; !gone || partial.nodes[string(missing.Path)] != nil {
						t.Fatalf("step %d: error names path %x, which is not a removed node", step, missing.Path)
					}
					if after := tr.Hash(); after != before {
						t.Fatalf("step %d: failed change moved the root from %x to %x", step, before, after)
					}
					failed++
					continue
				}
				if err := applyOp(gt, o, step); err != nil {
					t.Fatal(err)
				}
			}
			if failed == 0 {
				t.Fatalf("no change needed one of the %d removed nodes", removed)
			}
			wantRoot, set := gt.Commit(false)
			checkCommit(t, "", tr, wantRoot, gethChanges(set))
		})
	}
}

// TestTrieInvalidNode serves a node that does not decode: the error names
// its path, and nothing panics.
func TestTrieInvalidNode(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	store := newPathStore()
	keys, _, _, root := committedKeys(t, store, keyKinds[0], rng, 100)
	bad := map[string][]byte{}
	for path, blob := range store.nodes {
		if len(path) == 1 {
			bad[path] = blob[:len(blob)-1]
		}
	}
	src := sourceFunc(func(path []byte, hash [32]byte) ([]byte, error) {
		if blob, ok := bad[string(path)]; ok {
			return blob, nil
		}
		return store.node(path, hash)
	})
	tr, err := NewTrie(root, src)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.Get(keys[0])
	var invalid *InvalidNodeError
	if !errors.As(err, &invalid) || !errors.Is(err, ErrInvalidNode) || len(invalid.Path) != 1 {
		t.Fatalf("Get through a truncated node: %v", err)
	}
}

// sourceFunc is a NodeSource from a function.
type sourceFunc func(path []byte, hash [32]byte) ([]byte, error)

func (f sourceFunc) Node(path []byte, hash [32]byte) ([]byte, error) { return f(path, hash) }

// TestTrieKeyTooLong: a key over MaxKeyLength is an error in every method.
func TestTrieKeyTooLong(t *testing.T) {
	tr, _ := NewTrie(EmptyRoot, nil)
	long := make([]byte, MaxKeyLength+1)
	if err := tr.Update(long, []byte{1}); !errors.Is(err, ErrKeyTooLong) {
		t.Errorf("Update: %v", err)
	}
	if err := tr.Delete(long); !errors.Is(err, ErrKeyTooLong) {
		t.Errorf("Delete: %v", err)
	}
	if _, err := tr.Get(long); !errors.Is(err, ErrKeyTooLong) {
		t.Errorf("Get: %v", err)
	}
}

// TestTrieLongValues stores values around the sizes where a branch's list
// header grows (56 bytes, 256 bytes, 64 KiB) in a branch's value slot and
// in leaves, against go-ethereum.
func TestTrieLongValues(t *testing.T) {
	gt := trie.NewEmpty(nil)
	tr, _ := NewTrie(EmptyRoot, nil)
	for i, size := range []int{1, 20, 55, 56, 200, 255, 256, 300, 65535 - 16*33, 65536, 70000} {
		value := bytes.Repeat([]byte{byte(i + 1)}, size)
		for _, key := range [][]byte{{0x12}, {0x12, byte(i)}, {0x12, byte(i), 0x34}} {
			if err := gt.Update(key, value); err != nil {
				t.Fatal(err)
			}
			if err := tr.Update(key, value); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := tr.Hash(), gt.Hash(); got != want {
			t.Fatalf("values of %d bytes: root %x, go-ethereum %x", size, got, want)
		}
	}
}

// TestVerifyingSource: a source that serves another node than the one
// asked for is caught by VerifyingSource, and trusted without it.
func TestVerifyingSource(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	store := newPathStore()
	keys, values, _, root := committedKeys(t, store, keyKinds[0], rng, 200)
	var other []byte
	for path, blob := range store.nodes {
		if len(path) == 2 {
			other = blob
			break
		}
	}
	swapped := sourceFunc(func(path []byte, hash [32]byte) ([]byte, error) {
		if len(path) == 1 {
			return other, nil // a node, but not this one
		}
		return store.node(path, hash)
	})
	tr, err := NewTrie(root, VerifyingSource(swapped))
	if err != nil {
		t.Fatal(err)
	}
	var missing *MissingNodeError
	if _, err := tr.Get(keys[0]); !errors.As(err, &missing) || !errors.Is(err, errWrongNode) || len(missing.Path) != 1 {
		t.Fatalf("Get through a swapped node: %v", err)
	}
	// Prefetch and UpdateBatch check the nodes they load together in
	// batches: the same error, for the first key in order. Every key
	// passes a node at depth 1, all swapped.
	batchKeys := keys[:2*batchMinKeys]
	for name, load := range map[string]func(tr *Trie) error{
		"Prefetch":    func(tr *Trie) error { return tr.Prefetch(batchKeys) },
		"UpdateBatch": func(tr *Trie) error { return tr.UpdateBatch(batchKeys, values[:len(batchKeys)]) },
	} {
		tr, err := NewTrie(root, VerifyingSource(swapped))
		if err != nil {
			t.Fatal(err)
		}
		if err := load(tr); !errors.As(err, &missing) || !errors.Is(err, errWrongNode) || len(missing.Path) != 1 || !strings.Contains(err.Error(), "key 0:") {
			t.Fatalf("%s through swapped nodes: %v", name, err)
		}
		// Without the check the swapped nodes are taken: an error, if
		// any, comes from below them.
		tr, err = NewTrie(root, swapped)
		if err != nil {
			t.Fatal(err)
		}
		if err := load(tr); errors.As(err, &missing) && len(missing.Path) == 1 {
			t.Fatalf("%s through swapped nodes without VerifyingSource: %v", name, err)
		}
	}
	// A node swapped deeper on the path, below nodes that are right: the
	// path's nodes are checked together, and the error names the deep one.
	var depth2 [][]byte
	for path, blob := range store.nodes {
		if len(path) == 2 && len(depth2) < 2 {
			depth2 = append(depth2, blob)
		}
	}
	swappedDeep := sourceFunc(func(path []byte, hash [32]byte) ([]byte, error) {
		if len(path) == 2 {
			for _, blob := range depth2 {
				if fastkeccak.Sum256(blob) != hash {
					return blob, nil
				}
			}
		}
		return store.node(path, hash)
	})
	tr, err = NewTrie(root, VerifyingSource(swappedDeep))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Get(keys[0]); !errors.As(err, &missing) || !errors.Is(err, errWrongNode) || len(missing.Path) != 2 {
		t.Fatalf("Get through a node swapped at depth 2: %v", err)
	}
	tr, err = NewTrie(root, VerifyingSource(store.source()))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tr.Get(keys[0]); err != nil || !bytes.Equal(got, values[0]) {
		t.Fatalf("Get through a verified source: %x, %v", got, err)
	}
	if err := tr.UpdateBatch(keys, values); err != nil || tr.Hash() != root {
		t.Fatalf("UpdateBatch of the same values through a verified source: %v, root %x, want %x", err, tr.Hash(), root)
	}
}

// TestTrieRejectsEmptyExtension: a stored extension with an empty path,
// pointing back at itself through a source that files it under its
// child's hash, is an invalid node, not an endless walk.
func TestTrieRejectsEmptyExtension(t *testing.T) {
	var self [32]byte
	self[0] = 0x42
	// [compact "" (0x00), 32-byte hash self]
	blob := append([]byte{0xe2, 0x00, 0xa0}, self[:]...)
	src := sourceFunc(func([]byte, [32]byte) ([]byte, error) { return blob, nil })
	_, err := NewTrie(self, src)
	if !errors.Is(err, ErrInvalidNode) || !errors.Is(err, errEmptyPath) {
		t.Fatalf("NewTrie over an empty-path extension: %v", err)
	}
}

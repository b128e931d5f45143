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
)

// batchOf splits ops into UpdateBatch's keys and values.
func batchOf(ops []op) (keys, values [][]byte) {
	for _, o := range ops {
		keys = append(keys, o.key)
		values = append(values, o.value)
	}
	return keys, values
}

// gethUpdated opens go-ethereum's trie at root over store and applies ops
// to it one by one.
func gethUpdated(t *testing.T, store *pathStore, root [32]byte, ops []op) *trie.Trie {
	t.Helper()
	gt, err := trie.New(trie.TrieID(common.Hash(root)), store)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range ops {
		if err := gt.Update(o.key, o.value); err != nil {
			t.Fatal(err)
		}
	}
	return gt
}

// TestTrieBatchMatchesGeth is TestTrieMatchesGeth with each round's changes
// applied by one UpdateBatch (after a Prefetch of their keys on odd rounds,
// after a third of them applied one by one on some, before a quarter of
// them on others) to a Trie kept open
// and to one opened afresh, and one by one to
// go-ethereum's trie.Trie. The rounds change the same key more than once,
// delete keys whose branches then collapse, and delete everything; roots,
// values and committed node sets must be go-ethereum's. go-ethereum's own
// UpdateBatch must reach the same root.
func TestTrieBatchMatchesGeth(t *testing.T) {
	for _, kind := range keyKinds {
		for _, workers := range []int{1, 2, 8} {
			t.Run(fmt.Sprintf("keys=%s/workers=%d", kind.name, workers), func(t *testing.T) {
				testBatchRounds(t, kind, workers, 9)
			})
		}
	}
}

func testBatchRounds(t *testing.T, kind keyKind, workers, rounds int) {
	rng := rand.New(rand.NewPCG(uint64(workers), 14))
	store := newPathStore()
	_, _, live, root := committedKeys(t, store, kind, rng, 1500)
	opts := Options{Workers: workers}
	kept, err := opts.NewTrie(root, store.source())
	if err != nil {
		t.Fatal(err)
	}
	duplicates, deletions, bySubtree := 0, 0, 0
	for round := range rounds {
		gt, err := trie.New(trie.TrieID(common.Hash(root)), store)
		if err != nil {
			t.Fatal(err)
		}
		gethBatch, err := trie.New(trie.TrieID(common.Hash(root)), store)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := opts.NewTrie(root, store.source())
		if err != nil {
			t.Fatal(err)
		}
		n := []int{10, 300, 1000}[round%3]
		ops := randomOps(rng, kind, live, n, round == rounds-2)
		seen := map[string]bool{}
		for _, o := range ops {
			if seen[string(o.key)] {
				duplicates++
			}
			seen[string(o.key)] = true
			if err := gt.Update(o.key, o.value); err != nil {
				t.Fatal(err)
			}
			if o.value == nil {
				delete(live, string(o.key))
			} else {
				live[string(o.key)] = true
			}
		}
		bk, bv := batchOf(ops)
		for name, tr := range map[string]*Trie{"kept": kept, "fresh": fresh} {
			if round%2 == 1 {
				if err := tr.Prefetch(bk); err != nil {
					t.Fatalf("round %d: %s Prefetch: %v", round, name, err)
				}
			}
			// Some rounds change a third of the keys one by one first,
			// so that the batch meets nodes changed and not yet hashed,
			// and some a quarter after it, so that changes meet the
			// nodes the batch hashed.
			first, last := 0, len(bk)
			switch round % 4 {
			case 2:
				first = len(bk) / 3
			case 1:
				last = len(bk) - len(bk)/4
			}
			for i := range first {
				if err := tr.Update(bk[i], bv[i]); err != nil {
					t.Fatal(err)
				}
			}
			split, err := tr.updateBatch(bk[first:last], bv[first:last])
			if err != nil {
				t.Fatalf("round %d: %s UpdateBatch: %v", round, name, err)
			}
			if split {
				bySubtree++
			}
			for i := last; i < len(bk); i++ {
				if err := tr.Update(bk[i], bv[i]); err != nil {
					t.Fatal(err)
				}
			}
			checkPendingPaths(t, fmt.Sprintf("round %d, %s trie", round, name), tr)
		}
		if err := gethBatch.UpdateBatch(bk, bv); err != nil {
			t.Fatal(err)
		}
		wantRoot, set, deleted := commitRound(t, round, gt, map[string]*Trie{"kept": kept, "fresh": fresh}, ops)
		deletions += deleted
		if r := gethBatch.Hash(); r != wantRoot {
			t.Fatalf("round %d: go-ethereum's UpdateBatch root %x, its Update %x", round, r, wantRoot)
		}
		if round == rounds-2 && wantRoot != EmptyRoot {
			t.Fatalf("round %d deleted every key, root %x", round, wantRoot)
		}
		store.apply(set)
		root = wantRoot
	}
	if bySubtree == 0 {
		t.Fatal("no batch was applied subtree by subtree")
	}
	if deletions == 0 || duplicates == 0 {
		t.Fatalf("%d stored nodes deleted, %d keys changed twice in a batch: the test does not cover both", deletions, duplicates)
	}
}

// failingSource fails every load: a trie switched to it shows which
// loads a step still needs.
var failingSource = sourceFunc(func(path []byte, hash [32]byte) ([]byte, error) {
	return nil, errors.New("no loads after the prefetch")
})

// TestTrieBatchLoadsAhead: after the prefetch of a batch with many
// deletions (branches collapsing, keys inserted and deleted again), every
// node its changes need is in memory: UpdateBatch then succeeds with a
// source that fails every load, and matches a loop of Update. Prefetching
// the keys' paths alone (as Prefetch does) leaves some deletions without
// the node they merge with, so the test sees a prefetch that misses them.
func TestTrieBatchLoadsAhead(t *testing.T) {
	for _, kind := range keyKinds {
		for _, workers := range []int{1, 2, 8} {
			t.Run(fmt.Sprintf("keys=%s/workers=%d", kind.name, workers), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(8, uint64(workers)))
				store := newPathStore()
				keys, _, _, root := committedKeys(t, store, kind, rng, 600)
				pathsOnly, bySubtree := 0, 0
				for trial := range 60 {
					var ops []op
					fresh := kind.make(rng, 100)
					for range 20 + rng.IntN(300) {
						switch r := rng.IntN(10); {
						case r < 4:
							ops = append(ops, op{keys[rng.IntN(len(keys))], randomValue(rng, 40)})
						case r < 6:
							k := fresh[rng.IntN(len(fresh))]
							ops = append(ops, op{k, randomValue(rng, 40)})
							if rng.IntN(2) == 0 {
								ops = append(ops, op{key: k}) // and gone again
							}
						default:
							ops = append(ops, op{key: keys[rng.IntN(len(keys))]})
						}
					}
					bk, bv := batchOf(ops)
					ref, _ := NewTrie(root, store.source())
					for _, o := range ops {
						if err := ref.Update(o.key, o.value); err != nil {
							t.Fatal(err)
						}
					}
					for _, full := range []bool{true, false} {
						tr, err := Options{Workers: workers}.NewTrie(root, store.source())
						if err != nil {
							t.Fatal(err)
						}
						ahead := bv
						if !full {
							ahead = nil
						}
						if _, i, err := tr.prefetch(bk, ahead); err != nil {
							t.Fatalf("trial %d: prefetch key %d: %v", trial, i, err)
						}
						tr.src = failingSource
						split, err := tr.updateBatch(bk, bv)
						if split {
							bySubtree++
						}
						switch {
						case full && err != nil:
							t.Fatalf("trial %d: a change needs a load after the prefetch: %v", trial, err)
						case full && tr.Hash() != ref.Hash():
							t.Fatalf("trial %d: root %x, a loop of Update's %x", trial, tr.Hash(), ref.Hash())
						case !full && err != nil:
							pathsOnly++
						}
					}
				}
				if pathsOnly == 0 {
					t.Fatal("no deletion needed more than its path: the test does not cover the loads ahead")
				}
				if bySubtree == 0 {
					t.Fatal("no batch was applied subtree by subtree")
				}
			})
		}
	}
}

// TestTriePrefetchMissingNodes: over a store with nodes taken away,
// Prefetch reports the error of the first key, in order, whose Get fails,
// for every number of workers, and changes nothing that Hash, Commit or
// Get show.
func TestTriePrefetchMissingNodes(t *testing.T) {
	for _, kind := range keyKinds {
		for _, workers := range []int{1, 2, 8} {
			t.Run(fmt.Sprintf("keys=%s/workers=%d", kind.name, workers), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(9, uint64(workers)))
				root, keys, _, _, partial := partialTrie(t, kind, rng)
				failed := 0
				for trial := range 40 {
					batch := make([][]byte, 10+rng.IntN(100))
					for i := range batch {
						batch[i] = keys[rng.IntN(len(keys))]
					}
					// The reference: Get key by key on a trie of its own.
					ref, _ := NewTrie(root, partial.source())
					wantAt, wantErr := -1, error(nil)
					for i, k := range batch {
						if _, err := ref.Get(k); err != nil {
							wantAt, wantErr = i, err
							break
						}
					}
					tr, err := Options{Workers: workers}.NewTrie(root, partial.source())
					if err != nil {
						t.Fatal(err)
					}
					if err := tr.Update(keys[0], []byte("changed")); err != nil && !errors.Is(err, ErrMissingNode) {
						t.Fatal(err)
					}
					before := tr.Hash()
					err = tr.Prefetch(batch)
					if wantErr == nil {
						if err != nil {
							t.Fatalf("trial %d: Prefetch: %v, but every Get succeeds", trial, err)
						}
						continue
					}
					failed++
					var got, want *MissingNodeError
					if !errors.As(err, &got) || !errors.As(wantErr, &want) {
						t.Fatalf("trial %d: Prefetch error %v, want a MissingNodeError like %v", trial, err, wantErr)
					}
					if !strings.Contains(err.Error(), fmt.Sprintf("key %d:", wantAt)) || !bytes.Equal(got.Path, want.Path) || got.Hash != want.Hash {
						t.Fatalf("trial %d: Prefetch error %v, want key %d: %v", trial, err, wantAt, wantErr)
					}
					if after := tr.Hash(); after != before {
						t.Fatalf("trial %d: failed Prefetch moved the root from %x to %x", trial, before, after)
					}
					for i, k := range batch[:wantAt] {
						if _, err := tr.Get(k); err != nil {
							t.Fatalf("trial %d: Get of key %d, before the failing one: %v", trial, i, err)
						}
					}
				}
				if failed == 0 {
					t.Fatal("no Prefetch met a missing node")
				}
			})
		}
	}
}

// TestTrieUpdateBatchMissingNodes: over a store with nodes taken away,
// UpdateBatch stops at the same change as a loop of Update does, with the
// same error, and leaves the trie as that loop does: the changes before
// applied, the rest not. The batches after a failure carry on with the
// changes after the failing one; at the end the root and node set are
// go-ethereum's for the changes that succeeded.
func TestTrieUpdateBatchMissingNodes(t *testing.T) {
	for _, kind := range keyKinds {
		for _, workers := range []int{1, 2, 8} {
			t.Run(fmt.Sprintf("keys=%s/workers=%d", kind.name, workers), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(10, uint64(workers)))
				root, _, live, full, partial := partialTrie(t, kind, rng)
				tr, err := Options{Workers: workers}.NewTrie(root, partial.source())
				if err != nil {
					t.Fatal(err)
				}
				loop, _ := NewTrie(root, partial.source())
				gt, err := trie.New(trie.TrieID(common.Hash(root)), full)
				if err != nil {
					t.Fatal(err)
				}
				failed := 0
				rest := randomOps(rng, kind, live, 600, false)
				for len(rest) > 0 {
					bk, bv := batchOf(rest)
					err := tr.UpdateBatch(bk, bv)
					// The reference: a loop of Update.
					at, wantErr := len(rest), error(nil)
					for i, o := range rest {
						if wantErr = loop.Update(o.key, o.value); wantErr != nil {
							at = i
							break
						}
					}
					for _, o := range rest[:at] {
						if err := gt.Update(o.key, o.value); err != nil {
							t.Fatal(err)
						}
					}
					if got, want := tr.Hash(), loop.Hash(); got != want {
						t.Fatalf("after a batch of %d failing at %d (%v): root %x, a loop of Update's %x", len(rest), at, err, got, want)
					}
					if wantErr == nil {
						if err != nil {
							t.Fatalf("UpdateBatch: %v, but every Update succeeds", err)
						}
						break
					}
					failed++
					var got, want *MissingNodeError
					if !errors.As(err, &got) || !errors.As(wantErr, &want) || !bytes.Equal(got.Path, want.Path) || got.Hash != want.Hash ||
						!strings.Contains(err.Error(), fmt.Sprintf("key %d:", at)) {
						t.Fatalf("UpdateBatch error %v, want key %d: %v", err, at, wantErr)
					}
					rest = rest[at+1:]
				}
				if failed == 0 {
					t.Fatal("no change needed a removed node")
				}
				wantRoot, set := gt.Commit(false)
				checkCommit(t, "", tr, wantRoot, gethChanges(set))
			})
		}
	}
}

// TestTrieBatchBadInput: keys and values of different lengths, and a key
// over MaxKeyLength anywhere in the batch, are errors before anything
// changes or loads.
func TestTrieBatchBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	store := newPathStore()
	keys, _, _, root := committedKeys(t, store, keyKinds[0], rng, 100)
	tr, err := Options{Workers: 2}.NewTrie(root, store.source())
	if err != nil {
		t.Fatal(err)
	}
	tr.src = failingSource // nothing may load
	long := make([]byte, MaxKeyLength+1)
	changed := make([][]byte, len(keys))
	for i := range changed {
		changed[i] = []byte{1}
	}
	if err := tr.UpdateBatch(keys, changed[1:]); !errors.Is(err, ErrLengthMismatch) {
		t.Errorf("UpdateBatch with a value short: %v", err)
	}
	withLong := append(keys[:len(keys):len(keys)], long)
	if err := tr.UpdateBatch(withLong, append(changed, []byte{1})); !errors.Is(err, ErrKeyTooLong) || !strings.Contains(err.Error(), fmt.Sprintf("key %d:", len(keys))) {
		t.Errorf("UpdateBatch with a long last key: %v", err)
	}
	if err := tr.Prefetch(withLong); !errors.Is(err, ErrKeyTooLong) {
		t.Errorf("Prefetch with a long last key: %v", err)
	}
	if got := tr.Hash(); got != root {
		t.Fatalf("rejected batches moved the root to %x", got)
	}
	if err := tr.UpdateBatch(nil, nil); err != nil {
		t.Errorf("empty batch: %v", err)
	}
	if err := tr.Prefetch(nil); err != nil {
		t.Errorf("empty Prefetch: %v", err)
	}
}

// TestTrieBatchShapes covers the roots a batch splits below: an empty
// trie, a single leaf, an extension root (keys sharing a first byte) and
// keys that leave that extension, against go-ethereum.
func TestTrieBatchShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, shape := range []string{"empty", "leaf", "extension", "below-extension"} {
		for _, workers := range []int{1, 2, 8} {
			t.Run(fmt.Sprintf("%s/workers=%d", shape, workers), func(t *testing.T) {
				store := newPathStore()
				var keys, values [][]byte
				switch shape {
				case "leaf":
					keys, values = [][]byte{{0xab, 1}}, [][]byte{{1}}
				case "extension", "below-extension":
					for i := range 300 {
						keys = append(keys, []byte{0xab, byte(i), byte(i >> 8), byte(rng.Uint32())})
						values = append(values, randomValue(rng, 40))
					}
				}
				root := gethCommitted(t, store, keys, values)
				var ops []op
				for i := range 200 {
					k := []byte{0xab, byte(rng.IntN(300)), byte(rng.IntN(2)), byte(rng.Uint32())}
					switch below := shape == "below-extension"; {
					case below && i%5 == 0:
						ops = append(ops, op{key: keys[rng.IntN(len(keys))]})
						continue
					case below:
					case i%7 == 0:
						k = []byte{byte(rng.Uint32()), 2} // leaves the extension
					case i%5 == 0 && len(keys) > 0:
						ops = append(ops, op{key: keys[rng.IntN(len(keys))]})
						continue
					case i%11 == 0:
						k = []byte{0xab} // ends inside the extension
					}
					ops = append(ops, op{k, randomValue(rng, 40)})
				}
				gt := gethUpdated(t, store, root, ops)
				tr, err := Options{Workers: workers}.NewTrie(root, store.source())
				if err != nil {
					t.Fatal(err)
				}
				bk, bv := batchOf(ops)
				if err := tr.Prefetch(bk); err != nil {
					t.Fatal(err)
				}
				split, err := tr.updateBatch(bk, bv)
				if err != nil {
					t.Fatal(err)
				}
				if shape == "below-extension" && workers > 1 && !split {
					t.Fatal("the batch below the extension root was not applied subtree by subtree")
				}
				wantRoot, set := gt.Commit(false)
				checkCommit(t, "", tr, wantRoot, gethChanges(set))
			})
		}
	}
}

// TestTrieBatchRootCollapse: a batch that empties one of the root's two
// subtrees and then grows a third one collapses the root on the way, when
// applied in order: the other subtree's leaf merges into the root and is
// split off again, so go-ethereum's node set stores it anew. UpdateBatch
// must see that the order matters and match it, for every worker count.
func TestTrieBatchRootCollapse(t *testing.T) {
	for _, workers := range []int{1, 2, 8} {
		for _, growFirst := range []bool{false, true} {
			t.Run(fmt.Sprintf("workers=%d/growFirst=%v", workers, growFirst), func(t *testing.T) {
				store := newPathStore()
				var keys, values [][]byte
				for i := range 40 {
					keys = append(keys, []byte{0x10 | byte(i%16), byte(i), 1})
					values = append(values, bytes.Repeat([]byte{byte(i) + 1}, 40))
				}
				// A leaf stored on its own, not embedded in its parent.
				keys = append(keys, []byte{0x25, 5, 5})
				values = append(values, bytes.Repeat([]byte{9}, 40))
				root := gethCommitted(t, store, keys, values)
				var ops []op
				for _, k := range keys[:40] {
					ops = append(ops, op{key: k})
				}
				grow := op{[]byte{0x37, 7, 7}, bytes.Repeat([]byte{7}, 40)}
				if growFirst {
					ops = append([]op{grow}, ops...)
				} else {
					ops = append(ops, grow)
				}
				gt := gethUpdated(t, store, root, ops)
				tr, err := Options{Workers: workers}.NewTrie(root, store.source())
				if err != nil {
					t.Fatal(err)
				}
				bk, bv := batchOf(ops)
				if err := tr.UpdateBatch(bk, bv); err != nil {
					t.Fatal(err)
				}
				wantRoot, set := gt.Commit(false)
				checkCommit(t, "", tr, wantRoot, gethChanges(set))
			})
		}
	}
}

// TestTrieBatchBranchValue: a batch applied subtree by subtree that also
// sets, deletes and sets again the value of the branch it splits at (the
// root's, at the empty key, or that of the branch below an extension
// root), among changes below every child, keys that are prefixes of one
// another and keys set, deleted and set again: the same root and node set
// as go-ethereum's loop of Update, whatever the order.
func TestTrieBatchBranchValue(t *testing.T) {
	for _, prefix := range [][]byte{{}, {0xab}} {
		for _, workers := range []int{2, 8} {
			for trial := range 6 {
				t.Run(fmt.Sprintf("prefix=%x/workers=%d/trial=%d", prefix, workers, trial), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(trial), uint64(workers)))
					withPrefix := func(rest ...byte) []byte { return append(bytes.Clone(prefix), rest...) }
					store := newPathStore()
					var keys, values [][]byte
					for i := range 200 {
						keys = append(keys, withPrefix(byte(i*37), byte(rng.Uint32())))
						values = append(values, randomValue(rng, 40))
					}
					if trial%2 == 0 { // the branch holds a value to begin with
						keys = append(keys, withPrefix())
						values = append(values, randomValue(rng, 40))
					}
					root := gethCommitted(t, store, keys, values)
					var ops []op
					for range 80 {
						k := keys[rng.IntN(200)]
						switch r := rng.IntN(10); {
						case r < 3:
							ops = append(ops, op{key: k})
						case r < 5:
							ops = append(ops, op{key: k}, op{k, randomValue(rng, 40)})
						case r < 7:
							ops = append(ops, op{k[:len(k)-1], randomValue(rng, 40)}) // a prefix of k
						default:
							ops = append(ops, op{k, randomValue(rng, 40)})
						}
					}
					for _, at := range []int{0, len(ops) / 2, len(ops)} {
						var o op
						switch (trial + at) % 3 {
						case 0:
							o = op{key: withPrefix()}
						default:
							o = op{withPrefix(), randomValue(rng, 40)}
						}
						ops = slices.Insert(ops, at, o)
					}
					gt := gethUpdated(t, store, root, ops)
					tr, err := Options{Workers: workers}.NewTrie(root, store.source())
					if err != nil {
						t.Fatal(err)
					}
					bk, bv := batchOf(ops)
					split, err := tr.updateBatch(bk, bv)
					if err != nil {
						t.Fatal(err)
					}
					if !split {
						t.Fatal("the batch was not applied subtree by subtree")
					}
					for _, k := range bk {
						got, _ := tr.Get(k)
						want, _ := gt.Get(k)
						if !bytes.Equal(got, want) {
							t.Fatalf("Get(%x) = %x, want %x", k, got, want)
						}
					}
					wantRoot, set := gt.Commit(false)
					checkCommit(t, "", tr, wantRoot, gethChanges(set))
				})
			}
		}
	}
}

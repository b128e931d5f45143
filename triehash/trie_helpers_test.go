package triehash

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb/database"
)

// pathStore is a node store keyed by path, as go-ethereum's path scheme
// keeps one. It serves go-ethereum's trie.Trie (as a NodeDatabase) and, via
// source, a Trie; both read the same nodes, and commits are applied to it.
type pathStore struct {
	nodes map[string][]byte
	reads atomic.Int64 // Node is called from several goroutines at once
}

func newPathStore() *pathStore { return &pathStore{nodes: map[string][]byte{}} }

func (s *pathStore) NodeReader(common.Hash) (database.NodeReader, error) { return s, nil }

// Node serves go-ethereum, which passes an owner.
func (s *pathStore) Node(_ common.Hash, path []byte, hash common.Hash) ([]byte, error) {
	return s.node(path, hash)
}

func (s *pathStore) node(path []byte, hash [32]byte) ([]byte, error) {
	s.reads.Add(1)
	blob, ok := s.nodes[string(path)]
	if !ok {
		return nil, fmt.Errorf("no node at path %x", path)
	}
	if crypto.Keccak256Hash(blob) != hash {
		return nil, fmt.Errorf("node at path %x is not %x", path, hash)
	}
	return blob, nil
}

// source is the store as a NodeSource.
func (s *pathStore) source() NodeSource { return storeSource{s} }

type storeSource struct{ s *pathStore }

func (src storeSource) Node(path []byte, hash [32]byte) ([]byte, error) {
	return src.s.node(path, hash)
}

// apply writes a go-ethereum node set into the store.
func (s *pathStore) apply(set *trienode.NodeSet) {
	if set == nil {
		return
	}
	for path, n := range set.Nodes {
		if n.IsDeleted() {
			delete(s.nodes, path)
		} else {
			s.nodes[path] = bytes.Clone(n.Blob)
		}
	}
}

func (s *pathStore) clone() *pathStore { return &pathStore{nodes: maps.Clone(s.nodes)} }

// change is one entry of a node set: a node stored at a path, or deleted
// (zero hash, nil blob), with the path's origin.
type change struct {
	hash       [32]byte
	blob, prev []byte
}

func (c change) String() string {
	short := func(b []byte) []byte { return b[:min(len(b), 12)] }
	return fmt.Sprintf("hash %x blob %x.. prev %x..", c.hash[:6], short(c.blob), short(c.prev))
}

// gethChanges flattens a go-ethereum node set.
func gethChanges(set *trienode.NodeSet) map[string]change {
	out := map[string]change{}
	if set == nil {
		return out
	}
	for path, n := range set.Nodes {
		out[path] = change{hash: n.Hash, blob: n.Blob, prev: set.Origins[path]}
	}
	return out
}

// commitChanges commits tr and collects what it reports.
func commitChanges(t testing.TB, tr *Trie) ([32]byte, map[string]change) {
	t.Helper()
	out := map[string]change{}
	var lastDeleted []byte
	deleting := false
	hint := tr.CommitSizeHint()
	defer func() {
		if len(out) > hint {
			t.Errorf("CommitSizeHint() = %d before a Commit of %d changes", hint, len(out))
		}
	}()
	root, err := tr.CommitChanges(func(path []byte, hash [32]byte, blob, prev []byte) {
		if _, dup := out[string(path)]; dup {
			t.Errorf("Commit reports path %x twice", path)
		}
		// The documented order: the stored nodes, each after every
		// stored node below it, then the deletions by path.
		if blob == nil {
			if deleting && bytes.Compare(lastDeleted, path) >= 0 {
				t.Errorf("Commit deletes path %x after %x", path, lastDeleted)
			}
			deleting, lastDeleted = true, bytes.Clone(path)
		} else {
			if deleting {
				t.Errorf("Commit stores path %x after a deletion", path)
			}
			for i := range path {
				if c, ok := out[string(path[:i])]; ok && c.blob != nil {
					t.Errorf("Commit stores path %x after its ancestor %x", path, path[:i])
				}
			}
		}
		if cap(blob) != len(blob) {
			t.Errorf("Commit's blob at path %x has room after it (length %d, capacity %d)", path, len(blob), cap(blob))
		}
		out[string(path)] = change{hash, bytes.Clone(blob), bytes.Clone(prev)}
	})
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	return root, out
}

// checkCommit commits tr and fails the test unless its root and node set
// are wantRoot and want, go-ethereum's; what names tr in the messages.
func checkCommit(t testing.TB, what string, tr *Trie, wantRoot [32]byte, want map[string]change) {
	t.Helper()
	gotRoot, got := commitChanges(t, tr)
	if gotRoot != wantRoot {
		t.Fatalf("%sroot %x, want %x", what, gotRoot, wantRoot)
	}
	if d := diffChanges(got, want); d != "" {
		t.Fatalf("%scommit differs from go-ethereum's node set:\n%s", what, d)
	}
}

// diffChanges describes how two node sets differ, "" if they do not.
func diffChanges(got, want map[string]change) string {
	var diff []string
	for _, path := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[path]
		switch {
		case !ok:
			diff = append(diff, fmt.Sprintf("missing path %x: %v", path, want[path]))
		case g.hash != want[path].hash || !bytes.Equal(g.blob, want[path].blob) || !bytes.Equal(g.prev, want[path].prev):
			diff = append(diff, fmt.Sprintf("path %x: got %v, want %v", path, g, want[path]))
		}
	}
	for _, path := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[path]; !ok {
			diff = append(diff, fmt.Sprintf("extra path %x: %v", path, got[path]))
		}
	}
	if len(diff) > 6 {
		diff = append(diff[:6], fmt.Sprintf("... %d more", len(diff)-6))
	}
	return fmt.Sprint(diff)[1 : len(fmt.Sprint(diff))-1]
}

// gethCommitted builds keys and values in a go-ethereum trie, commits it
// into store and returns the root.
func gethCommitted(t testing.TB, store *pathStore, keys, values [][]byte) [32]byte {
	t.Helper()
	gt, err := trie.New(trie.TrieID(EmptyRoot), store)
	if err != nil {
		t.Fatal(err)
	}
	for i := range keys {
		if err := gt.Update(keys[i], values[i]); err != nil {
			t.Fatal(err)
		}
	}
	root, set := gt.Commit(false)
	store.apply(set)
	return root
}

// commitRound ends a round of ops on tries and on go-ethereum's gt: the
// first 50 keys of ops read back the same from every trie, then gt
// commits, and each trie's commit must hand over the same node set. It
// returns gt's root and node set and how many stored nodes the set deletes.
func commitRound(t *testing.T, round int, gt *trie.Trie, tries map[string]*Trie, ops []op) (root [32]byte, set *trienode.NodeSet, deleted int) {
	t.Helper()
	for _, o := range ops[:min(len(ops), 50)] {
		want, _ := gt.Get(o.key)
		for name, tr := range tries {
			got, err := tr.Get(o.key)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("round %d: %s Get(%x) = %x, %v; want %x", round, name, o.key, got, err, want)
			}
		}
	}
	root, set = gt.Commit(false)
	want := gethChanges(set)
	for name, tr := range tries {
		checkCommit(t, fmt.Sprintf("round %d: %s ", round, name), tr, root, want)
	}
	for _, c := range want {
		if c.blob == nil {
			deleted++
		}
	}
	return root, set, deleted
}

// committedKeys makes n keys of kind and a random value of up to 40 bytes
// for each, commits them through go-ethereum's trie into store, and returns
// them, the set of keys, and the root.
func committedKeys(t testing.TB, store *pathStore, kind keyKind, rng *rand.Rand, n int) (keys, values [][]byte, live map[string]bool, root [32]byte) {
	t.Helper()
	keys = kind.make(rng, n)
	values = make([][]byte, len(keys))
	live = map[string]bool{}
	for i := range keys {
		values[i] = randomValue(rng, 40)
		live[string(keys[i])] = true
	}
	return keys, values, live, gethCommitted(t, store, keys, values)
}

// partialTrie commits random keys and returns the keys, the full store
// and a copy with about one node in eight taken away (never the root).
func partialTrie(t *testing.T, kind keyKind, rng *rand.Rand) (root [32]byte, keys [][]byte, live map[string]bool, full, partial *pathStore) {
	full = newPathStore()
	keys, _, live, root = committedKeys(t, full, kind, rng, 800)
	partial = full.clone()
	for path := range partial.nodes {
		if len(path) > 0 && rng.IntN(8) == 0 {
			delete(partial.nodes, path)
		}
	}
	return root, keys, live, full, partial
}

// keyKind names a kind of key set for the mutable trie's tests.
type keyKind struct {
	name string
	make func(rng *rand.Rand, n int) [][]byte
}

var keyKinds = []keyKind{
	{"secure", func(rng *rand.Rand, n int) [][]byte {
		keys := make([][]byte, n)
		for i := range keys {
			keys[i] = crypto.Keccak256(fmt.Appendf(nil, "%d-%d", rng.Uint64(), i))
		}
		return keys
	}},
	{"short", func(rng *rand.Rand, n int) [][]byte {
		keys, _ := randomSet(rng, n, 4, true, 1)
		rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		return keys
	}},
}

// randomValue returns a value of 1 to max bytes.
func randomValue(rng *rand.Rand, max int) []byte {
	v := make([]byte, 1+rng.IntN(max))
	for i := range v {
		v[i] = byte(rng.Uint32())
	}
	return v
}

// checkPendingPaths fails unless every node pending in tr's list that is
// still in the trie carries its own depth and path prefix: a wrong one
// leaves the root right (ensureRef) but hashes the node out of its group.
func checkPendingPaths(t testing.TB, what string, tr *Trie) {
	t.Helper()
	paths := map[node][]byte{}
	var walk func(n node, path []byte)
	walk = func(n node, path []byte) {
		c := cacheOf(n)
		if c == nil {
			return
		}
		if c.pending {
			paths[n] = path
		}
		switch n := n.(type) {
		case *shortNode:
			walk(n.val, slices.Concat(path, n.key))
		case *fullNode:
			for i, child := range n.children[:16] {
				walk(child, slices.Concat(path, []byte{byte(i)}))
			}
		}
	}
	walk(tr.root, nil)
	checked := 0
	for _, p := range tr.pending {
		path, ok := paths[p.n]
		if !ok {
			continue
		}
		want := pendingOf(p.n, len(path), path)
		if p != want {
			t.Fatalf("%s: node at path %x listed with depth %d, prefix %03x; want depth %d, prefix %03x", what, path, p.depth, p.prefix, want.depth, want.prefix)
		}
		checked++
	}
	if checked != len(paths) {
		t.Fatalf("%s: %d pending nodes in the trie, %d of them listed", what, len(paths), checked)
	}
}

// checkAllFiled fails unless every node of tr that the next Hash must
// encode is pending, then checks their paths as checkPendingPaths does. A
// node left unfiled gives the right root too, encoded and hashed alone by
// ensureRef when its parent is: so only this check sees it.
func checkAllFiled(t testing.TB, what string, tr *Trie) {
	t.Helper()
	var walk func(n node, path []byte)
	walk = func(n node, path []byte) {
		c := cacheOf(n)
		if c == nil {
			return
		}
		if c.refLen == 0 && !c.pending {
			t.Fatalf("%s: node at path %x is to be hashed and is not filed", what, path)
		}
		switch n := n.(type) {
		case *shortNode:
			walk(n.val, slices.Concat(path, n.key))
		case *fullNode:
			for i, child := range n.children[:16] {
				walk(child, slices.Concat(path, []byte{byte(i)}))
			}
		}
	}
	walk(tr.root, nil)
	checkPendingPaths(t, what, tr)
}

// goroutinesAbove waits up to 10 seconds for the goroutines started since
// before was counted to end (collecting garbage meanwhile if collect is
// set, for goroutines that end when their owner is collected) and returns
// how many are still running.
func goroutinesAbove(before int, collect bool) int {
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		if collect {
			runtime.GC()
		}
		time.Sleep(time.Millisecond)
	}
	return runtime.NumGoroutine() - before
}

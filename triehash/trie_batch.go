package triehash

import (
	"bytes"
	"fmt"
	"slices"
)

// Batches of changes. Most of an Update's time goes into loading the cold
// nodes on its path (the source's lookup and the decoding), and loads of
// different keys do not depend on one another: Prefetch loads the paths of
// a batch of keys on all the trie's workers, and UpdateBatch prefetches its
// keys' paths that way, then applies the changes, in parallel too where
// that cannot change the outcome (see trie_batch_apply.go).
//
// The workers split the keys by the subtree of the first branch from the
// root (the root, or the child of an extension root), one worker a subtree
// at a time. While prefetching, a worker writes only into the slots of its
// own subtree, and only to put a loaded node in place of the hash that
// stood for it, which changes nothing that Hash or Commit can see (see the
// comment above Trie.insert).

// batchMinKeys is the number of keys below which a batch is loaded and
// applied from the root on the calling goroutine: a goroutine costs about
// what loading a node does, and a small batch gains little from splitting.
const batchMinKeys = 32

// Prefetch loads every node along the paths of keys, the nodes Get would
// load for them, so that Get, Update and Delete of those keys find them in
// memory. The loads are spread over the trie's workers (see Options.NewTrie)
// by subtree, so the trie's NodeSource is called from several goroutines at
// once; each worker takes its keys down a level at a time, asking the
// source for all of a level's nodes before it decodes them.
//
// Loading changes nothing that Hash, Commit or Get report. If a node is
// missing or does not decode, Prefetch returns the error of the first key,
// in the order given, that needs it (a *MissingNodeError or
// *InvalidNodeError inside), whatever the number of workers; the nodes
// loaded before stay loaded, and so may nodes of later keys. A key over
// MaxKeyLength is an error before anything is loaded.
func (t *Trie) Prefetch(keys [][]byte) error {
	for i, key := range keys {
		if err := checkKey(key); err != nil {
			return fmt.Errorf("triehash: Prefetch key %d: %w", i, err)
		}
	}
	if _, i, err := t.prefetch(keys, nil); err != nil {
		return fmt.Errorf("triehash: Prefetch key %d: %w", i, err)
	}
	return nil
}

// UpdateBatch applies Update(keys[i], values[i]) for every i in order (an
// empty value deletes the key), with the same result, root and Commit node
// set as those calls. The paths of all the keys are first loaded, as
// Prefetch loads them, with the nodes a deletion may have to merge with
// where they can be told in advance. With enough keys and a branch at the
// root or below an extension root, if every load succeeded and the branch
// the keys split at keeps two children whatever the order of the changes,
// the changes are then applied subtree by subtree, the subtrees spread
// over the trie's workers, each subtree's changes in order; otherwise the
// changes are applied in order on the calling goroutine. Changes applied
// subtree by subtree leave their subtrees hashed, for the next Hash to
// find. The trie keeps its own copies of the values.
//
// A batch that changes no value leaves the trie unchanged, as a loop of
// Update does; go-ethereum's Trie.UpdateBatch, on its parallel path, marks
// the root changed whatever the batch, and its next Commit stores the root
// again.
//
// Keys and values of different lengths, or a key over MaxKeyLength, are
// an error before anything changes. If a change fails (a node it needs is
// missing or invalid), UpdateBatch stops there, as a loop of Update would:
// the changes before keys[i] stay applied, keys[i] and those after it are
// not, and the error names i and wraps the *MissingNodeError or
// *InvalidNodeError.
func (t *Trie) UpdateBatch(keys, values [][]byte) error {
	_, err := t.updateBatch(keys, values)
	return err
}

// updateBatch is UpdateBatch, and reports whether it applied the changes
// subtree by subtree (the tests check that they cover both ways).
func (t *Trie) updateBatch(keys, values [][]byte) (bySubtree bool, err error) {
	if len(keys) != len(values) {
		return false, fmt.Errorf("%w: UpdateBatch with %d keys and %d values", ErrLengthMismatch, len(keys), len(values))
	}
	for i, key := range keys {
		if err := checkKey(key); err != nil {
			return false, fmt.Errorf("triehash: UpdateBatch key %d: %w", i, err)
		}
	}
	if len(keys) > 1 {
		// A load that fails here is left for the change that needs it,
		// which meets the same node and reports it in order.
		sp, _, err := t.prefetch(keys, values)
		if err == nil && sp != nil && sp.complete && sp.above == 0 && sp.keepsTwoChildren() {
			return true, t.applySplit(sp, keys, values)
		}
	}
	for i := range keys {
		if err := t.Update(keys[i], values[i]); err != nil {
			return false, fmt.Errorf("triehash: UpdateBatch key %d: %w", i, err)
		}
	}
	return false, nil
}

// workerCount returns the number of goroutines the trie works on.
func (t *Trie) workerCount() int { return Options{Workers: t.workers}.workers() }

// batchSplit is a batch's keys grouped by the child of the branch they
// split at.
type batchSplit struct {
	branch *fullNode
	prefix []byte     // the nibbles from the root to the branch
	ext    *shortNode // the extension root above the branch, if any
	order  []int32    // the keys' indexes, child by child, in order
	// child n's keys are order[starts[n]:starts[n+1]], those that end at
	// the branch (its value) come last, as child 16
	starts [18]int32
	above  int     // keys that end above the branch or leave the prefix
	dels   [17]int // deletions below each child
	// nibbles holds the nibbles of each child's keys, one after another,
	// for the changes to reuse; ends says where each ends.
	nibbles [16][]byte
	ends    [16][]int32
	// complete says every load succeeded, those made in case a deletion
	// needs them included.
	complete bool
}

// prefetch loads the paths of keys and, with values, the nodes their
// deletions may merge with. It returns the split it made (nil if it loaded
// on the calling goroutine), and the index of the first key whose path
// failed to load and the error, or -1 and nil.
func (t *Trie) prefetch(keys, values [][]byte) (*batchSplit, int, error) {
	l := newNodeLoader(t, keys, values)
	if len(keys) < batchMinKeys {
		i, err := l.inOrder(keys, values)
		return nil, i, err
	}
	// Find the branch to split at: the root or an extension root's child,
	// loading them on the way. Each key passes through it or ends above.
	sp := &batchSplit{}
	slot := &t.root
	for {
		switch n := (*slot).(type) {
		case *hashNode:
			// Every key through this slot needs the node: the first one
			// that reaches it fails if it does not load.
			first := 0
			for ; first < len(keys) && !hasNibblePrefix(keys[first], sp.prefix); first++ {
			}
			if first == len(keys) {
				return nil, -1, nil
			}
			loaded, err := t.load(n, sp.prefix)
			if err != nil {
				return nil, first, err
			}
			*slot = loaded
			continue
		case *shortNode:
			if sp.ext == nil && !n.isLeaf() {
				sp.ext, sp.prefix, slot = n, n.key, &n.val
				continue
			}
		case *fullNode:
			sp.branch = n
			i, err := t.prefetchSplit(sp, l, keys, values)
			return sp, i, err
		}
		// A leaf or nothing (no node below), or a shape no trie of keys
		// has: the plain walk does what Get would.
		i, err := l.inOrder(keys, values)
		return nil, i, err
	}
}

// prefetchSplit loads the paths of keys below the split's branch, each
// child's keys on one worker, in the order given.
func (t *Trie) prefetchSplit(sp *batchSplit, l *nodeLoader, keys, values [][]byte) (int, error) {
	depth := len(sp.prefix)
	// Group the keys by their nibble at depth, in order: a counting sort.
	// This is the batch's first read of its keys and values, in the
	// caller's order: ask for the lines of the pair readAhead ahead (a
	// caller's keys and values are often each an allocation of its own,
	// every one a cache miss), so that the loads and changes after it find
	// them in the caches.
	nibbleOf := make([]int8, len(keys))
	var ahead pairAhead
	for j := range min(readAhead, len(keys)) {
		ahead.askPair(keys, values, j)
	}
	for i, key := range keys {
		ahead.askPair(keys, values, i+readAhead)
		nib := -1 // the key ends above the branch or parts from the prefix
		if hasNibblePrefix(key, sp.prefix) {
			nib = terminator
			if depth < 2*len(key) {
				nib = int(nibble(key, depth))
			}
			sp.starts[nib+1]++
			if values != nil && len(values[i]) == 0 {
				sp.dels[nib]++
			}
		} else {
			sp.above++
		}
		nibbleOf[i] = int8(nib)
	}
	for nib := 1; nib < len(sp.starts); nib++ {
		sp.starts[nib] += sp.starts[nib-1]
	}
	sp.order = make([]int32, sp.starts[17])
	next := sp.starts
	for i, nib := range nibbleOf {
		if nib >= 0 {
			sp.order[next[nib]] = int32(i)
			next[nib]++
		}
	}
	// The worker of each child writes only below it. Deletions that leave
	// the branch itself with one child merge it with that child, which
	// belongs to another worker: load the children here if they might.
	sp.complete = true
	if values != nil && l.mayCollapse(sp.branch, sp.prefix) {
		sp.complete = l.loadChildren(sp.branch, sp.prefix)
	}
	var (
		incomplete [16]bool  // a load below child n made in case a change needs it failed
		errs       [16]error // each child's first failed load on a key's path
		errAt      [16]int   // and that key's index
	)
	onWorkers(t.workerCount(), func(nib int) {
		mine := sp.order[sp.starts[nib]:sp.starts[nib+1]]
		if len(mine) == 0 {
			return
		}
		walkers, nibbles, ends := keyWalkers(&sp.branch.children[nib], depth+1, keys, values, mine)
		w := l.fork()
		if i, err := w.walk(walkers); err != nil {
			errs[nib], errAt[nib] = err, i
		}
		sp.nibbles[nib], sp.ends[nib] = nibbles, ends
		incomplete[nib] = w.incomplete
	})
	first, err := -1, error(nil)
	for nib, e := range errs {
		if e != nil && (err == nil || errAt[nib] < first) {
			first, err = errAt[nib], e
		}
		if incomplete[nib] {
			sp.complete = false
		}
	}
	return first, err
}

// nodeLoader walks keys' paths and loads what they need. For a batch with
// deletions it also loads, in case a deletion needs them, the children of
// every branch the deletions might leave with one child, so that the
// changes find every node they need in memory.
type nodeLoader struct {
	t *Trie
	// deletes holds the nibbles of the deleted keys, sorted, to count
	// those below a branch; nil without deletions.
	deletes    [][]byte
	incomplete bool // a load made in case a change needs it failed

	// A walk's round: its loads, their paths one after another, the load
	// of each slot, and a byte of the loaded nodes, kept.
	reqs   []loadRequest
	paths  []byte
	seen   map[*node]int
	sink   byte
	alloc  nodeAlloc  // where the loader's nodes come from
	checks nodeChecks // a chunk's nodes, for checkChunk
}

func newNodeLoader(t *Trie, keys, values [][]byte) *nodeLoader {
	l := &nodeLoader{t: t}
	size := 0
	for i := range values {
		if len(values[i]) == 0 {
			size += 2*len(keys[i]) + 1
		}
	}
	// The deleted keys' nibbles share one buffer, one allocation a batch.
	buf := make([]byte, 0, size)
	for i := range values {
		if len(values[i]) == 0 {
			start := len(buf)
			buf = appendKeyNibbles(buf, keys[i])
			l.deletes = append(l.deletes, buf[start:len(buf):len(buf)])
		}
	}
	slices.SortFunc(l.deletes, bytes.Compare)
	return l
}

// fork returns a loader for another goroutine.
func (l *nodeLoader) fork() *nodeLoader { return &nodeLoader{t: l.t, deletes: l.deletes} }

// inOrder loads the paths of keys from the root on the calling goroutine.
func (l *nodeLoader) inOrder(keys, values [][]byte) (int, error) {
	all := make([]int32, len(keys))
	for i := range all {
		all[i] = int32(i)
	}
	walkers, _, _ := keyWalkers(&l.t.root, 0, keys, values, all)
	return l.walk(walkers)
}

// keyWalkers returns a walker from slot, at depth pos, for each key
// keys[i] with i in which, in that order, with the keys' nibbles one after
// another in one buffer and where each ends in it.
func keyWalkers(slot *node, pos int, keys, values [][]byte, which []int32) (walkers []walker, nibbles []byte, ends []int32) {
	size := 0
	for _, i := range which {
		size += 2*len(keys[i]) + 1
	}
	nibbles = make([]byte, 0, size)
	ends = make([]int32, len(which))
	walkers = make([]walker, len(which))
	for j, i := range which {
		start := len(nibbles)
		nibbles = appendKeyNibbles(nibbles, keys[i])
		ends[j] = int32(len(nibbles))
		walkers[j] = walker{slot: slot, k: nibbles[start:len(nibbles):len(nibbles)], pos: pos, key: i, change: changeOf(values, int(i))}
	}
	return walkers, nibbles, ends
}

// The changes a key's path is loaded for.
const (
	forRead   = iota // Get, or Prefetch
	forInsert        // also the child of an extension the insertion splits
	forDelete        // also the children of the branches it may collapse
)

// changeOf returns what keys[i] is loaded for.
func changeOf(values [][]byte, i int) int8 {
	switch {
	case values == nil:
		return forRead
	case len(values[i]) == 0:
		return forDelete
	}
	return forInsert
}

// mayCollapse reports whether the deletions might leave branch n, at
// path, with one child: a child goes only by a deletion below it, so it
// takes at least as many deletions as n has children less one.
func (l *nodeLoader) mayCollapse(n *fullNode, path []byte) bool {
	return l.deletesBelow(path) >= countChildren(n)-1
}

// loadChildren loads every child of branch n, at path, in case a change
// needs it, and reports whether all loaded.
func (l *nodeLoader) loadChildren(n *fullNode, path []byte) bool {
	ok := true
	childPath := append(slices.Clip(path), 0) // the last nibble set for each child
	for i, child := range n.children[:16] {
		if h, isHash := child.(*hashNode); isHash {
			childPath[len(path)] = byte(i)
			if loaded, err := l.t.load(h, childPath); err == nil {
				n.children[i] = loaded
			} else {
				ok = false
			}
		}
	}
	return ok
}

// deletesBelow returns the number of deleted keys whose nibbles start with
// path.
func (l *nodeLoader) deletesBelow(path []byte) int {
	lo, _ := slices.BinarySearchFunc(l.deletes, path, bytes.Compare)
	hi := lo
	for hi < len(l.deletes) && bytes.HasPrefix(l.deletes[hi], path) {
		hi++
		if hi-lo > 16 {
			return hi - lo // more than any branch has children
		}
	}
	return hi - lo
}

// countChildren returns the number of children of n, its value included.
func countChildren(n *fullNode) int {
	count := 0
	for _, c := range &n.children {
		if c != nil {
			count++
		}
	}
	return count
}

// hasNibblePrefix reports whether the nibbles of key start with prefix
// (nibbles without a terminator).
func hasNibblePrefix(key, prefix []byte) bool {
	if len(prefix) > 2*len(key) {
		return false
	}
	for i, nib := range prefix {
		if nibble(key, i) != nib {
			return false
		}
	}
	return true
}

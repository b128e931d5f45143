package triehash

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Batches of changes. Most of an Update's time goes into loading the cold
// nodes on its path (the source's lookup and the decoding), and loads of
// different keys do not depend on one another: Prefetch loads the paths of
// a batch of keys on all the trie's workers, and UpdateBatch prefetches its
// keys' paths that way before it applies the changes one by one.
//
// The workers split the keys by the subtree of the first branch from the
// root (the root, or the child of an extension root), one worker a subtree
// at a time. A worker writes only into the slots of its own subtree, and
// only to put a loaded node in place of the hash that stood for it, which
// changes nothing that Hash or Commit can see (see the comment above
// Trie.insert): the trie's bookkeeping (pending, dropped, keyBuf) is not
// touched until the changes are applied, on the calling goroutine.

// prefetchMinKeys is the number of keys below which Prefetch loads their
// paths on the calling goroutine: a goroutine costs about what loading a
// node does, and a small batch gains little from spreading.
const prefetchMinKeys = 32

// Prefetch loads every node along the paths of keys, the nodes Get would
// load for them, so that Get, Update and Delete of those keys find them in
// memory. The loads are spread over the trie's workers (see Options.NewTrie)
// by subtree, so the trie's NodeSource is called from several goroutines at
// once.
//
// Loading changes nothing that Hash, Commit or Get report. If a node is
// missing or does not decode, Prefetch returns the error of the first key,
// in the order given, that needs it (a *MissingNodeError or
// *InvalidNodeError inside), whatever the number of workers; the nodes
// loaded before stay loaded. A key over MaxKeyLength is an error before
// anything is loaded.
func (t *Trie) Prefetch(keys [][]byte) error {
	for i, key := range keys {
		if err := checkKey(key); err != nil {
			return fmt.Errorf("triehash: Prefetch key %d: %w", i, err)
		}
	}
	if i, err := t.prefetch(keys, nil); err != nil {
		return fmt.Errorf("triehash: Prefetch key %d: %w", i, err)
	}
	return nil
}

// UpdateBatch applies Update(keys[i], values[i]) for every i in order (an
// empty value deletes the key), with the same result, root and Commit
// node set as those calls: the paths of all the keys are first loaded in
// parallel, as Prefetch does, with the sibling a deletion may have to merge
// with where it can be told in advance; then the changes are applied on the
// calling goroutine. The trie keeps its own copies of the values.
//
// Keys and values of different lengths, or a key over MaxKeyLength, are
// an error before anything changes. If a change fails (a node it needs is
// missing or invalid), UpdateBatch stops there, as a loop of Update would:
// the changes before keys[i] stay applied, keys[i] and those after it are
// not, and the error names i and wraps the *MissingNodeError or
// *InvalidNodeError.
func (t *Trie) UpdateBatch(keys, values [][]byte) error {
	if len(keys) != len(values) {
		return fmt.Errorf("%w: UpdateBatch with %d keys and %d values", ErrLengthMismatch, len(keys), len(values))
	}
	for i, key := range keys {
		if err := checkKey(key); err != nil {
			return fmt.Errorf("triehash: UpdateBatch key %d: %w", i, err)
		}
	}
	// A load that fails here is left for the change that needs it, which
	// meets the same node and reports it in order.
	_, _ = t.prefetch(keys, values)
	for i := range keys {
		if err := t.Update(keys[i], values[i]); err != nil {
			return fmt.Errorf("triehash: UpdateBatch key %d: %w", i, err)
		}
	}
	return nil
}

// prefetch loads the paths of keys, and with values the siblings their
// deletions will merge with where that can be told from the trie as it
// is. It returns the index of the first key whose path failed to load and
// the error, or -1 and nil.
func (t *Trie) prefetch(keys, values [][]byte) (int, error) {
	workers := t.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers == 1 || len(keys) < prefetchMinKeys {
		return t.prefetchInOrder(keys, values)
	}
	// Find the branch to split at: the root or an extension root's child,
	// loading them on the way. Each key passes through it or ends above.
	slot, depth := &t.root, 0
	var prefix []byte // the extension's nibbles before the branch
	for {
		switch n := (*slot).(type) {
		case *hashNode:
			// Every key through this slot needs the node: the first one
			// that reaches it fails if it does not load.
			first := 0
			for ; first < len(keys) && !hasNibblePrefix(keys[first], prefix); first++ {
			}
			if first == len(keys) {
				return -1, nil
			}
			loaded, err := t.load(n, prefix)
			if err != nil {
				return first, err
			}
			*slot = loaded
			continue
		case *shortNode:
			if depth == 0 && !n.isLeaf() {
				prefix = n.key
				slot, depth = &n.val, len(n.key)
				continue
			}
		case *fullNode:
			return t.prefetchSplit(n, depth, prefix, keys, values, workers)
		}
		// A leaf or nothing (no node below), or a shape no trie of keys
		// has: the plain walk does what Get would.
		return t.prefetchInOrder(keys, values)
	}
}

// prefetchInOrder is prefetch on the calling goroutine.
func (t *Trie) prefetchInOrder(keys, values [][]byte) (int, error) {
	var buf []byte
	for i, key := range keys {
		buf = appendKeyNibbles(buf[:0], key)
		if err := t.prefetchPath(&t.root, buf, 0, values != nil && len(values[i]) == 0); err != nil {
			return i, err
		}
	}
	return -1, nil
}

// prefetchSplit loads the paths of keys below branch, at depth after the
// nibbles prefix, each child's keys on one worker, in the order given.
func (t *Trie) prefetchSplit(branch *fullNode, depth int, prefix []byte, keys, values [][]byte, workers int) (int, error) {
	// Group the keys by their nibble at depth, in order: a counting sort.
	var starts [17]int32 // nibble n's keys are order[starts[n]:starts[n+1]]
	nibbleOf := make([]int8, len(keys))
	for i, key := range keys {
		nib := -1 // the key ends above the branch or parts from the prefix
		if hasNibblePrefix(key, prefix) && depth < 2*len(key) {
			nib = int(nibbleAt(key, depth))
			starts[nib+1]++
		}
		nibbleOf[i] = int8(nib)
	}
	for nib := 1; nib < len(starts); nib++ {
		starts[nib] += starts[nib-1]
	}
	order := make([]int32, starts[16])
	next := starts
	for i, nib := range nibbleOf {
		if nib >= 0 {
			order[next[nib]] = int32(i)
			next[nib]++
		}
	}
	// The worker of each child writes only below it. A deletion that
	// leaves the branch itself with one child merges it with that child,
	// which belongs to another worker: with two children only, load both
	// here. A failure is left for the change that needs the node.
	if values != nil && countChildren(branch) == 2 {
		for nib, child := range branch.children[:16] {
			if h, ok := child.(*hashNode); ok {
				if loaded, err := t.load(h, append(bytes.Clone(prefix), byte(nib))); err == nil {
					branch.children[nib] = loaded
				}
			}
		}
	}
	var (
		firstErr   atomic.Int64 // index of the first key known to fail
		errs       [16]error
		errAt      [16]int
		nextNibble atomic.Int32
		wg         sync.WaitGroup
	)
	firstErr.Store(int64(len(keys)))
	for range workers {
		wg.Go(func() {
			var buf []byte
			for {
				nib := int(nextNibble.Add(1) - 1)
				if nib >= 16 {
					return
				}
				for _, i := range order[starts[nib]:starts[nib+1]] {
					if int64(i) > firstErr.Load() {
						break // a key before it fails already
					}
					buf = appendKeyNibbles(buf[:0], keys[i])
					del := values != nil && len(values[i]) == 0
					if err := t.prefetchPath(&branch.children[nib], buf, depth+1, del); err != nil {
						errs[nib], errAt[nib] = err, int(i)
						for {
							old := firstErr.Load()
							if int64(i) >= old || firstErr.CompareAndSwap(old, int64(i)) {
								break
							}
						}
						break
					}
				}
			}
		})
	}
	wg.Wait()
	first, err := -1, error(nil)
	for nib, e := range errs {
		if e != nil && (err == nil || errAt[nib] < first) {
			first, err = errAt[nib], e
		}
	}
	return first, err
}

// prefetchPath loads the nodes along the nibbles k from *slot, the node at
// depth pos, down to where k ends or leaves the trie, putting each loaded
// node in place of its hash. With del it also loads the sibling that
// deleting k would merge a branch with, if the branch has two children
// and k's leaf is the other; that load may fail, to be retried by the
// deletion that needs it.
func (t *Trie) prefetchPath(slot *node, k []byte, pos int, del bool) error {
	for {
		switch n := (*slot).(type) {
		case *hashNode:
			loaded, err := t.load(n, k[:pos])
			if err != nil {
				return err
			}
			*slot = loaded
		case *shortNode:
			if !bytes.HasPrefix(k[pos:], n.key) {
				return nil
			}
			slot, pos = &n.val, pos+len(n.key)
		case *fullNode:
			if pos >= len(k) {
				return nil
			}
			index := int(k[pos])
			if del {
				if err := t.prefetchSibling(n, k, pos); err != nil {
					return err
				}
			}
			slot, pos = &n.children[index], pos+1
		default: // nil or a value: the path ends
			return nil
		}
	}
}

// prefetchSibling loads, for the deletion of k through branch n at depth
// pos, the child the branch merges with if the deletion leaves it only
// that one. It returns an error only for k's own child.
func (t *Trie) prefetchSibling(n *fullNode, k []byte, pos int) error {
	index := int(k[pos])
	slot := &n.children[index]
	if h, ok := (*slot).(*hashNode); ok {
		loaded, err := t.load(h, k[:pos+1])
		if err != nil {
			return err
		}
		*slot = loaded
	}
	sibling := onlySibling(n, index)
	if sibling < 0 || sibling == terminator || !vanishes(*slot, k[pos+1:]) {
		return nil
	}
	if h, ok := n.children[sibling].(*hashNode); ok {
		if loaded, err := t.load(h, append(bytes.Clone(k[:pos]), byte(sibling))); err == nil {
			n.children[sibling] = loaded
		}
	}
	return nil
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

// nibbleAt returns nibble i of key (i < 2*len(key)).
func nibbleAt(key []byte, i int) byte {
	if i%2 == 0 {
		return key[i/2] >> 4
	}
	return key[i/2] & 0x0f
}

// hasNibblePrefix reports whether the nibbles of key start with prefix
// (nibbles without a terminator).
func hasNibblePrefix(key, prefix []byte) bool {
	if len(prefix) > 2*len(key) {
		return false
	}
	for i, nib := range prefix {
		if nibbleAt(key, i) != nib {
			return false
		}
	}
	return true
}

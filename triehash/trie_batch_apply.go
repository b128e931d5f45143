package triehash

import (
	"bytes"
	"fmt"
	"slices"
)

// Applying a batch subtree by subtree. The changes below different
// children of the branch a batch splits at touch different nodes, except
// the branch itself (and an extension root above it), which every change
// below it marks as changed and nothing else, as long as it stays a
// branch. Then the order between changes below different children does
// not matter: applied child by child, each child's changes in the order
// given, they leave the same trie, with the same changed nodes and the
// same stale paths, as applied in the order given. The branch stays a
// branch if two of its children cannot go: a child holding more keys than
// the batch deletes below it, or the branch's value if the batch does not
// delete it. The changes of the value touch the branch alone, and are
// applied after those below the children.
//
// Each worker keeps its own bookkeeping (a Trie of its own for the pending
// list, the dropped paths and the key buffer), which is merged into the
// trie's afterwards, and hashes the nodes its changes made or changed once
// they are all applied: a later change to one of them marks it changed
// again, so Hash's result is the same, and the hashing is done while the
// worker's core still holds the nodes. A change fails only if it needs a
// node that is not loaded and does not load, and UpdateBatch applies a
// batch this way only after every node its changes can need has loaded
// (see nodeLoader).

// keepsTwoChildren reports whether the split's branch keeps two children
// whatever the order of the changes.
func (sp *batchSplit) keepsTwoChildren() bool {
	survivors := 0
	for nib, child := range &sp.branch.children {
		if child != nil && minKeys(child, sp.dels[nib]+1) > sp.dels[nib] {
			survivors++
		}
	}
	return survivors >= 2
}

// minKeys returns a lower bound on the number of keys below n, counting no
// further than enough.
func minKeys(n node, enough int) int {
	switch n := n.(type) {
	case nil:
		return 0
	case *fullNode:
		sum := 0
		for _, c := range &n.children {
			if sum += minKeys(c, enough-sum); sum >= enough {
				break
			}
		}
		return sum
	case *shortNode:
		if !n.isLeaf() {
			return minKeys(n.val, enough)
		}
	}
	return 1 // a leaf, a value, or a stored node not loaded: one key at least
}

// applySplit applies the batch child by child on the trie's workers.
func (t *Trie) applySplit(sp *batchSplit, keys, values [][]byte) error {
	workers := t.workerCount()
	depth := len(sp.prefix)
	var (
		subs    [16]*Trie // each child's bookkeeping
		changed [16]bool
		stopped [16]int // where a child's changes stopped: len(its keys) if they did not
	)
	onWorkers(workers, func(nib int) {
		sub := &Trie{src: t.src, checkNodes: t.checkNodes, hints: t.hints, workers: 1}
		subs[nib] = sub
		mine := sp.order[sp.starts[nib]:sp.starts[nib+1]]
		slot := &sp.branch.children[nib]
		stopped[nib] = len(mine)
		start := int32(0)
		for j, i := range mine {
			end := sp.ends[nib][j]
			k := sp.nibbles[nib][start:end:end]
			start = end
			var ok bool
			var child node
			var err error
			if len(values[i]) == 0 {
				ok, child, err = sub.delete(*slot, k, depth+1)
			} else {
				ok, child, err = sub.insert(*slot, k, depth+1, valueNode(bytes.Clone(values[i])))
			}
			if err != nil {
				stopped[nib] = j
				break
			}
			if ok {
				*slot, changed[nib] = child, true
			}
		}
		// Hash the child's subtree while its nodes are still in this
		// core's cache: Hash then finds them hashed.
		sub.rehash()
		sub.dropPending()
	})
	touched := false
	for nib, sub := range subs {
		if changed[nib] {
			// Here, not on the workers: their slots share the mask.
			sp.branch.rewritten |= 1 << nib
			touched = true
		}
		t.pending = append(t.pending, sub.pending...)
		t.uncommitted += sub.uncommitted
		for i := range sub.dropped.prevs {
			t.dropped.add(sub.dropped.path(i), sub.dropped.prevs[i])
		}
	}
	if touched {
		// What each change below the branch did to it and the extension
		// above, once for all.
		t.touch(sp.branch, sp.prefix)
		if sp.ext != nil {
			t.touch(sp.ext, nil)
		}
	}
	// The changes of the branch's value touch nothing below it.
	for _, i := range sp.order[sp.starts[terminator]:sp.starts[terminator+1]] {
		if err := t.Update(keys[i], values[i]); err != nil {
			return fmt.Errorf("triehash: UpdateBatch key %d: %w", i, err)
		}
	}
	// A change fails here only if it needs a node that the prefetch did
	// not load, which it loads every one of (the tests check that): should
	// one slip through, the changes from it on in its subtree are applied
	// in order as Update applies them, loading what they need.
	var rest []int
	for nib := range subs {
		mine := sp.order[sp.starts[nib]:sp.starts[nib+1]]
		for _, i := range mine[stopped[nib]:] {
			rest = append(rest, int(i))
		}
	}
	slices.Sort(rest)
	for _, i := range rest {
		if err := t.Update(keys[i], values[i]); err != nil {
			return fmt.Errorf("triehash: UpdateBatch key %d: %w", i, err)
		}
	}
	return nil
}

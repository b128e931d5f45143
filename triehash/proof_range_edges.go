package triehash

import (
	"bytes"
	"fmt"
)

// The steps of a range proof, as go-ethereum takes them, on a tree of the
// proof's nodes. Each step changes exactly the nodes go-ethereum's step
// changes, and forgets the hash of exactly the nodes whose hash go-ethereum
// forgets, so that the root compared at the end is go-ethereum's even for
// proofs whose nodes are not what their hashes say. Where go-ethereum's
// step meets a node it does not expect and panics, these return
// ErrRangeShape.
//
//  1. revealEdge decodes the nodes on the path of an edge key into the
//     tree, leaving the other children as hashes.
//  2. cutBetween finds where the two edge paths fork and removes every
//     child that lies between them, down both paths (cutSide): the range's
//     keys will fill those places again.
//  3. The keys are inserted; a key that reaches a hash left in the tree
//     is outside the edges, which the missing node reports.
//  4. hasKeysAfter tells, from the last edge's path, whether the trie holds
//     keys after the range.

// revealEdge adds to tree (decoded from root's node if nil) the nodes on
// the path of key, and returns the tree and the value the path ends at.
// A path that leaves the trie is an error unless allowAbsent.
func revealEdge(tree node, root [32]byte, key []byte, proof NodeSource, allowAbsent bool) (node, []byte, error) {
	guard := newCycleGuard()
	if tree == nil {
		n, err := loadProofNode(proof, nil, root)
		if err != nil {
			return nil, nil, err
		}
		tree = n
		_ = guard.check(0, root)
	}
	k := keyNibbles(key)
	parent, pos := tree, 0
	for {
		rest, child, err := stepToward(parent, k[pos:])
		if err != nil {
			return nil, nil, err
		}
		switch c := child.(type) {
		case nil:
			if allowAbsent {
				return tree, nil, nil
			}
			return nil, nil, fmt.Errorf("%w: the proof shows key %x absent", ErrRangeMismatch, key)
		case *shortNode, *fullNode:
			parent, pos = child, len(k)-len(rest)
			continue
		case *hashNode:
			if err := guard.check(len(k)-len(rest), *c); err != nil {
				return nil, nil, err
			}
			if child, err = loadProofNode(proof, k[:len(k)-len(rest)], *c); err != nil {
				return nil, nil, err
			}
		case valueNode:
			if len(c) == 0 {
				// go-ethereum walks on past an empty value, and panics.
				return nil, nil, fmt.Errorf("%w: empty value on the path of key %x", ErrRangeShape, key)
			}
		}
		switch p := parent.(type) {
		case *shortNode:
			p.val = child
		case *fullNode:
			p.children[k[pos]] = child
		default:
			return nil, nil, fmt.Errorf("%w: %s on the path of key %x", ErrRangeShape, nodeKind(parent), key)
		}
		if v, ok := child.(valueNode); ok {
			return tree, v, nil
		}
		parent, pos = child, len(k)-len(rest)
	}
}

// stepToward returns the child of n that key leads to, with the rest of
// the key, or no child where key leaves the trie.
func stepToward(n node, key []byte) ([]byte, node, error) {
	switch n := n.(type) {
	case *shortNode:
		if !bytes.HasPrefix(key, n.key) {
			return nil, nil, nil
		}
		return key[len(n.key):], n.val, nil
	case *fullNode:
		if len(key) == 0 {
			return nil, nil, fmt.Errorf("%w: a branch below the end of a key", ErrRangeShape)
		}
		return key[1:], n.children[key[0]], nil
	case valueNode:
		return nil, n, nil
	}
	return nil, nil, fmt.Errorf("%w: %s on an edge path", ErrRangeShape, nodeKind(n))
}

// loadProofNode decodes the proof's node for hash, at path if it holds.
// The node keeps hash as its own, as go-ethereum keeps it: a node the
// proof files under another hash than its own stands for that hash until
// it is changed.
func loadProofNode(proof NodeSource, path []byte, hash [32]byte) (node, error) {
	blob, err := proof.Node(path, hash)
	if err != nil || len(blob) == 0 {
		return nil, fmt.Errorf("%w: node %x at path %x", ErrProofNodeMissing, hash, path)
	}
	n, err := decodeNode(blob)
	if err != nil {
		return nil, fmt.Errorf("%w: node %x at path %x: %w", ErrProofNodeInvalid, hash, path, err)
	}
	c := cacheOf(n)
	c.ref, c.refLen = hash, 32
	return n, nil
}

// forget marks a short or full node as changed: its hash must be computed
// again from its content.
func forget(c *nodeCache) { c.refLen, c.dirty = 0, true }

// cutBetween removes from tree everything strictly between the paths of
// first and last (first before last, both of one length): first it walks
// down while the two paths share a node, then it cuts at the node where
// they part. It reports whether the whole tree lies between them.
func cutBetween(tree node, first, last []byte) (bool, error) {
	left, right := keyNibbles(first), keyNibbles(last)
	var (
		n, parent           node = tree, nil
		pos                 int
		forkLeft, forkRight int // each edge's order to a short node's key
	)
walk:
	for {
		switch c := n.(type) {
		case *shortNode:
			forget(&c.cache)
			forkLeft, forkRight = compareToKey(left[pos:], c.key), compareToKey(right[pos:], c.key)
			if forkLeft != 0 || forkRight != 0 {
				break walk
			}
			parent, n, pos = n, c.val, pos+len(c.key)
		case *fullNode:
			forget(&c.cache)
			if pos >= len(left) {
				return false, errAtFork(n)
			}
			l, r := c.children[left[pos]], c.children[right[pos]]
			if l == nil || r == nil || left[pos] != right[pos] {
				break walk
			}
			if !isInner(l) {
				// go-ethereum compares the two children and panics on
				// uncomparable ones.
				return false, errAtFork(l)
			}
			parent, n, pos = n, l, pos+1
		default:
			return false, errAtFork(n)
		}
	}
	switch c := n.(type) {
	case *shortNode:
		switch {
		case forkLeft < 0 && forkRight < 0, forkLeft > 0 && forkRight > 0:
			return false, fmt.Errorf("%w: both edges of the range are on one side of the node at path %x", ErrRangeMismatch, left[:pos])
		case forkLeft != 0 && forkRight != 0:
			// The node lies between the edges: all of it goes.
			if parent == nil {
				return true, nil
			}
			return false, clearParentSlot(parent, left, pos)
		case forkRight != 0:
			// The last edge passes the node by, the first leads into it.
			if holdsValue(c) {
				if parent == nil {
					return true, nil
				}
				return false, clearParentSlot(parent, left, pos)
			}
			return false, cutSide(c, c.val, left[pos:], len(c.key), false)
		default:
			// The first edge passes the node by, the last leads into it.
			if holdsValue(c) {
				if parent == nil {
					return true, nil
				}
				return false, clearParentSlot(parent, right, pos)
			}
			return false, cutSide(c, c.val, right[pos:], len(c.key), true)
		}
	case *fullNode:
		for i := left[pos] + 1; i < right[pos]; i++ {
			c.children[i] = nil
		}
		if err := cutSide(c, c.children[left[pos]], left[pos:], 1, false); err != nil {
			return false, err
		}
		return false, cutSide(c, c.children[right[pos]], right[pos:], 1, true)
	}
	return false, errAtFork(n)
}

// compareToKey compares an edge's nibbles with a short node's key over the
// key's length, or over the edge's if shorter.
func compareToKey(edge, key []byte) int {
	if len(edge) > len(key) {
		edge = edge[:len(key)]
	}
	return bytes.Compare(edge, key)
}

// isInner reports whether n is a short or full node.
func isInner(n node) bool {
	switch n.(type) {
	case *shortNode, *fullNode:
		return true
	}
	return false
}

// errAtFork reports a node where the edge paths part that go-ethereum
// does not expect there.
func errAtFork(n node) error {
	return fmt.Errorf("%w: %s where the edge paths part", ErrRangeShape, nodeKind(n))
}

// holdsValue reports whether a short node is a leaf, by its child.
func holdsValue(n *shortNode) bool {
	_, ok := n.val.(valueNode)
	return ok
}

// clearParentSlot removes the node at the end of path[:pos] from its
// parent, which must be a branch.
func clearParentSlot(parent node, path []byte, pos int) error {
	branch, ok := parent.(*fullNode)
	if !ok || pos == 0 {
		return fmt.Errorf("%w: %s above a node to cut, not a branch", ErrRangeShape, nodeKind(parent))
	}
	branch.children[path[pos-1]] = nil
	return nil
}

// cutSide removes, below child (parent's child on the path key[:pos]),
// everything on one side of the path key: the left side if removeLeft (the
// last edge's path), else the right side (the first edge's).
func cutSide(parent, child node, key []byte, pos int, removeLeft bool) error {
	for {
		switch c := child.(type) {
		case nil:
			return nil // the path leaves the trie in a branch
		case *fullNode:
			if pos >= len(key) {
				return fmt.Errorf("%w: a branch below the end of key %x", ErrRangeShape, key)
			}
			if removeLeft {
				for i := range key[pos] {
					c.children[i] = nil
				}
			} else {
				for i := key[pos] + 1; i < 16; i++ {
					c.children[i] = nil
				}
			}
			forget(&c.cache)
			parent, child, pos = c, c.children[key[pos]], pos+1
		case *shortNode:
			if pos > len(key) {
				return fmt.Errorf("%w: a node below the end of key %x", ErrRangeShape, key)
			}
			if !bytes.HasPrefix(key[pos:], c.key) {
				// The path leaves the trie here; the node goes if it lies on
				// the side to cut, inside the range.
				order := bytes.Compare(c.key, key[pos:])
				if removeLeft && order < 0 || !removeLeft && order > 0 {
					return clearParentSlot(parent, key, pos)
				}
				return nil
			}
			if _, ok := c.val.(valueNode); ok {
				return clearParentSlot(parent, key, pos)
			}
			forget(&c.cache)
			parent, child, pos = c, c.val, pos+len(c.key)
		default:
			return fmt.Errorf("%w: %s on the edge path %x", ErrRangeShape, nodeKind(child), key)
		}
	}
}

// hasKeysAfter reports whether the tree holds keys after key, looking
// beside key's path, which must be decoded all the way down.
func hasKeysAfter(n node, key []byte) (bool, error) {
	k := keyNibbles(key)
	pos := 0
	for n != nil {
		switch c := n.(type) {
		case *fullNode:
			if pos >= len(k) {
				return false, fmt.Errorf("%w: a branch below the end of key %x", ErrRangeShape, key)
			}
			for i := k[pos] + 1; i < 16; i++ { // none after the value slot
				if c.children[i] != nil {
					return true, nil
				}
			}
			n, pos = c.children[k[pos]], pos+1
		case *shortNode:
			if !bytes.HasPrefix(k[pos:], c.key) {
				return bytes.Compare(c.key, k[pos:]) > 0, nil
			}
			n, pos = c.val, pos+len(c.key)
		case valueNode:
			return false, nil
		default:
			return false, fmt.Errorf("%w: %s on the path of the last key %x", ErrRangeShape, nodeKind(n), key)
		}
	}
	return false, nil
}

// checkHashable reports what go-ethereum's hasher panics on, in the nodes
// it would encode (those without a hash): an extension without a child
// node, a leaf without a value, a value in a branch's child slot.
func checkHashable(n node) error {
	switch c := n.(type) {
	case *shortNode:
		if c.cache.refLen != 0 {
			return nil
		}
		_, isValue := c.val.(valueNode)
		if c.isLeaf() {
			if !isValue {
				return fmt.Errorf("%w: a leaf without a value", ErrRangeShape)
			}
			return nil
		}
		if c.val == nil || isValue {
			return fmt.Errorf("%w: an extension without a child node", ErrRangeShape)
		}
		return checkHashable(c.val)
	case *fullNode:
		if c.cache.refLen != 0 {
			return nil
		}
		for _, child := range c.children[:16] {
			if _, ok := child.(valueNode); ok {
				return fmt.Errorf("%w: a value in a branch's child slot", ErrRangeShape)
			}
			if err := checkHashable(child); err != nil {
				return err
			}
		}
		if _, ok := c.children[terminator].(valueNode); !ok && c.children[terminator] != nil {
			return fmt.Errorf("%w: a node in a branch's value slot", ErrRangeShape)
		}
	}
	return nil
}

// nodeKind names a node's kind for errors.
func nodeKind(n node) string {
	switch n.(type) {
	case nil:
		return "no node"
	case *shortNode:
		return "a short node"
	case *fullNode:
		return "a branch"
	case *hashNode:
		return "an unresolved hash"
	case valueNode:
		return "a value"
	}
	return fmt.Sprintf("a %T", n)
}

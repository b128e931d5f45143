package triehash

import "fmt"

// Inserting a range's keys. go-ethereum inserts them one by one into the
// tree left by the cut; insertRange reaches the same tree faster, by the
// way the keys spread over it: they come sorted, none a prefix of another,
// so the keys below a branch's child are a run, and a run that reaches an
// empty slot (most of them do: the cut emptied everything between the
// edges) becomes there the same subtree that inserting its keys one by one
// would build, the trie of those keys alone, which buildFresh makes at once
// from a slab of nodes. Anywhere else (short nodes the keys part in,
// values, hashes) the keys go in one by one, through insert.

// insertRange inserts keys and values (strictly ascending, as checkRange
// checks) as go-ethereum's Trie.Update inserts them in turn. The trie keeps
// references to the values and to one buffer of the keys' nibbles.
func (t *Trie) insertRange(keys, values [][]byte) error {
	size := 0
	for _, key := range keys {
		size += 2*len(key) + 1
	}
	nibbles := make([]byte, 0, size)
	paths := make([][]byte, len(keys))
	for i, key := range keys {
		start := len(nibbles)
		for _, b := range key {
			nibbles = append(nibbles, b>>4, b&0x0f)
		}
		nibbles = append(nibbles, terminator)
		paths[i] = nibbles[start:len(nibbles):len(nibbles)]
	}
	a := &nodeSlab{shorts: make([]shortNode, len(keys))}
	changed, root, err := t.insertSorted(t.root, paths, values, 0, a)
	if err != nil {
		return err
	}
	if changed {
		t.root = root
		t.unhashed += len(keys)
	}
	return nil
}

// insertSorted inserts the keys (nibbles with terminators, strictly
// ascending, all through n at keys[i][:pos]) below n, and returns whether n
// changed and the node to put in its place, as insert does for one key.
func (t *Trie) insertSorted(n node, keys, values [][]byte, pos int, a *nodeSlab) (bool, node, error) {
	if len(keys) == 0 {
		return false, n, nil
	}
	first, last := keys[0], keys[len(keys)-1]
	switch c := n.(type) {
	case nil:
		if pos < len(first) {
			return true, a.buildFresh(keys, values, pos), nil
		}
	case *fullNode:
		if pos >= len(first) {
			break
		}
		changed := false
		for lo := 0; lo < len(keys); {
			index := keys[lo][pos]
			hi := lo + 1
			for hi < len(keys) && keys[hi][pos] == index {
				hi++
			}
			grew, child, err := t.insertSorted(c.children[index], keys[lo:hi], values[lo:hi], pos+1, a)
			if err != nil {
				return false, n, err
			}
			if grew {
				c.children[index], changed = child, true
			}
			lo = hi
		}
		if changed {
			t.touch(c, nil)
		}
		return changed, c, nil
	case *shortNode:
		// If the first and last keys go through the whole short node, all
		// keys between them do.
		end := pos + len(c.key)
		if end > len(first) || end > len(last) || !equalNibbles(first[pos:end], c.key) || !equalNibbles(last[pos:end], c.key) {
			break
		}
		grew, child, err := t.insertSorted(c.val, keys, values, end, a)
		if !grew || err != nil {
			return false, n, err
		}
		t.touch(c, nil)
		c.val = child
		return true, c, nil
	}
	changed := false
	for i := range keys {
		grew, next, err := t.insert(n, keys[i], pos, valueNode(values[i]))
		if err != nil {
			return false, n, fmt.Errorf("key %x: %w", keys[i], err)
		}
		if grew {
			n, changed = next, true
		}
	}
	return changed, n, nil
}

func equalNibbles(a, b []byte) bool { return string(a) == string(b) }

// nodeSlab hands out the nodes of new subtrees from a few allocations.
type nodeSlab struct {
	shorts []shortNode
	fulls  []fullNode
}

func (a *nodeSlab) short(key []byte, val node) *shortNode {
	if len(a.shorts) == 0 {
		a.shorts = make([]shortNode, 16)
	}
	n := &a.shorts[0]
	a.shorts = a.shorts[1:]
	n.key, n.val, n.cache = key, val, dirtyCache
	return n
}

func (a *nodeSlab) full() *fullNode {
	if len(a.fulls) == 0 {
		a.fulls = make([]fullNode, 16)
	}
	n := &a.fulls[0]
	a.fulls = a.fulls[1:]
	n.cache = dirtyCache
	return n
}

// buildFresh returns the trie of the keys below pos alone, as insert
// builds it from an empty slot key by key: a leaf for a single key (its
// value if no nibbles are left), else a branch at the first nibble where
// the first and the last key part, below an extension of the nibbles all
// keys share, if any.
func (a *nodeSlab) buildFresh(keys, values [][]byte, pos int) node {
	first, last := keys[0], keys[len(keys)-1]
	if len(keys) == 1 {
		if pos == len(first) {
			return valueNode(values[0])
		}
		return a.short(first[pos:], valueNode(values[0]))
	}
	at := pos + sharedNibbles(first[pos:], last[pos:])
	branch := a.full()
	for lo := 0; lo < len(keys); {
		index := keys[lo][at]
		hi := lo + 1
		for hi < len(keys) && keys[hi][at] == index {
			hi++
		}
		branch.children[index] = a.buildFresh(keys[lo:hi], values[lo:hi], at+1)
		lo = hi
	}
	if at == pos {
		return branch
	}
	return a.short(first[pos:at], branch)
}

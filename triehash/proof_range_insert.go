package triehash

import (
	"fmt"
	"runtime"
	"sync"
)

// Inserting a range's keys. go-ethereum inserts them one by one into the
// tree left by the cut; insertRange reaches the same tree faster, by the
// way the keys spread over it: they come sorted, so the keys below a
// branch's child are a run, and a run that reaches an empty slot (most of
// them do: the cut emptied everything between the edges) becomes there the
// same subtree that inserting its keys one by one would build, the trie of
// those keys alone. That subtree is also the subtree at the same path of
// the trie of any keys that include the run and no other key under that
// path: so Builders fed consecutive runs hash every such subtree at full
// speed, and only their hashes go into the tree. The path of the last
// key is built as nodes instead (by buildFresh, from a slab), since
// hasKeysAfter walks down it, and so are runs too short to gain from the
// Builder. Anywhere else (short nodes the keys part in, values,
// hashes) the keys go in one by one, through insert.

// freshBuilderMin is the fewest keys of a run that the Builder hashes. A
// branch over 8 keys or more is never shorter than 32 bytes (each leaf
// below it takes 3 bytes at least), so the Builder always reports it.
const freshBuilderMin = 8

// rangeInsert is one insertRange: the keys as bytes and as nibbles (with
// terminators), their values, and the nodes of the new subtrees.
type rangeInsert struct {
	t                   *Trie // files the nodes made for its next Hash
	keys, paths, values [][]byte
	shorts              []shortNode
	fulls               []fullNode
	// byBuilder says the Builder can take the keys; runs are the key
	// ranges of the subtrees it is to hash, in order, and hashed maps the
	// path of each to the node that takes its hash.
	byBuilder bool
	runs      [][2]int
	hashed    map[string]*hashNode
	// hashedDepths marks the depths of the paths in hashed: the Builders
	// report only the nodes there, and hash the others in batches.
	hashedDepths []bool
	// nibbles is what is left of the buffer that paths are cut from.
	nibbles []byte
}

// insertRange inserts keys and values (strictly ascending, as checkRange
// checks) as go-ethereum's Trie.Update inserts them in turn. The trie keeps
// references to the values and to the nibbles of the keys it builds nodes
// for.
func (t *Trie) insertRange(keys, values [][]byte) error {
	if len(keys) == 0 {
		return nil
	}
	r := &rangeInsert{t: t, keys: keys, paths: make([][]byte, len(keys)), values: values,
		byBuilder: longestKey(keys) <= MaxKeyLength}
	changed, root, err := t.insertSorted(r, t.root, 0, len(keys), 0)
	if err != nil {
		return err
	}
	if err := r.hashSubtrees(); err != nil {
		return err
	}
	if changed {
		t.root = root
	}
	return nil
}

// Most keys of a range go to a Builder as bytes; their nibbles are read
// from the bytes where needed, and spelt out only for the keys that become
// nodes.

// pathLen is the number of nibbles of key i, its terminator included.
func (r *rangeInsert) pathLen(i int) int { return 2*len(r.keys[i]) + 1 }

// nibble returns nibble pos of key i; the one after the last is the
// terminator.
func (r *rangeInsert) nibble(i, pos int) byte {
	if pos >= 2*len(r.keys[i]) {
		return terminator
	}
	return nibble(r.keys[i], pos)
}

// path returns the nibbles of key i with the terminator.
func (r *rangeInsert) path(i int) []byte {
	if r.paths[i] == nil {
		key := r.keys[i]
		n := 2*len(key) + 1
		if len(r.nibbles) < n {
			r.nibbles = make([]byte, max(n, 4096))
		}
		path := r.nibbles[:n:n]
		r.nibbles = r.nibbles[n:]
		for j, b := range key {
			path[2*j], path[2*j+1] = b>>4, b&0x0f
		}
		path[2*len(key)] = terminator
		r.paths[i] = path
	}
	return r.paths[i]
}

// fork returns the position of the nibble where keys lo and hi-1 part.
// As checkRange checks, no key is a prefix of another, so two keys part
// before either ends, and the keys between them share all that they share.
func (r *rangeInsert) fork(lo, hi int) int {
	return commonPrefixNibbles(r.keys[lo], r.keys[hi-1])
}

// hasNibbles reports whether key i has the nibbles want from pos on.
func (r *rangeInsert) hasNibbles(i, pos int, want []byte) bool {
	if pos+len(want) > r.pathLen(i) {
		return false
	}
	for j, nib := range want {
		if r.nibble(i, pos+j) != nib {
			return false
		}
	}
	return true
}

// insertSorted inserts the keys lo to hi (all through n at their nibbles
// [:pos]) below n, and returns whether n changed and the node to put in
// its place, as insert does for one key.
func (t *Trie) insertSorted(r *rangeInsert, n node, lo, hi, pos int) (bool, node, error) {
	if lo == hi {
		return false, n, nil
	}
	switch c := n.(type) {
	case nil:
		if pos < r.pathLen(lo) {
			return true, r.fresh(lo, hi, pos), nil
		}
	case *fullNode:
		if pos >= r.pathLen(lo) {
			break
		}
		changed := false
		for from := lo; from < hi; {
			index := r.nibble(from, pos)
			to := from + 1
			for to < hi && r.nibble(to, pos) == index {
				to++
			}
			grew, child, err := t.insertSorted(r, c.children[index], from, to, pos+1)
			if err != nil {
				return false, n, err
			}
			if grew {
				c.children[index], changed = child, true
			}
			from = to
		}
		if changed {
			t.touch(c, r.path(lo)[:pos])
		}
		return changed, c, nil
	case *shortNode:
		// If the first and last keys go through the whole short node, all
		// keys between them do.
		if !r.hasNibbles(lo, pos, c.key) || !r.hasNibbles(hi-1, pos, c.key) {
			break
		}
		grew, child, err := t.insertSorted(r, c.val, lo, hi, pos+len(c.key))
		if !grew || err != nil {
			return false, n, err
		}
		t.touch(c, r.path(lo)[:pos])
		c.val = child
		return true, c, nil
	}
	changed := false
	for i := lo; i < hi; i++ {
		grew, next, err := t.insert(n, r.path(i), pos, valueNode(r.values[i]))
		if err != nil {
			return false, n, fmt.Errorf("key %x: %w", r.keys[i], err)
		}
		if grew {
			n, changed = next, true
		}
	}
	return changed, n, nil
}

// fresh returns the subtree of the keys lo to hi below pos in an empty
// slot: the trie of those keys alone, or, for hashSubtrees to fill in, a
// hash (below an extension of the nibbles the keys share, if any).
func (r *rangeInsert) fresh(lo, hi, pos int) node {
	if !r.byBuilder || hi-lo < freshBuilderMin || hi == len(r.keys) {
		return r.buildFresh(lo, hi, pos)
	}
	fork := r.fork(lo, hi)
	first := r.path(lo)
	if r.hashed == nil {
		r.hashed = make(map[string]*hashNode)
	}
	subtree := new(hashNode)
	r.hashed[string(first[:fork])] = subtree
	if fork >= len(r.hashedDepths) {
		r.hashedDepths = append(r.hashedDepths, make([]bool, fork+1-len(r.hashedDepths))...)
	}
	r.hashedDepths[fork] = true
	r.runs = append(r.runs, [2]int{lo, hi})
	if fork == pos {
		return subtree
	}
	return r.short(first[pos:fork], subtree, pos, lo)
}

// hashSubtrees hashes the subtrees fresh left to it. Each is the subtree
// at its path of the trie of any keys that include its run and no other
// key under that path, so Builders fed whole runs in order report it. The
// runs go in groups of consecutive runs of about parallelSubtreeKeys keys
// to up to GOMAXPROCS goroutines, each taking the next group when done
// with one (shareOut): a goroutine woken late on an idle core, which on a
// virtual machine can take longer than a range's whole work, leaves its
// groups to the others instead of holding them up. A lone goroutine takes
// all the runs as one group, so that its one Builder finishes once instead
// of flushing part-filled batches at the end of every group.
func (r *rangeInsert) hashSubtrees() error {
	if len(r.runs) == 0 {
		return nil
	}
	// Groups close once they hold groupKeys keys, so the range's keys
	// bound their number.
	workers := runtime.GOMAXPROCS(0)
	groupKeys := parallelSubtreeKeys
	if workers == 1 {
		groupKeys = len(r.keys)
	}
	groups := make([]runGroup, 0, len(r.keys)/groupKeys+1)
	for lo := 0; lo < len(r.runs); {
		hi, keys := lo, 0
		for hi < len(r.runs) && keys < groupKeys {
			keys += r.runs[hi][1] - r.runs[hi][0]
			hi++
		}
		groups = append(groups, runGroup{lo: lo, hi: hi})
		lo = hi
	}
	shareOut(workers, len(groups), func(next func() (int, bool)) {
		for i, ok := next(); ok; i, ok = next() {
			g := &groups[i]
			g.found, g.err = r.hashRuns(r.runs[g.lo:g.hi])
		}
	})
	sum := 0
	for _, g := range groups {
		if g.err != nil {
			return g.err // the first in key order, whatever the timing
		}
		sum += g.found
	}
	if sum != len(r.hashed) {
		// Not possible by freshBuilderMin; never leave a subtree unhashed.
		return fmt.Errorf("%w: %d of %d subtrees of the range not hashed", ErrRangeShape, len(r.hashed)-sum, len(r.hashed))
	}
	return nil
}

// runGroup is a group of hashSubtrees's runs, runs[lo:hi], and what
// hashRuns made of it.
type runGroup struct {
	lo, hi int
	found  int
	err    error
}

// parallelSubtreeKeys is the keys of a group of runs that hashSubtrees
// hands a goroutine at a time: enough to fill the Builder's batches and
// pay for its setup, few enough that 1,000 keys make several groups.
const parallelSubtreeKeys = 256

// hashRuns feeds the keys of runs to a Builder and fills in the hashes of
// their subtrees; it returns how many it filled.
func (r *rangeInsert) hashRuns(runs [][2]int) (int, error) {
	h := subtreeHashers.Get().(*subtreeHasher)
	defer subtreeHashers.Put(h)
	h.builder.Reset()
	h.builder.reportOnlyAt(r.hashedDepths)
	h.hashed, h.found = r.hashed, 0
	defer func() { h.hashed = nil; h.builder.reportOnlyAt(nil) }()
	for _, run := range runs {
		for i := run[0]; i < run[1]; i++ {
			if err := h.builder.Update(r.keys[i], r.values[i]); err != nil {
				return 0, fmt.Errorf("%w: %w", ErrRangeKeys, err)
			}
		}
	}
	h.builder.Hash()
	return h.found, nil
}

// subtreeHasher is a Builder that hands the hashes of the nodes at some
// paths to the nodes waiting for them, kept for reuse.
type subtreeHasher struct {
	builder *Builder
	hashed  map[string]*hashNode
	found   int
}

var subtreeHashers = sync.Pool{New: func() any {
	h := new(subtreeHasher)
	h.builder = NewBuilder(h.onNode)
	return h
}}

func (h *subtreeHasher) onNode(path []byte, hash [32]byte, _ []byte) {
	if subtree, ok := h.hashed[string(path)]; ok {
		*subtree = hash
		h.found++
	}
}

// short and full take a new node from the slab, at depth on the path of
// key lo, and file it for the next Hash, which then encodes it with the
// other nodes of its depth and hashes it in a batch (unfiled, it would be
// encoded and hashed alone when its parent is, by ensureRef).
func (r *rangeInsert) short(key []byte, val node, depth, lo int) *shortNode {
	if len(r.shorts) == 0 {
		r.shorts = make([]shortNode, 64)
	}
	n := &r.shorts[0]
	r.shorts = r.shorts[1:]
	n.key, n.val, n.cache = key, val, dirtyCache
	r.t.made(n, depth, r.path(lo))
	return n
}

func (r *rangeInsert) full(depth, lo int) *fullNode {
	if len(r.fulls) == 0 {
		r.fulls = make([]fullNode, 16)
	}
	n := &r.fulls[0]
	r.fulls = r.fulls[1:]
	n.cache = dirtyCache
	r.t.made(n, depth, r.path(lo))
	return n
}

// buildFresh returns the trie of the keys lo to hi below pos alone, as
// insert builds it from an empty slot key by key: a leaf for a single key
// (its value if no nibbles are left), else a branch at the first nibble
// where the first and the last key part, below an extension of the
// nibbles all keys share, if any. The branch's children are fresh
// subtrees again: so of the last key's run, only the last key's path is
// nodes, and the runs beside it go to the Builder.
func (r *rangeInsert) buildFresh(lo, hi, pos int) node {
	if hi-lo == 1 {
		if pos == r.pathLen(lo) {
			return valueNode(r.values[lo])
		}
		return r.short(r.path(lo)[pos:], valueNode(r.values[lo]), pos, lo)
	}
	fork := r.fork(lo, hi)
	branch := r.full(fork, lo)
	for from := lo; from < hi; {
		index := r.nibble(from, fork)
		to := from + 1
		for to < hi && r.nibble(to, fork) == index {
			to++
		}
		branch.children[index] = r.fresh(from, to, fork+1)
		from = to
	}
	if fork == pos {
		return branch
	}
	return r.short(r.path(lo)[pos:fork], branch, pos, lo)
}

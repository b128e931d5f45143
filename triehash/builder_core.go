package triehash

// The streaming core of the Builder.
//
// Keys arrive in ascending order. Of all the keys, the one before a key and
// the one after it share the longest prefixes with it, so its place in the
// trie is decided by those two alone: its leaf hangs from a branch at the
// depth (in nibbles) of the longer of the two shared prefixes, and a branch
// exists at the depth of each of them.
//
// The core places one key at a time and keeps the branches on that key's
// path that may still get children: the open branches, a stack ordered by
// depth. To place a key that shares next nibbles with the key after it:
//
//  1. If the deepest open branch lies above depth next, open one at next:
//     the key and the next one part at that nibble, under a common branch.
//     (If it lies below, the key shares more with the key before it and
//     hangs from that branch; the one at next opens in step 3.)
//  2. Put the key into the deepest open branch: as its value if the key
//     ends there, else as a leaf holding the rest of the key.
//  3. Fold: the next key, and every one after it, parts from this key at
//     nibble next, so no open branch deeper than next can get another
//     child. Close them, innermost first: encode each one, with an
//     extension node above it for the nibbles that all its keys share
//     below its parent, turn the encoding into the reference its parent
//     keeps (see nodeSink), store that in the parent and drop the branch.
//     The parent is the open branch above it or, if the next key parts
//     from this one below that, a branch opened at depth next.
//
// After the last key, one more fold closes everything down to the top node,
// whose reference is the result. Every node is finished exactly once, after
// all of its children, which is the order StackTrie reports nodes in; and
// while a key is placed, every node it finishes lies on that key's path, so
// the key's leading nibbles are the node's path for onNode.
//
// The core encodes every node itself unless the batch stage in front of it
// gives it the node already encoded and hashed: the key's leaf (leaf), or a
// branch whose children are all leaves that closes right after the key
// (bottom). It then takes the given reference as it is, and reports the
// given encoding in its place in the stream.

// streamCore is the Builder's streaming core; see above.
type streamCore struct {
	// open holds the open branches on the path of key, by strictly
	// increasing depth. Entries past len are kept for reuse.
	open []branch

	// key is the key being placed, value its value. With the batch stage
	// in front, value is set only for keys without a precomputed leaf
	// (unless verifyPrecomputed is set).
	key, value []byte
	// leaf is key's leaf node, encoded and hashed ahead, if hasLeaf.
	leaf    precomputedNode
	hasLeaf bool
	// bottom is the branch that closes once key is placed, encoded and
	// hashed ahead, if hasBottom.
	bottom    precomputedNode
	hasBottom bool

	// topDepth is the depth at which the top node begins: 0 for a whole
	// trie, 1 for the tries that Options.build has workers build under one
	// child each of the root branch, which it then encodes itself.
	topDepth int

	scratch []byte // one node's encoding
	sink    nodeSink
}

// branch is an open branch node at a given depth (in nibbles): its children
// are indexed by the key nibble at that depth.
type branch struct {
	depth int
	// childMask says which children are set. Those in pendingMask wait in
	// the sink's deferred queue for their hash; the queue's flush writes
	// it into children and clears their bit.
	childMask   uint16
	pendingMask uint16
	children    [16]ref
	value       []byte // of the key that ends at this branch, if hasValue
	hasValue    bool
}

// ref is how a parent refers to a finished child node: by its 32-byte hash,
// or, when the child's encoding is shorter than 32 bytes, by that encoding
// itself, embedded. size is 32 for a hash, else the encoding's length.
type ref struct {
	size uint8
	data [32]byte
}

// hashed reports whether r holds a hash rather than an embedded encoding.
func (r *ref) hashed() bool { return r.size == 32 }

// set makes r a copy of from. A ref is 33 bytes, which the compiler copies
// as three overlapping 16-byte moves; a copy of a copy then reads 16 bytes
// across two of those stores, which the core cannot forward to the load,
// and waits for them to reach the cache (a dozen cycles or more, many times
// a key). set copies the fields, a byte and two 16-byte halves, so that
// every load in a chain of copies reads what one store wrote.
func (r *ref) set(from *ref) {
	r.size = from.size
	r.data = from.data
}

// precomputedNode is a node the batch stage encoded and hashed ahead: the
// reference its parent keeps, where the batch stage holds it until the
// chunk is fed (the core copies it once, into the parent), its encoding
// for onNode (nil unless the stage keeps encodings) and, for a bottom
// branch, its depth.
type precomputedNode struct {
	ref      *ref
	encoding []byte
	depth    int
}

// allocate sizes the core's buffers for a first trie.
func (c *streamCore) allocate() {
	c.open = make([]branch, 0, 8)
	c.scratch = make([]byte, 0, 17*33+3) // a branch of 16 hashes and a value of up to 32 bytes
}

func (c *streamCore) reset() {
	c.open = c.open[:0]
	c.sink.deferred.reset()
	c.key, c.value = nil, nil
	c.hasLeaf, c.hasBottom = false, false
}

// advance places key, which shares next nibbles with the key after it, and
// closes every branch that the next key cannot reach: steps 1 to 3 above.
func (c *streamCore) advance(next int) {
	if len(c.open) == 0 || c.top().depth < next {
		c.push(next)
	}
	c.placeKey()
	c.fold(next)
	if verifyPrecomputed && c.hasBottom {
		c.mismatch("bottom branch", c.bottom.depth, *c.bottom.ref, nil, "the core closes no branch at that depth")
	}
	c.hasLeaf, c.hasBottom = false, false
}

// finish places the last key and closes every open branch, and returns the
// reference to the top node.
func (c *streamCore) finish() ref {
	if len(c.open) == 0 {
		// A single key: one leaf holding the rest of the key.
		var r ref
		c.scratch = appendLeaf(c.scratch[:0], c.key, c.topDepth, c.value)
		c.sink.commitNow(c.scratch, c.key, c.topDepth, &r)
		return r
	}
	c.placeKey()
	r, waiting := c.fold(c.topDepth - 1)
	if waiting >= 0 || c.sink.deferred.n > 0 {
		c.sink.flush(c.open)
		if waiting >= 0 {
			c.sink.deferred.hashOf(waiting, &r)
		}
	}
	c.sink.deferred.reset()
	c.hasLeaf, c.hasBottom = false, false
	return r
}

func (c *streamCore) top() *branch { return &c.open[len(c.open)-1] }

// push opens an empty branch at depth.
func (c *streamCore) push(depth int) {
	if len(c.open) < cap(c.open) {
		c.open = c.open[:len(c.open)+1]
	} else {
		c.open = append(c.open, branch{})
	}
	t := c.top()
	t.depth = depth
	t.childMask, t.pendingMask = 0, 0
	t.hasValue = false
	t.value = t.value[:0]
}

// placeKey puts key into the deepest open branch: as that branch's value if
// the key ends there, else as a leaf child.
func (c *streamCore) placeKey() {
	t := c.top()
	if t.depth == 2*len(c.key) {
		if verifyPrecomputed && c.hasLeaf {
			c.mismatch("leaf", t.depth+1, *c.leaf.ref, c.leaf.encoding, "the key ends at the branch above it")
		}
		t.value = append(t.value[:0], c.value...)
		t.hasValue = true
		return
	}
	// The deepest open branch sits at the longer of the prefixes the key
	// shares with its neighbours: the leaf hangs from it, holding the
	// nibbles after the branch's child nibble.
	depth := t.depth + 1
	if !c.hasLeaf {
		var r ref
		c.scratch = appendLeaf(c.scratch[:0], c.key, depth, c.value)
		waiting := c.sink.commit(c.scratch, c.key, depth, c.open, &r)
		c.setChild(len(c.open)-1, nibble(c.key, t.depth), &r, waiting)
		return
	}
	if verifyPrecomputed {
		c.scratch = appendLeaf(c.scratch[:0], c.key, depth, c.value)
		c.verify("leaf", depth, &c.leaf)
	}
	if c.leaf.ref.hashed() {
		c.sink.report(c.key, depth, &c.leaf.ref.data, c.leaf.encoding)
	}
	c.setChild(len(c.open)-1, nibble(c.key, t.depth), c.leaf.ref, -1)
}

// setChild stores r as child i of the open branch at level; if waiting is
// not -1, r is not known yet and waits in the deferred queue at that index.
func (c *streamCore) setChild(level int, i byte, r *ref, waiting int) {
	t := &c.open[level]
	t.childMask |= 1 << i
	if waiting < 0 {
		t.children[i].set(r)
		return
	}
	// A hash still to come: the queue's flush writes it.
	t.children[i].size = 32
	t.pendingMask |= 1 << i
	c.sink.deferred.storedAt(waiting, level, i)
}

// fold closes every open branch deeper than depth, innermost first, and
// stores each one's reference in its parent, opening the parent at depth
// if no open branch is there. With depth topDepth-1 it closes them all and
// returns the reference to the top node, with its index in the deferred
// queue if it waits there (else -1).
func (c *streamCore) fold(depth int) (r ref, waiting int) {
	waiting = -1
	for len(c.open) > 0 && c.top().depth > depth {
		parent := depth
		if len(c.open) > 1 {
			parent = max(parent, c.open[len(c.open)-2].depth)
		}
		waiting = c.closeBranch(c.top(), parent, &r)
		c.open = c.open[:len(c.open)-1]
		if parent == c.topDepth-1 {
			continue // the top node: nothing above it in this trie
		}
		if len(c.open) == 0 || c.top().depth < parent {
			c.push(parent)
		}
		c.setChild(len(c.open)-1, nibble(c.key, parent), &r, waiting)
	}
	return r, waiting
}

// closeBranch encodes a finished branch and, if it sits deeper than one
// nibble below its parent (at depth parent), the extension node that leads
// to it. It sets *r to the reference the parent keeps and returns its index
// in the deferred queue if it waits there (else -1), r's hash to come. br
// is the deepest open branch.
func (c *streamCore) closeBranch(br *branch, parent int, r *ref) (waiting int) {
	extension := br.depth > parent+1
	if c.hasBottom && c.bottom.depth == br.depth {
		if verifyPrecomputed {
			c.sink.flush(c.open) // a bottom branch has leaves only; in case it has not
			c.scratch = appendBranch(c.scratch[:0], br)
			c.verify("bottom branch", br.depth, &c.bottom)
		}
		r.set(c.bottom.ref)
		waiting = -1
		if r.hashed() {
			c.sink.report(c.key, br.depth, &r.data, c.bottom.encoding)
		}
		c.hasBottom = false
	} else {
		waiting = c.commitBranch(br, extension, parent, r)
	}
	if !extension {
		return waiting
	}
	if waiting >= 0 && !c.sink.defersAt(parent+1) {
		// The extension is hashed now (it is the root, or onNode wants
		// it): so is its child.
		c.sink.flush(c.open)
		c.sink.deferred.hashOf(waiting, r)
		waiting = -1
	}
	c.scratch = appendExtension(c.scratch[:0], c.key, parent+1, br.depth, r)
	if waiting < 0 {
		return c.sink.commit(c.scratch, c.key, parent+1, c.open, r)
	}
	// The branch waits for its hash, and the extension with it, in the
	// room commitBranch reserved for both.
	d := &c.sink.deferred
	ext := c.sink.queue(c.scratch, c.key, parent+1, 1)
	d.waitsFor(waiting, ext, len(c.scratch)-32)
	r.size = 32
	return ext
}

// commitBranch encodes br, the deepest open branch, and commits it. If it
// is deferred while some of its children still wait for their hashes, it
// is queued with holes for them, and they are re-filed to wait in it. With
// extension, room is reserved for the extension node that is committed
// next, above it at depth parent+1. It sets *r and returns the index in
// the queue as closeBranch does.
func (c *streamCore) commitBranch(br *branch, extension bool, parent int, r *ref) (waiting int) {
	if br.pendingMask != 0 && !c.sink.defersAt(br.depth) {
		c.sink.flush(c.open) // the root, or a node onNode wants, is hashed now
	}
	var offsets [16]uint16
	c.scratch = appendBranchAt(c.scratch[:0], br, &offsets)
	if !c.sink.defers(c.scratch, br.depth) {
		c.sink.commitNow(c.scratch, c.key, br.depth, r)
		return -1
	}
	size, entries := len(c.scratch), 1
	if extension {
		size += 3 + compactSize(br.depth-parent-1) + 33
		entries++
	}
	mask := br.pendingMask
	c.sink.reserve(size, entries, c.open)
	if br.pendingMask != mask {
		// Making room hashed some of the children: fill them in.
		c.scratch = appendBranchAt(c.scratch[:0], br, &offsets)
	}
	d := &c.sink.deferred
	waiting = c.sink.queue(c.scratch, c.key, br.depth, pending(br))
	if br.pendingMask != 0 {
		d.childrenOf(len(c.open)-1, waiting, &offsets)
	}
	r.size = 32
	return waiting
}

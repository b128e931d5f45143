package triehash

import (
	"bytes"
	"errors"

	"github.com/keccakroot/keccakroot/internal/prefetch"
)

// load reads and decodes the stored node h at path: loadPath for that
// node alone.
func (t *Trie) load(h *hashNode, path []byte) (node, error) {
	return t.loadPath(h, path, len(path))
}

// lookup asks the trie's source for the node stored under h at path. It
// does not check the node's hash: loadPath and fetchChunk check the nodes
// they look up together, over a VerifyingSource.
func (t *Trie) lookup(h *hashNode, path []byte) ([]byte, error) {
	if t.src == nil {
		return nil, &MissingNodeError{Path: bytes.Clone(path), Hash: [32]byte(*h), Err: errors.New("no node source")}
	}
	blob, err := t.src.Node(path, [32]byte(*h))
	if err != nil || len(blob) == 0 {
		return nil, &MissingNodeError{Path: bytes.Clone(path), Hash: [32]byte(*h), Err: err}
	}
	return blob, nil
}

// decodeLoaded decodes blob, which the source gave for h at path, into a
// node from a.
func decodeLoaded(a *nodeAlloc, h *hashNode, path, blob []byte) (node, error) {
	n, err := decodeStored(a, [32]byte(*h), blob)
	if err != nil {
		return nil, invalidLoad(h, path, err)
	}
	return n, nil
}

// invalidLoad is the error of a node that the source gave for h at path
// and that does not decode.
func invalidLoad(h *hashNode, path []byte, err error) error {
	return &InvalidNodeError{Path: bytes.Clone(path), Hash: [32]byte(*h), Err: err}
}

// loadPath reads and decodes the stored node h at k[:pos] on the way of
// the key k and, while the node loaded last is a branch of hashes with a
// stored child on k's way, that child too, each linked into its parent in
// place of its hash, and returns the first. Get, Update and Delete would
// load the same nodes one after another; loading them here asks the source
// for a child before its parent is decoded, so that the decoding runs while
// the child's lookup and lines are on their way from memory rather than
// before. Each blob's lines are read before it is decoded: the decoder
// finds each item from the one before it, so a blob just read from a
// large store would otherwise come into the cache a line at a time. The
// nodes below the first reach the trie only through it, which the caller
// links in, so a failure leaves nothing behind.
//
// Over a VerifyingSource the nodes of the path are checked against their
// hashes together, in one Sum256Batch, once the path is loaded (and before
// any error is returned, so that a node of another hash is reported before
// what its wrong links led to): nothing of the path is in the trie before.
func (t *Trie) loadPath(h *hashNode, k []byte, pos int) (node, error) {
	expect := t.expectedValue(k)
	blob, guessed, err := t.lookupOrGuess(h, k, pos, expect)
	if err != nil {
		return nil, err
	}
	var top node
	var parent *fullNode
	for {
		if t.checkNodes && !guessed {
			t.pathChecks.add(h, blob, pos) // tagged with the node's path length
		}
		t.readSink ^= prefetch.Read(blob)
		layout, isBranch := scanBranchOfHashes(blob)
		if !isBranch {
			n, err := decodeStoredList(&t.alloc, [32]byte(*h), blob)
			if err != nil {
				err = invalidLoad(h, k[:pos], err)
			}
			if err := t.checkPath(k, err); err != nil {
				return nil, err
			}
			return link(top, parent, k, pos, n), nil
		}
		var next *hashNode
		var nextBlob []byte
		if pos < len(k) && k[pos] < terminator {
			next = layout.child(blob, int(k[pos]))
		}
		nextGuessed := false
		if next != nil {
			if nextBlob, nextGuessed, err = t.lookupOrGuess(next, k, pos+1, expect); err != nil {
				return nil, t.checkPath(k, err)
			}
			prefetch.Lines([][]byte{nextBlob})
		}
		n := layout.branch(&t.alloc, blob)
		n.cache.loaded([32]byte(*h), blob)
		top = link(top, parent, k, pos, n)
		if next == nil {
			if err := t.checkPath(k, nil); err != nil {
				return nil, err
			}
			return top, nil
		}
		parent, h, blob, guessed, pos = n, next, nextBlob, nextGuessed, pos+1
	}
}

// checkPath returns the error of the first node loadPath loaded for k that
// is not the one its hash names, if the trie checks its nodes (see
// VerifyingSource), and otherwise err, what loading the path came to. It
// empties the list for the next path, which then holds no nodes.
func (t *Trie) checkPath(k []byte, err error) error {
	if !t.checkNodes {
		return err
	}
	c := &t.pathChecks
	c.hashAll()
	for i, end := range c.tags {
		if c.wrong(i) {
			err = c.err(i, k[:end])
			break
		}
	}
	c.reset()
	return err
}

// link puts n, loaded at k[:pos] below parent, in place of its hash, and
// returns the first node of the path: top, or n if there is no parent.
func link(top node, parent *fullNode, k []byte, pos int, n node) node {
	if parent == nil {
		return n
	}
	parent.children[k[pos-1]] = n
	return top
}

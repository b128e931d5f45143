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

// lookup asks the trie's source for the node stored under h at path.
func (t *Trie) lookup(h *hashNode, path []byte) ([]byte, error) {
	blob, err := t.lookupUnchecked(h, path)
	if err == nil && t.checkNodes {
		if err := CheckNode(blob, *h); err != nil {
			return nil, &MissingNodeError{Path: bytes.Clone(path), Hash: [32]byte(*h), Err: err}
		}
	}
	return blob, err
}

// lookupUnchecked is lookup without the check of a VerifyingSource, for a
// caller that checks the nodes it looks up together (see
// nodeLoader.checkChunk).
func (t *Trie) lookupUnchecked(h *hashNode, path []byte) ([]byte, error) {
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
func (t *Trie) loadPath(h *hashNode, k []byte, pos int) (node, error) {
	blob, err := t.lookup(h, k[:pos])
	if err != nil {
		return nil, err
	}
	var top node
	var parent *fullNode
	for {
		t.readSink ^= prefetch.Read(blob)
		layout, isBranch := scanBranchOfHashes(blob)
		if !isBranch {
			n, err := decodeStoredList(&t.alloc, [32]byte(*h), blob)
			if err != nil {
				return nil, invalidLoad(h, k[:pos], err)
			}
			return link(top, parent, k, pos, n), nil
		}
		var next *hashNode
		var nextBlob []byte
		if pos < len(k) && k[pos] < terminator {
			next = layout.child(blob, int(k[pos]))
		}
		if next != nil {
			if nextBlob, err = t.lookup(next, k[:pos+1]); err != nil {
				return nil, err
			}
			prefetch.Lines([][]byte{nextBlob})
		}
		n := layout.branch(&t.alloc, blob)
		n.cache.loaded([32]byte(*h), blob)
		top = link(top, parent, k, pos, n)
		if next == nil {
			return top, nil
		}
		parent, h, blob, pos = n, next, nextBlob, pos+1
	}
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

package triehash

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// errWrongNode reports a node whose hash is not the one asked for.
var errWrongNode = errors.New("triehash: source returned a node of another hash")

// VerifyingSource wraps a NodeSource that cannot answer for the hashes of
// the nodes it returns (a store keyed by path alone, a cache, the network)
// and checks each one: a node whose Keccak-256 is not the hash asked for is
// an error, which the Trie reports as a MissingNodeError for that path and
// hash. The check costs one hash of every node loaded; a Trie opened over
// a VerifyingSource makes it itself, hashing the nodes it loads together
// in batches (the nodes of a key's path, and those that Prefetch and
// UpdateBatch load a level at a time). It is safe for concurrent use if
// src is. A nil src holds no nodes.
func VerifyingSource(src NodeSource) NodeSource { return verifyingSource{src} }

type verifyingSource struct{ src NodeSource }

func (v verifyingSource) Node(path []byte, hash [32]byte) ([]byte, error) {
	if v.src == nil {
		return nil, nil
	}
	blob, err := v.src.Node(path, hash)
	if err != nil || len(blob) == 0 {
		return blob, err
	}
	if err := CheckNode(blob, hash); err != nil {
		return nil, err
	}
	return blob, nil
}

// CheckNode returns nil if hash is the Keccak-256 of blob, and otherwise
// an error that gives blob's own hash: VerifyingSource's check, for a
// store that checks its nodes elsewhere (below a cache, say, so that the
// nodes the cache serves are not hashed again). A Trie reports a source's
// error as a MissingNodeError for the node's path and hash.
func CheckNode(blob []byte, hash [32]byte) error {
	if got := fastkeccak.Sum256(blob); got != hash {
		return wrongNode(got)
	}
	return nil
}

// wrongNode is the error of a node whose hash, got, is not the one asked
// for.
func wrongNode(got [32]byte) error { return fmt.Errorf("%w: %x", errWrongNode, got) }

// nodeChecks gathers nodes a trie loaded, each with the hash it was asked
// for and a tag of the caller's, to check them together with one
// Sum256Batch: one at a time (CheckNode), a node of a few blocks costs
// several times its share of a batch. loadPath checks a key's path this
// way, and the level loader a chunk of its loads.
type nodeChecks struct {
	blobs  [][]byte
	hashes [][32]byte
	tags   []int
	sums   [][32]byte
}

// reset empties the list; it then holds no nodes.
func (c *nodeChecks) reset() {
	clear(c.blobs)
	c.blobs, c.hashes, c.tags = c.blobs[:0], c.hashes[:0], c.tags[:0]
}

func (c *nodeChecks) add(h *hashNode, blob []byte, tag int) {
	c.blobs = append(c.blobs, blob)
	c.hashes = append(c.hashes, [32]byte(*h))
	c.tags = append(c.tags, tag)
}

// hashAll hashes the nodes added, for wrong and err.
func (c *nodeChecks) hashAll() {
	c.sums = slices.Grow(c.sums[:0], len(c.blobs))[:len(c.blobs)]
	fastkeccak.Sum256Batch(c.sums, c.blobs)
}

// wrong reports whether node i is not the one its hash names.
func (c *nodeChecks) wrong(i int) bool { return c.sums[i] != c.hashes[i] }

// err is the error of node i, loaded at path, when it is wrong.
func (c *nodeChecks) err(i int, path []byte) error {
	return &MissingNodeError{Path: bytes.Clone(path), Hash: c.hashes[i], Err: wrongNode(c.sums[i])}
}

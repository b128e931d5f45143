package triehash

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/keccakroot/keccakroot/rlpstream"
)

// Decoding of stored nodes. It accepts what go-ethereum's trie decoder
// accepts (trie/node.go), with one exception (an extension with an empty
// path, see checkExtensions), so that a trie, a proof or a range proof
// built from the same bytes reaches the same decision in both: a node is an
// RLP list of 2 items (short node) or 17 (branch); a child reference is a
// 32-byte hash, an empty string, or an embedded list under 32 bytes; values
// are strings. Bytes after the node's list are ignored, as there.

// Node decoding errors, wrapped with what and where by decodeStored.
var (
	errNodeItems     = errors.New("node is not a list of 2 or 17 items")
	errNodeRef       = errors.New("child reference is neither a 32-byte hash, empty, nor an embedded node")
	errEmbeddedSize  = errors.New("embedded node of 32 bytes or more")
	errValueNotBytes = errors.New("value is a list, not a string")
	errEmptyPath     = errors.New("extension with an empty path")
)

// decodeStored decodes the node stored under hash, its branch or leaf
// taken from a (which may be nil). The node keeps references into blob
// (values, and the hashes of children), so blob must not change
// afterwards.
func decodeStored(a *nodeAlloc, hash [32]byte, blob []byte) (node, error) {
	if branch := decodeBranchOfHashes(a, blob); branch != nil {
		// Children by hash only: no extension to check.
		branch.cache.loaded(hash, blob)
		return branch, nil
	}
	return decodeStoredList(a, hash, blob)
}

// decodeStoredList is decodeStored for a blob that is not a branch of
// hashes: the general decoder, for the caller that has scanned it already.
func decodeStoredList(a *nodeAlloc, hash [32]byte, blob []byte) (node, error) {
	n, err := decodeListNode(a, blob)
	if err != nil {
		return nil, err
	}
	if err := checkExtensions(n); err != nil {
		return nil, err
	}
	if branch, ok := n.(*fullNode); ok {
		// Encoded from its children: the copying encoder is kept to the
		// branches of hashes, which this decoder has read item by item
		// (see appendBranchOverStored).
		branch.rewritten = allRewritten
	}
	cacheOf(n).loaded(hash, blob)
	return n, nil
}

// checkExtensions rejects a node that is, or embeds, an extension with an
// empty path. go-ethereum decodes one, but no trie of keys has it, and a
// Trie walking such a node would not advance along the key: a source that
// files a node under a hash not its own could lead it round for ever.
func checkExtensions(n node) error {
	switch n := n.(type) {
	case *shortNode:
		if len(n.key) == 0 {
			return errEmptyPath
		}
		return checkExtensions(n.val)
	case *fullNode:
		for _, c := range n.children[:16] {
			if err := checkExtensions(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodeNode decodes one node. Embedded children are decoded too; their
// cache stays empty, so that they are encoded again from their content
// when their parent is, as go-ethereum does.
func decodeNode(blob []byte) (node, error) {
	if n := decodeBranchOfHashes(nil, blob); n != nil {
		return n, nil
	}
	return decodeListNode(nil, blob)
}

// decodeListNode is decodeNode without the fast path for branches of
// hashes: the general decoder, which reads every node. A leaf's node is
// taken from a (which may be nil).
func decodeListNode(a *nodeAlloc, blob []byte) (node, error) {
	if len(blob) == 0 {
		return nil, fmt.Errorf("empty node: %w", rlpstream.ErrUnexpectedEnd)
	}
	items, _, err := rlpstream.SplitList(blob)
	if err != nil {
		return nil, err
	}
	// One pass splits the items, up to one more than a branch has: a
	// malformed item or a count other than 2 or 17 is an error, as in
	// go-ethereum, which counts the items first.
	var parts [18][]byte
	count := 0
	for rest := items; len(rest) > 0; count++ {
		if count == len(parts) {
			return nil, fmt.Errorf("%w: more than 17 items", errNodeItems)
		}
		_, _, after, err := rlpstream.Split(rest)
		if err != nil {
			return nil, err
		}
		parts[count], rest = rest[:len(rest)-len(after)], after
	}
	switch count {
	case 2:
		return decodeShort(a, parts[0], parts[1])
	case 17:
		return decodeFull(&parts)
	}
	return nil, fmt.Errorf("%w: %d items", errNodeItems, count)
}

// decodeBranchOfHashes decodes blob if it is a branch whose children are
// all hashes or empty and which has no value, the nodes of a large trie
// but its leaves, and returns nil for any other node (or a header that is
// not canonical, or bytes after the list), which the general decoder reads.
// The node is taken from a (which may be nil).
func decodeBranchOfHashes(a *nodeAlloc, blob []byte) *fullNode {
	layout, ok := scanBranchOfHashes(blob)
	if !ok {
		return nil
	}
	return layout.branch(a, blob)
}

// hashesLayout is the shape of the encoding of a branch of hashes: the
// length of its list header, and which of its 16 child items are 33-byte
// hashes (the others are empty, one byte each; the value item, empty, is
// last). Every item's offset follows from these two.
type hashesLayout struct {
	header int
	hashes uint16
}

// layoutOfHashes returns the layout of a branch of hashes whose encoding is
// size bytes long and whose hash items are those set in hashes: its list
// header is what the items leave of size.
func layoutOfHashes(size int, hashes uint16) hashesLayout {
	return hashesLayout{header: size - terminator - 1 - 32*bits.OnesCount16(hashes), hashes: hashes}
}

// itemAt returns where item i (0 to 16) starts.
func (l hashesLayout) itemAt(i int) int {
	return l.header + i + 32*bits.OnesCount16(l.hashes&(1<<i-1))
}

// itemSize returns the size of item i: 33 for a hash, 1 for an empty item.
func (l hashesLayout) itemSize(i int) int { return 1 + 32*int(l.hashes>>i&1) }

// scanBranchOfHashes finds the layout of blob if it is a branch of hashes
// (see decodeBranchOfHashes), and reports whether it is.
func scanBranchOfHashes(blob []byte) (hashesLayout, bool) {
	if len(blob) < 2 {
		return hashesLayout{}, false
	}
	var pos, size int
	switch b := blob[0]; {
	case b >= 0xc0 && b <= 0xf7:
		pos, size = 1, int(b-0xc0)
	case b == 0xf8:
		pos, size = 2, int(blob[1])
		if size < 56 {
			return hashesLayout{}, false
		}
	case b == 0xf9 && len(blob) >= 3:
		pos, size = 3, int(blob[1])<<8|int(blob[2])
		if size < 256 {
			return hashesLayout{}, false
		}
	default:
		return hashesLayout{}, false
	}
	end := pos + size
	if end != len(blob) {
		return hashesLayout{}, false
	}
	layout := hashesLayout{header: pos}
	// Which slots hold hashes is as good as random in a trie of hashed
	// keys: each item's size is computed without a branch on it, which a
	// test per slot mispredicted several times a node. A hash item that
	// runs past the end leaves pos beyond it, which the next item's test
	// or the last one's catches.
	for i := range 16 {
		if pos >= end {
			return hashesLayout{}, false
		}
		b := blob[pos]
		if b|0x20 != 0xa0 { // neither 0x80, empty, nor 0xa0, a hash
			return hashesLayout{}, false
		}
		hash := 0
		if b == 0xa0 {
			hash = 1
		}
		layout.hashes |= uint16(hash) << i
		pos += 1 + 32*hash
	}
	if pos+1 != end || blob[pos] != 0x80 {
		return hashesLayout{}, false
	}
	return layout, true
}

// child returns the hash of child i of the branch of hashes blob, nil if
// the slot is empty.
func (l hashesLayout) child(blob []byte, i int) *hashNode {
	if l.hashes&(1<<i) == 0 {
		return nil
	}
	at := l.itemAt(i) + 1
	return (*hashNode)(blob[at : at+32])
}

// branch returns the branch of hashes blob as a node from a (which may be
// nil). It is allocated only once the blob is known to be one: most blobs
// that are not, leaves, get as far as the scan.
func (l hashesLayout) branch(a *nodeAlloc, blob []byte) *fullNode {
	n := a.branch()
	n.storedHashes = l.hashes
	// The hashes by their bits, as scanBranchOfHashes found them, each
	// found by arithmetic (child) without a test per slot.
	for m := l.hashes; m != 0; m &= m - 1 {
		i := bits.TrailingZeros16(m)
		n.children[i] = l.child(blob, i)
	}
	return n
}

// decodeShort decodes a leaf or an extension from its two items, the node
// taken from a (which may be nil).
func decodeShort(a *nodeAlloc, keyItem, valItem []byte) (node, error) {
	compact, _, err := splitString(keyItem)
	if err != nil {
		return nil, fmt.Errorf("short node key: %w", err)
	}
	var nibbles [2 * 33]byte // a key of up to 32 bytes decodes without allocating
	n := a.shortNode(appendNibblesOfCompact(nibbles[:0], compact), nil)
	if n.isLeaf() {
		value, _, err := splitString(valItem)
		if err != nil {
			return nil, fmt.Errorf("leaf value: %w", err)
		}
		n.val = valueNode(value)
		return n, nil
	}
	if n.val, _, err = decodeRef(valItem); err != nil {
		return nil, fmt.Errorf("extension child: %w", err)
	}
	return n, nil
}

// decodeFull decodes a branch from its 17 items.
func decodeFull(items *[18][]byte) (node, error) {
	n := new(fullNode)
	for i, item := range items[:16] {
		if len(item) == 33 && item[0] == 0xa0 { // a hash, the usual child
			n.children[i] = (*hashNode)(item[1:])
			continue
		}
		child, _, err := decodeRef(item)
		if err != nil {
			return nil, fmt.Errorf("branch child %x: %w", i, err)
		}
		n.children[i] = child
	}
	value, _, err := splitString(items[16])
	if err != nil {
		return nil, fmt.Errorf("branch value: %w", err)
	}
	if len(value) > 0 {
		n.children[terminator] = valueNode(value)
	}
	return n, nil
}

// The kinds of child reference, as splitRef finds them.
const (
	refEmpty    = iota // no child
	refHash            // a 32-byte hash
	refEmbedded        // a whole node of under 32 bytes
)

// splitRef splits off the child reference at the start of b by go-ethereum's
// rules and says which kind it is: what follows is the hash, or the
// embedded node's encoding, and the rest of b.
func splitRef(b []byte) (kind int, ref, rest []byte, err error) {
	k, content, rest, err := rlpstream.Split(b)
	if err != nil {
		return 0, nil, b, err
	}
	switch {
	case k == rlpstream.List:
		size := len(b) - len(rest)
		if size >= 32 {
			return 0, nil, b, fmt.Errorf("%w: %d bytes", errEmbeddedSize, size)
		}
		return refEmbedded, b[:size], rest, nil
	case k == rlpstream.String && len(content) == 0:
		return refEmpty, nil, rest, nil
	case k == rlpstream.String && len(content) == 32:
		return refHash, content, rest, nil
	}
	return 0, nil, b, fmt.Errorf("%w: %d bytes", errNodeRef, len(content))
}

// decodeRef decodes a child reference at the start of b.
func decodeRef(b []byte) (node, []byte, error) {
	kind, ref, rest, err := splitRef(b)
	switch {
	case err != nil || kind == refEmpty:
		return nil, rest, err
	case kind == refHash:
		return (*hashNode)(ref), rest, nil
	}
	// An embedded node is under 32 bytes: not a branch of hashes.
	child, err := decodeListNode(nil, ref)
	return child, rest, err
}

// splitString splits off a string (or single byte) item.
func splitString(b []byte) (content, rest []byte, err error) {
	kind, content, rest, err := rlpstream.Split(b)
	if err != nil {
		return nil, b, err
	}
	if kind == rlpstream.List {
		return nil, b, errValueNotBytes
	}
	return content, rest, nil
}

package triehash

import (
	"fmt"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/rlpstream"
)

// A proof is checked by walking its encoded nodes as they are, without
// decoding them into a tree: walkStored checks a node exactly as
// decodeNode does (so that VerifyProof rejects what go-ethereum's decoder
// rejects, in any child of a node, not only on the path) and follows the
// key through it and the nodes embedded in it. Nothing is allocated.

// walkKind is where a key's walk through a stored node ends.
type walkKind uint8

const (
	walkAbsent walkKind = iota // the key leaves the trie
	walkHash                   // at a child stored by hash
	walkValue                  // at the key's value
)

// walkStep is the end of a key's walk through one stored node.
type walkStep struct {
	kind  walkKind
	rest  []byte // walkHash: the key's nibbles below the child
	hash  []byte // walkHash: the child's hash, 32 bytes of the node
	value []byte // walkValue: the value, in the node
}

// walkStored checks blob as decodeNode does and follows key (nibbles with
// the terminator) down through it.
func walkStored(blob, key []byte) (walkStep, error) {
	// Most nodes of a proof are branches of hashes, which decodeNode
	// accepts: their layout gives the child on the key's way by
	// arithmetic, without splitting the 17 items one by one (walkFull
	// returns the same step for them). Any other blob is walked item by
	// item.
	if layout, ok := scanBranchOfHashes(blob); ok {
		if len(key) > 0 && key[0] < terminator {
			if h := layout.child(blob, int(key[0])); h != nil {
				return walkStep{kind: walkHash, rest: key[1:], hash: h[:]}, nil
			}
		}
		return walkStep{}, nil // the value item of a branch of hashes is empty
	}
	return walkNode(blob, key, true)
}

// walkNode checks a node and, if follow, follows key through it.
func walkNode(blob, key []byte, follow bool) (walkStep, error) {
	if len(blob) == 0 {
		return walkStep{}, fmt.Errorf("empty node: %w", rlpstream.ErrUnexpectedEnd)
	}
	items, _, err := rlpstream.SplitList(blob)
	if err != nil {
		return walkStep{}, err
	}
	count, err := rlpstream.CountValues(items)
	if err != nil {
		return walkStep{}, err
	}
	switch count {
	case 2:
		return walkShort(items, key, follow)
	case 17:
		return walkFull(items, key, follow)
	}
	return walkStep{}, fmt.Errorf("%w: %d items", errNodeItems, count)
}

func walkShort(items, key []byte, follow bool) (walkStep, error) {
	compact, rest, err := splitString(items)
	if err != nil {
		return walkStep{}, fmt.Errorf("short node key: %w", err)
	}
	matched := 0
	if follow {
		var ok bool
		matched, ok = matchCompact(compact, key)
		follow = ok
	}
	if len(compact) > 0 && compact[0]>>4 >= 2 { // a leaf, as appendNibblesOfCompact reads the flag
		value, _, err := splitString(rest)
		if err != nil {
			return walkStep{}, fmt.Errorf("leaf value: %w", err)
		}
		if !follow {
			return walkStep{}, nil
		}
		return walkStep{kind: walkValue, value: value}, nil
	}
	step, _, err := walkRef(rest, key[matched:], follow)
	if err != nil {
		return walkStep{}, fmt.Errorf("extension child: %w", err)
	}
	return step, nil
}

func walkFull(items, key []byte, follow bool) (walkStep, error) {
	index := -1
	if follow && len(key) > 0 {
		index = int(key[0])
	}
	var step walkStep
	for i := range 16 {
		s, rest, err := walkRef(items, key[min(1, len(key)):], i == index)
		if err != nil {
			return walkStep{}, fmt.Errorf("branch child %x: %w", i, err)
		}
		if i == index {
			step = s
		}
		items = rest
	}
	value, _, err := splitString(items)
	if err != nil {
		return walkStep{}, fmt.Errorf("branch value: %w", err)
	}
	if index == terminator && len(value) > 0 {
		step = walkStep{kind: walkValue, value: value}
	}
	return step, nil
}

// walkRef checks a child reference at the start of b, as decodeRef does,
// and, if follow, follows key into it; it returns what follows it in b.
func walkRef(b, key []byte, follow bool) (walkStep, []byte, error) {
	kind, ref, rest, err := splitRef(b)
	switch {
	case err != nil || kind == refEmpty:
		return walkStep{}, rest, err
	case kind == refEmbedded:
		step, err := walkNode(ref, key, follow)
		return step, rest, err
	case !follow:
		return walkStep{}, rest, nil
	}
	return walkStep{kind: walkHash, rest: key, hash: ref}, rest, nil
}

// matchCompact reports whether the nibbles of a compact (hex-prefix) key,
// as appendNibblesOfCompact decodes them, begin key, and how many they are.
func matchCompact(compact, key []byte) (int, bool) {
	if len(compact) == 0 {
		return 0, true
	}
	flag := compact[0] >> 4
	n := 0
	if flag&1 == 1 {
		if len(key) == 0 || key[0] != compact[0]&0x0f {
			return 0, false
		}
		n++
	}
	for _, b := range compact[1:] {
		if len(key) < n+2 || key[n] != b>>4 || key[n+1] != b&0x0f {
			return 0, false
		}
		n += 2
	}
	if flag >= 2 {
		if len(key) <= n || key[n] != terminator {
			return 0, false
		}
		n++
	}
	return n, true
}

// smallProofSet is the nodes of a proof of a key or two, looked up by a
// scan of their hashes: for so few nodes that is faster than a map.
type smallProofSet struct {
	digests [][32]byte
	nodes   [][]byte
}

// smallProofMax is the most nodes a smallProofSet holds.
const smallProofMax = 32

func newSmallProofSet(nodes [][]byte) *smallProofSet {
	s := &smallProofSet{digests: make([][32]byte, len(nodes)), nodes: nodes}
	fastkeccak.Sum256Batch(s.digests, nodes)
	return s
}

// Node returns the node with the given hash, wherever its path.
func (s *smallProofSet) Node(_ []byte, hash [32]byte) ([]byte, error) {
	for i := range s.digests {
		if s.digests[i] == hash {
			return s.nodes[i], nil
		}
	}
	return nil, ErrProofNodeMissing
}

// proofSource is the nodes of a proof as a source, by the fastest lookup
// for their number.
func proofSource(nodes [][]byte) NodeSource {
	if len(nodes) <= smallProofMax {
		return newSmallProofSet(nodes)
	}
	return newProofSet(nodes)
}

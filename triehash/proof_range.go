package triehash

import (
	"bytes"
	"errors"
	"fmt"
)

// Range proofs, by go-ethereum's rules (trie/proof.go, VerifyRangeProof):
// the proof of a run of consecutive keys of a trie, as snap sync fetches
// accounts and storage slots, is the keys and values themselves plus the
// proofs of the two edges of the run, the first key asked for (which may
// be absent) and the last key given. From the edge proofs alone the
// verifier knows every node to the left of the first edge and to the right
// of the last one; it cuts away what lies between the edges, inserts the
// keys, and compares the root. See proof_range_edges.go for the steps.

// Errors of range proof verification, wrapped with what is wrong; test for
// them with errors.Is. A proof node that is missing or does not decode is
// ErrProofNodeMissing or ErrProofNodeInvalid, as for VerifyProof.
var (
	// ErrRangeKeys: the keys and values cannot be a range: lengths
	// differ, keys do not ascend, one is a prefix of the next, a value is
	// empty, or the edge keys do not fit the keys.
	ErrRangeKeys = errors.New("triehash: invalid range")
	// ErrRangeMismatch: the range and its proof do not make the root:
	// a key or value is wrong, missing or extra, the proof shows keys the
	// range leaves out, or the root is wrong.
	ErrRangeMismatch = errors.New("triehash: range does not match the proof")
	// ErrRangeShape: the proof's nodes make a tree that no trie of keys
	// has, where go-ethereum's verifier panics.
	ErrRangeShape = errors.New("triehash: range proof of an impossible shape")
)

// VerifyRangeProof checks that keys and values are the entries of the trie
// with the given root from firstKey up to the last key, none left out, by
// go-ethereum's rules: it accepts exactly the ranges and proofs that
// go-ethereum's trie.VerifyRangeProof accepts, and returns the same more,
// which says whether the trie holds keys after the last one.
//
// The proof is the nodes of the proofs of firstKey and of the last key, in
// any order, extra nodes allowed. A nil proof says the keys are the whole
// trie (more is then false); a non-nil empty proof is a proof without
// nodes. With no keys, the proof of firstKey must show that the trie has
// nothing from firstKey on. The keys must ascend, none may be a prefix of
// the next, and no value may be empty. With a proof, firstKey must not
// follow the first key, and unless the range is the single key firstKey,
// firstKey and the last key must have the same length.
//
// Where go-ethereum's verifier panics on a malformed proof or range, this
// one returns an error: nothing panics.
func VerifyRangeProof(root [32]byte, firstKey []byte, keys, values [][]byte, proof [][]byte) (more bool, err error) {
	if proof == nil {
		return VerifyRangeProofFrom(root, firstKey, keys, values, nil)
	}
	return VerifyRangeProofFrom(root, firstKey, keys, values, proofSource(proof))
}

// VerifyRangeProofFrom is VerifyRangeProof with the proof's nodes in a
// source that looks them up by hash, such as go-ethereum's proof databases;
// a nil source says there is no proof: the keys are the whole trie.
func VerifyRangeProofFrom(root [32]byte, firstKey []byte, keys, values [][]byte, proof NodeSource) (more bool, err error) {
	if err := checkRange(keys, values); err != nil {
		return false, err
	}
	if proof == nil {
		return false, verifyWholeTrie(root, keys, values)
	}
	if len(keys) == 0 {
		return false, verifyEmptyRange(root, firstKey, proof)
	}
	if bytes.Compare(firstKey, keys[0]) > 0 {
		return false, fmt.Errorf("%w: first key %x precedes the range's first edge %x", ErrRangeKeys, keys[0], firstKey)
	}
	lastKey := keys[len(keys)-1]
	if len(keys) == 1 && bytes.Equal(firstKey, lastKey) {
		return verifySingleKey(root, firstKey, values[0], proof)
	}
	if bytes.Compare(firstKey, lastKey) >= 0 {
		return false, fmt.Errorf("%w: first edge %x is not before the last key %x", ErrRangeKeys, firstKey, lastKey)
	}
	// go-ethereum cuts between edges of one length only.
	if len(firstKey) != len(lastKey) {
		return false, fmt.Errorf("%w: first edge %x and last key %x differ in length", ErrRangeKeys, firstKey, lastKey)
	}
	return verifyBetweenEdges(root, firstKey, lastKey, keys, values, proof)
}

// checkRange checks what go-ethereum checks of any range before its proof.
func checkRange(keys, values [][]byte) error {
	if len(keys) != len(values) {
		return fmt.Errorf("%w: %d keys, %d values", ErrRangeKeys, len(keys), len(values))
	}
	// The first pass over the caller's keys and values: ask for them
	// ahead (a range's keys and values are often separate heap objects),
	// and the passes after this one find them in the caches.
	var ahead pairAhead
	for i, key := range keys {
		if j := i + readAhead; j < len(keys) {
			ahead.ask(keys[j], values[j])
		}
		if i+1 < len(keys) {
			if bytes.Compare(key, keys[i+1]) >= 0 {
				return fmt.Errorf("%w: keys %d and %d (%x, %x) do not ascend", ErrRangeKeys, i, i+1, key, keys[i+1])
			}
			if bytes.HasPrefix(keys[i+1], key) {
				return fmt.Errorf("%w: key %d (%x) is a prefix of key %d (%x)", ErrRangeKeys, i, key, i+1, keys[i+1])
			}
		}
		if len(values[i]) == 0 {
			return fmt.Errorf("%w: empty value (a deletion) at key %d (%x)", ErrRangeKeys, i, key)
		}
	}
	return nil
}

// verifyWholeTrie checks that keys and values make the trie of root.
func verifyWholeTrie(root [32]byte, keys, values [][]byte) error {
	if len(keys) == 1 && len(keys[0]) == 0 {
		// go-ethereum's StackTrie panics on an empty key.
		return fmt.Errorf("%w: the whole trie is one empty key", ErrRangeKeys)
	}
	var got [32]byte
	if longestKey(keys) <= MaxKeyLength {
		b := NewBuilder(nil)
		for i, key := range keys {
			if err := b.Update(key, values[i]); err != nil {
				return fmt.Errorf("%w: %w", ErrRangeKeys, err)
			}
		}
		got = b.Hash()
	} else {
		// Longer keys than a Builder takes: go-ethereum takes any.
		t := &Trie{}
		if err := t.insertRange(keys, values); err != nil {
			return err
		}
		got = t.Hash()
	}
	if got != root {
		return fmt.Errorf("%w: the keys make root %x, want %x", ErrRangeMismatch, got, root)
	}
	return nil
}

func longestKey(keys [][]byte) int {
	longest := 0
	for _, key := range keys {
		longest = max(longest, len(key))
	}
	return longest
}

// verifyEmptyRange checks that the proof of firstKey shows nothing in the
// trie from firstKey on.
func verifyEmptyRange(root [32]byte, firstKey []byte, proof NodeSource) error {
	tree, value, err := revealEdge(nil, root, firstKey, proof, true)
	if err != nil {
		return err
	}
	if value != nil {
		return fmt.Errorf("%w: no keys given, but the proof holds first key %x", ErrRangeMismatch, firstKey)
	}
	more, err := hasKeysAfter(tree, firstKey)
	if err != nil {
		return err
	}
	if more {
		return fmt.Errorf("%w: no keys given, but the proof shows keys after %x", ErrRangeMismatch, firstKey)
	}
	return nil
}

// verifySingleKey checks a range of the one key firstKey: its proof must
// prove value.
func verifySingleKey(root [32]byte, key, value []byte, proof NodeSource) (bool, error) {
	tree, proven, err := revealEdge(nil, root, key, proof, false)
	if err != nil {
		return false, err
	}
	if !bytes.Equal(proven, value) {
		return false, fmt.Errorf("%w: key %x has value %x in the proof, %x in the range", ErrRangeMismatch, key, proven, value)
	}
	return hasKeysAfter(tree, key)
}

// verifyBetweenEdges is the general case: reveal both edge paths, cut what
// lies between them, insert the keys, and compare the root.
func verifyBetweenEdges(root [32]byte, firstKey, lastKey []byte, keys, values [][]byte, proof NodeSource) (bool, error) {
	tree, _, err := revealEdge(nil, root, firstKey, proof, true)
	if err != nil {
		return false, err
	}
	if tree, _, err = revealEdge(tree, root, lastKey, proof, true); err != nil {
		return false, err
	}
	empty, err := cutBetween(tree, firstKey, lastKey)
	if err != nil {
		return false, err
	}
	if empty {
		tree = nil
	}
	// The trie has no source: inserting a key where the cut tree still
	// holds a hash, a subtree outside the edges, is a missing node, as in
	// go-ethereum.
	t := &Trie{root: tree, workers: 1}
	if err := t.insertRange(keys, values); err != nil {
		return false, fmt.Errorf("%w: %w", ErrRangeMismatch, err)
	}
	if err := checkHashable(t.root); err != nil {
		return false, err
	}
	if got := t.Hash(); got != root {
		return false, fmt.Errorf("%w: the range makes root %x, want %x", ErrRangeMismatch, got, root)
	}
	return hasKeysAfter(t.root, lastKey)
}

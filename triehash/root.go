package triehash

import (
	"fmt"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// Root returns the root of the trie holding values[i] at keys[i], for keys
// in any order. A repeated key is an error (ErrDuplicateKey), not a silent
// overwrite, and so is an empty value (ErrEmptyValue).
func Root(keys, values [][]byte) ([32]byte, error) {
	if len(keys) != len(values) {
		return [32]byte{}, fmt.Errorf("%w: %d keys, %d values", ErrLengthMismatch, len(keys), len(values))
	}
	order := sortedOrder(keys)
	var b Builder
	for _, i := range order {
		if err := b.update(keys[i], values[i], true); err != nil {
			return [32]byte{}, err
		}
	}
	return b.Hash(), nil
}

// SecureRoot returns the root of the "secure" trie of go-ethereum's state
// and storage tries: each key is replaced by its Keccak-256 hash before
// insertion. Keys may come in any order; two equal keys are an error.
func SecureRoot(keys, values [][]byte) ([32]byte, error) {
	if len(keys) != len(values) {
		return [32]byte{}, fmt.Errorf("%w: %d keys, %d values", ErrLengthMismatch, len(keys), len(values))
	}
	hashed := make([][32]byte, len(keys))
	for i, k := range keys {
		hashed[i] = fastkeccak.Sum256(k)
	}
	return rootOfHashedKeys(hashed, values, func(i int) []byte { return keys[i] })
}

// rootOfHashedKeys builds the trie of values[i] at hashed[i], any order.
// original(i) gives the key before hashing, for error messages.
func rootOfHashedKeys(hashed [][32]byte, values [][]byte, original func(i int) []byte) ([32]byte, error) {
	views := make([][]byte, len(hashed))
	for i := range hashed {
		views[i] = hashed[i][:]
	}
	order := sortedOrder(views)
	var b Builder
	for _, i := range order {
		if err := b.update(hashed[i][:], values[i], true); err != nil {
			return [32]byte{}, fmt.Errorf("key %x: %w", original(i), err)
		}
	}
	return b.Hash(), nil
}

package triehash

import (
	"fmt"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// Root returns the root of the trie holding values[i] at keys[i], for keys
// in any order, on GOMAXPROCS goroutines (Options.Root chooses how many). A
// repeated key is an error (ErrDuplicateKey), not a silent overwrite, and so
// is an empty value (ErrEmptyValue), a key over MaxKeyLength (ErrKeyTooLong)
// and slices of different lengths (ErrLengthMismatch); the error names the
// key. Root only reads keys and values, and may be called from several
// goroutines at once.
func Root(keys, values [][]byte) ([32]byte, error) {
	return Options{}.Root(keys, values)
}

// SecureRoot returns the root of the "secure" trie of go-ethereum's state
// and storage tries: each key is replaced by its Keccak-256 hash before
// insertion. Keys may come in any order. Its errors are Root's, naming the
// key as given and its hash: two equal keys are ErrDuplicateKey. It runs
// on GOMAXPROCS goroutines and, like Root, may be called from several
// goroutines at once.
func SecureRoot(keys, values [][]byte) ([32]byte, error) {
	return Options{}.SecureRoot(keys, values)
}

// Root is the package's Root with these options.
func (o Options) Root(keys, values [][]byte) ([32]byte, error) {
	if len(keys) != len(values) {
		return [32]byte{}, fmt.Errorf("%w: %d keys, %d values", ErrLengthMismatch, len(keys), len(values))
	}
	return o.build(keys, values, func(i int) []byte { return keys[i] })
}

// SecureRoot is the package's SecureRoot with these options.
func (o Options) SecureRoot(keys, values [][]byte) ([32]byte, error) {
	if len(keys) != len(values) {
		return [32]byte{}, fmt.Errorf("%w: %d keys, %d values", ErrLengthMismatch, len(keys), len(values))
	}
	hashed := o.hashKeys(len(keys), func(i int) []byte { return keys[i] })
	return o.build(hashed, values, func(i int) []byte { return keys[i] })
}

// hashKeys returns the Keccak-256 of key(i) for i < n, as slices into one
// array. Workers take consecutive ranges and hash them a group at a time
// with fastkeccak.Sum256Batch, which fills the SIMD lanes of the CPU's
// batch kernel.
func (o Options) hashKeys(n int, key func(i int) []byte) [][]byte {
	const group = 256
	digests := make([][32]byte, n)
	hashed := make([][]byte, n)
	o.forChunks(n, func(lo, hi int) {
		var msgs [group][]byte
		for start := lo; start < hi; start += group {
			end := min(start+group, hi)
			for i := start; i < end; i++ {
				msgs[i-start] = key(i)
			}
			fastkeccak.Sum256Batch(digests[start:end], msgs[:end-start])
			for i := start; i < end; i++ {
				hashed[i] = digests[i][:]
			}
		}
	})
	return hashed
}

package fastkeccak

import "fmt"

// Sum256Batch sets out[i] to the Keccak-256 digest of msgs[i] for every i.
// The messages are independent, so a batch kernel may hash several of them
// at once in SIMD lanes; each digest is the same as Sum256(msgs[i]). Messages
// may have any lengths and may alias each other. It panics if len(out) !=
// len(msgs), a programming error.
func Sum256Batch(out [][32]byte, msgs [][]byte) {
	if len(out) != len(msgs) {
		panic(fmt.Sprintf("fastkeccak: Sum256Batch with %d outputs for %d messages", len(out), len(msgs)))
	}
	for i, m := range msgs {
		out[i] = Sum256(m)
	}
}

// BatchWidth returns how many messages the batch kernel in use hashes at
// once: 1 when Sum256Batch runs the single-state permutation in a loop.
func BatchWidth() int { return 1 }

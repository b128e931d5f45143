// Package fastkeccak implements Ethereum's Keccak-256: the legacy Keccak
// padding (domain byte 0x01) that go-ethereum's crypto.Keccak256 and
// golang.org/x/crypto/sha3.NewLegacyKeccak256 compute, not FIPS 202 SHA3-256.
//
// Where to start:
//
//   - Sum256 hashes one message in one call (go-ethereum's
//     crypto.Keccak256Hash);
//   - a Hasher takes a message in pieces, with a one-byte fast path for
//     encoders, and is a go-ethereum crypto.KeccakState;
//   - Sum256Batch hashes many independent messages at once, several in
//     the SIMD lanes of one kernel call: the nodes of a trie.
//
// A Hasher's zero value is ready to use and never needs the heap: it can live
// in a local variable or inside another struct, and hashing through its
// methods allocates nothing. *Hasher satisfies go-ethereum's
// crypto.KeccakState, so it plugs in wherever go-ethereum takes one. A Hasher
// is not safe for concurrent use (its read-only methods are; see Hasher); the
// package's functions are.
//
// Hashing a 32-byte key:
//
//	digest := fastkeccak.Sum256(key)
//
// Streaming an encoding byte by byte, as an RLP writer does:
//
//	var h fastkeccak.Hasher
//	h.WriteByte(0xc2)
//	h.WriteByte(0x01)
//	h.WriteByte(0x02)
//	digest := h.Sum256()
//
// The sponge (absorbing, padding, squeezing, marshalling) is written once, in
// Go; only the Keccak-f[1600] permutation differs between CPUs. The fastest
// permutation the CPU supports is chosen at start-up and named by Backend().
// The environment variable KECCAKROOT_BACKEND, read once at start-up, picks
// another one by its Backend() name where the CPU has it (for tests,
// benchmarks and bug reports); for a value the CPU cannot run the default
// stays, and a line on standard error says so; KECCAKROOT_BATCH does the
// same for the batch kernel (see BatchWidth). The purego build tag restricts
// the package to the portable Go permutation.
package fastkeccak

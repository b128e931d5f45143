//go:build triehash_verify

package triehash

// verifyTag is the default of verifyPrecomputed: on with the
// triehash_verify tag.
const verifyTag = true

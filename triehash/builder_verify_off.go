//go:build !triehash_verify

package triehash

// verifyTag is the default of verifyPrecomputed: off, but in builds with
// the triehash_verify tag.
const verifyTag = false

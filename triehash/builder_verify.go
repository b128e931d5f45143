package triehash

import (
	"bytes"
	"fmt"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// verifyPrecomputed makes the streaming core check every node the batch
// stage gives it against the node it would encode itself: the same
// reference and, where the stage kept it, the same encoding, at the depth
// where the core puts it. A difference panics with both. It costs a second
// encoding and hash of every precomputed node, so it is off except in tests
// and in builds with the triehash_verify tag, which run the whole test
// suite with it.
var verifyPrecomputed = verifyTag

// verify checks a precomputed node against the core's own encoding of it,
// in c.scratch, for the node depth nibbles down the key's path.
func (c *streamCore) verify(what string, depth int, pre *precomputedNode) {
	enc := c.scratch
	var want ref
	if len(enc) < 32 && depth > 0 {
		want.size = uint8(copy(want.data[:], enc))
	} else {
		want.size, want.data = 32, fastkeccak.Sum256(enc)
	}
	if *pre.ref != want || pre.encoding != nil && !bytes.Equal(pre.encoding, enc) {
		c.mismatch(what, depth, *pre.ref, pre.encoding, fmt.Sprintf("the core encodes %x", enc))
	}
}

// mismatch panics: the batch stage and the core disagree on a node.
func (c *streamCore) mismatch(what string, depth int, r ref, enc []byte, core string) {
	panic(fmt.Sprintf("triehash: precomputed %s at depth %d of key %x (reference %x, encoding %x), but %s",
		what, depth, c.key, r.data[:r.size], enc, core))
}

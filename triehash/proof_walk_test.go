package triehash

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestWalkStoredBranchOfHashes: for branches of hashes (any set of
// children, the value empty), walkStored's step by the branch's layout is
// the step of the item-by-item walk, for keys that go through every slot,
// the value's, and none.
func TestWalkStoredBranchOfHashes(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 300 {
		var n fullNode
		for i := range 16 {
			if rng.IntN(3) != 0 || trial%5 == 0 {
				var h hashNode
				for j := range h {
					h[j] = byte(rng.Uint32())
				}
				n.children[i] = &h
			}
		}
		blob := appendNode(nil, &n)
		if _, ok := scanBranchOfHashes(blob); !ok {
			t.Fatalf("branch %x is not a branch of hashes", blob)
		}
		keys := [][]byte{nil, {terminator}}
		for i := range byte(16) {
			keys = append(keys, []byte{i, byte(rng.IntN(16)), terminator})
		}
		for _, key := range keys {
			got, err := walkStored(blob, key)
			if err != nil {
				t.Fatalf("key %x: %v", key, err)
			}
			want, err := walkNode(blob, key, true)
			if err != nil {
				t.Fatalf("key %x, item by item: %v", key, err)
			}
			if got.kind != want.kind || !bytes.Equal(got.rest, want.rest) || !bytes.Equal(got.hash, want.hash) || !bytes.Equal(got.value, want.value) {
				t.Fatalf("branch %x, key %x: step %+v, item by item %+v", blob, key, got, want)
			}
		}
	}
}

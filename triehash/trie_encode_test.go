package triehash

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestBranchOverStored changes random children of branches loaded from
// stored encodings (empty, a hash, an embedded leaf, a loaded node that
// stands for its own hash, the value) and checks that the encoding made
// over the stored bytes is the one made from the children alone.
func TestBranchOverStored(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 1))
	randomHash := func() *hashNode {
		var h hashNode
		for i := range h {
			h[i] = byte(rng.Uint32())
		}
		return &h
	}
	for round := range 2000 {
		// A branch of hashes, as the store holds it, at least two children.
		var blob []byte
		{
			var b fullNode
			for i := range 16 {
				if i < 2 || rng.IntN(3) > 0 {
					b.children[i] = randomHash()
				}
			}
			blob = appendNode(nil, &b)
		}
		n, err := decodeStored(nil, [32]byte{1}, blob)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		branch := n.(*fullNode)
		if branch.rewritten != 0 || !branch.overStored() || branch.storedHashes != childHashes(branch) {
			t.Fatalf("round %d: a loaded branch of hashes has rewritten %x, stored hashes %x", round, branch.rewritten, branch.storedHashes)
		}
		if got := appendNode(nil, branch); !bytes.Equal(got, blob) {
			t.Fatalf("round %d: unchanged branch encodes as %x, want its stored %x", round, got, blob)
		}
		for range 1 + rng.IntN(4) {
			i := rng.IntN(17)
			var child node
			switch r := rng.IntN(5); {
			case i == terminator:
				if r > 0 {
					child = valueNode(bytes.Repeat([]byte{byte(r)}, rng.IntN(80)))
				}
			case r == 0:
				child = nil
			case r == 1:
				child = randomHash()
			case r == 2:
				child = dirtyShort([]byte{1, 2, terminator}, valueNode("v")) // embedded
			case r == 3:
				leaf := dirtyShort(bytes.Repeat([]byte{3}, 40), valueNode(bytes.Repeat([]byte{4}, 40)))
				ensureRef(leaf)
				child = leaf
			default:
				// A loaded child put back in place of its hash: no change.
				if h, ok := branch.children[i].(*hashNode); ok {
					loaded := &shortNode{key: []byte{5, terminator}, val: valueNode("x")}
					loaded.cache.ref, loaded.cache.refLen = [32]byte(*h), 32
					branch.children[i] = loaded
					continue
				}
			}
			branch.setChild(i, child)
		}
		got := appendNode(nil, branch)
		// The same branch encoded by stepping over the stored items, as
		// for a stored branch not known to be of hashes, and from its
		// children alone.
		hashes, rewritten := branch.storedHashes, branch.rewritten
		branch.storedHashes = 0
		stepped := appendNode(nil, branch)
		branch.rewritten = allRewritten
		want := appendNode(nil, branch)
		branch.storedHashes, branch.rewritten = hashes, rewritten
		if !bytes.Equal(got, want) || !bytes.Equal(stepped, want) {
			t.Fatalf("round %d: rewritten %017b: by the layout %x, stepping over the items %x, from the children %x", round, rewritten, got, stepped, want)
		}
	}
}

// childHashes returns the mask of n's children that are hashes.
func childHashes(n *fullNode) uint16 {
	var mask uint16
	for i, c := range n.children[:16] {
		if _, ok := c.(*hashNode); ok {
			mask |= 1 << i
		}
	}
	return mask
}

// TestBranchOverStoredFallsBack checks that a stored encoding the encoder
// cannot step over item by item is not used: the branch is encoded from
// its children, as it would be without one.
func TestBranchOverStoredFallsBack(t *testing.T) {
	var b fullNode
	b.children[3] = &hashNode{7}
	b.children[9] = &hashNode{8}
	want := appendNode(nil, &b)
	for _, stored := range [][]byte{
		{0xc0},                   // no items
		{0xc2, 0x80, 0x80},       // too few
		{0xc3, 0x80, 0x81, 0x05}, // a child item that is not a reference
		{0xf8},                   // a header with its size missing
		want[:len(want)-1],       // cut short
		append(append([]byte{0xd0}, bytes.Repeat([]byte{0x80}, 15)...), 0xa0), // a hash cut short
		append(bytes.Repeat([]byte{0x80}, 16), 0x80)[:16],                     // not a list
	} {
		b.cache.stored, b.rewritten = stored, 1<<3
		if got := appendNode(nil, &b); !bytes.Equal(got, want) {
			t.Errorf("stored %x: encoded %x, want %x", stored, got, want)
		}
	}
}

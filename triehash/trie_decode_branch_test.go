package triehash

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestDecodeBranchOfHashes: branches with any set of hash children and no
// value take the fast path and encode back to the same bytes; a value, an
// embedded child, bytes after the list or a header that is not canonical
// leave the node to the general decoder, which reads the same nodes.
func TestDecodeBranchOfHashes(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for trial := range 500 {
		var n fullNode
		for i := range 16 {
			if rng.IntN(2) == 0 || trial%17 == i {
				var h hashNode
				for j := range h {
					h[j] = byte(rng.Uint32())
				}
				n.children[i] = &h
			}
		}
		blob := appendNode(nil, &n)
		fast := decodeBranchOfHashes(blob)
		if fast == nil {
			t.Fatalf("branch %x not taken by the fast path", blob)
		}
		if again := appendNode(nil, fast); !bytes.Equal(again, blob) {
			t.Fatalf("branch %x decodes to %x", blob, again)
		}
		general, err := decodeNode(append(blob[:len(blob):len(blob)], 0)) // trailing byte: general path
		if err != nil {
			t.Fatal(err)
		}
		if again := appendNode(nil, general.(*fullNode)); !bytes.Equal(again, blob) {
			t.Fatalf("general decoder reads branch %x as %x", blob, again)
		}
		withValue := &n
		withValue.children[terminator] = valueNode("v")
		if decodeBranchOfHashes(appendNode(nil, withValue)) != nil {
			t.Fatal("fast path took a branch with a value")
		}
	}
	// A branch of two hashes (81 bytes) with a long header it does not need.
	var n fullNode
	n.children[3], n.children[9] = &hashNode{1}, &hashNode{2}
	blob := appendNode(nil, &n)
	long := append([]byte{0xf9, 0x00, byte(len(blob) - 2)}, blob[2:]...)
	if decodeBranchOfHashes(long) != nil {
		t.Fatal("fast path took a header that is not canonical")
	}
	if _, err := decodeNode(long); err == nil {
		t.Fatal("general decoder took a header that is not canonical")
	}
	embedded := &fullNode{}
	embedded.children[0] = &shortNode{key: []byte{1, terminator}, val: valueNode("x")}
	embedded.children[1] = &hashNode{3}
	if decodeBranchOfHashes(appendNode(nil, embedded)) != nil {
		t.Fatal("fast path took an embedded child")
	}
}

package triehash

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestDecodeBranchOfHashes: branches with any set of hash children and no
// value take the fast path and encode back to the same bytes (a quarter of
// them with all 16 children, as at the top of a large trie); a value, an
// embedded child, bytes after the list or a header that is not canonical
// leave the node to the general decoder, which reads the same nodes.
func TestDecodeBranchOfHashes(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for trial := range 500 {
		var n fullNode
		for i := range 16 {
			if rng.IntN(2) == 0 || trial%17 == i || trial%4 == 0 {
				var h hashNode
				for j := range h {
					h[j] = byte(rng.Uint32())
				}
				n.children[i] = &h
			}
		}
		blob := appendNode(nil, &n)
		fast := decodeBranchOfHashes(nil, blob)
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
		if decodeBranchOfHashes(nil, appendNode(nil, withValue)) != nil {
			t.Fatal("fast path took a branch with a value")
		}
	}
	checkFullBranchItemHeaders(t)
	// A branch of two hashes (81 bytes) with a long header it does not need.
	var n fullNode
	n.children[3], n.children[9] = &hashNode{1}, &hashNode{2}
	blob := appendNode(nil, &n)
	long := append([]byte{0xf9, 0x00, byte(len(blob) - 2)}, blob[2:]...)
	if decodeBranchOfHashes(nil, long) != nil {
		t.Fatal("fast path took a header that is not canonical")
	}
	if _, err := decodeNode(long); err == nil {
		t.Fatal("general decoder took a header that is not canonical")
	}
	embedded := &fullNode{}
	embedded.children[0] = &shortNode{key: []byte{1, terminator}, val: valueNode("x")}
	embedded.children[1] = &hashNode{3}
	if decodeBranchOfHashes(nil, appendNode(nil, embedded)) != nil {
		t.Fatal("fast path took an embedded child")
	}
}

// checkFullBranchItemHeaders: a list of the size of a branch of 16 hashes
// whose items are not all where such a branch has them (any item's first
// byte changed, or the value's) is left to the general decoder.
func checkFullBranchItemHeaders(t *testing.T) {
	var n fullNode
	for i := range 16 {
		n.children[i] = &hashNode{byte(i)}
	}
	blob := appendNode(nil, &n)
	if decodeBranchOfHashes(nil, blob) == nil {
		t.Fatal("fast path did not take a branch of 16 hashes")
	}
	for i := range 17 {
		at := 3 + 33*i
		for _, b := range []byte{0x80, 0xa1, 0x9f, 0xa0 ^ 0x80} {
			if b == blob[at] {
				continue
			}
			bad := bytes.Clone(blob)
			bad[at] = b
			if decodeBranchOfHashes(nil, bad) != nil {
				t.Fatalf("fast path took a branch of 16 hashes with item %d's first byte %#x", i, b)
			}
		}
	}
}

// FuzzDecodeBranchOfHashes: on any bytes, the fast path for branches of
// hashes takes only what the general decoder reads as the same branch, and
// it takes every such branch that is encoded as the trie encodes it (a
// canonical header, no bytes after the list).
func FuzzDecodeBranchOfHashes(f *testing.F) {
	var n fullNode
	for i := range 16 {
		if i%3 != 1 {
			n.children[i] = &hashNode{byte(i)}
		}
	}
	f.Add(appendNode(nil, &n)) // long header, two bytes of size
	all := n
	for i := range 16 {
		all.children[i] = &hashNode{byte(i)}
	}
	f.Add(appendNode(nil, &all))                                           // all 16 children
	f.Add(appendNode(nil, &fullNode{}))                                    // no children: a short list
	f.Add(appendNode(nil, &fullNode{children: [17]node{3: &hashNode{1}}})) // one byte of size
	f.Add(append(appendNode(nil, &n), 0x80))                               // a byte after the list
	f.Add([]byte{0xf8, 0x12, 0x80})
	f.Fuzz(func(t *testing.T, blob []byte) {
		fast := decodeBranchOfHashes(nil, blob)
		general, err := decodeListNode(nil, blob)
		if fast != nil {
			if err != nil {
				t.Fatalf("fast path took %x, which the general decoder rejects: %v", blob, err)
			}
			full, ok := general.(*fullNode)
			if !ok || !reflect.DeepEqual(fast.children, full.children) {
				t.Fatalf("%x: fast path reads %#v, the general decoder %#v", blob, fast, general)
			}
			if fast.storedHashes != childHashes(full) {
				t.Fatalf("%x: fast path's hash mask %016b, children %016b", blob, fast.storedHashes, childHashes(full))
			}
			return
		}
		full, ok := general.(*fullNode)
		if err != nil || !ok || full.children[terminator] != nil {
			return
		}
		for _, c := range full.children[:16] {
			if _, isHash := c.(*hashNode); c != nil && !isHash {
				return // an embedded child
			}
		}
		if bytes.Equal(appendNode(nil, full), blob) {
			t.Fatalf("fast path left branch %x of hashes to the general decoder", blob)
		}
	})
}

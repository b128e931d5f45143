package triehash

import (
	"bytes"
	"reflect"
	"testing"
)

// TestNewShortNodeKeyRoom: a short node's key, in its own allocation or in
// the room next to the node, is a copy of the caller's, and one in the room
// ends at its capacity, so that a key grown later moves out and never
// writes into the room or the caller's bytes; the same for short nodes
// taken from a nodeAlloc's chunks.
func TestNewShortNodeKeyRoom(t *testing.T) {
	alloc := new(nodeAlloc)
	makers := map[string]func(key []byte, val node) *shortNode{
		"newShortNode":  newShortNode,
		"nodeAlloc":     alloc.shortNode,
		"nil nodeAlloc": (*nodeAlloc)(nil).shortNode,
	}
	for name, newShortNode := range makers {
		t.Run(name, func(t *testing.T) { checkShortNodeKeyRoom(t, newShortNode) })
	}
}

func checkShortNodeKeyRoom(t *testing.T, newShortNode func(key []byte, val node) *shortNode) {
	for _, size := range []int{0, 1, 16, 17, 40, inlineKeyNibbles, inlineKeyNibbles + 1, 200} {
		key := make([]byte, size, size+8)
		for i := range key {
			key[i] = byte(i % 16)
		}
		n := newShortNode(key, valueNode("v"))
		if !bytes.Equal(n.key, key) {
			t.Fatalf("size %d: key %x, want %x", size, n.key, key)
		}
		inline := size > 16 && size <= inlineKeyNibbles
		if inline && cap(n.key) != len(n.key) {
			t.Fatalf("size %d: a key in the room has capacity %d", size, cap(n.key))
		}
		if size > 0 && &n.key[0] == &key[0] {
			t.Fatalf("size %d: the node holds the caller's bytes", size)
		}
		before := bytes.Clone(n.key)
		grown := append(n.key, 1, 2, 3)
		if !bytes.Equal(n.key, before) || (inline && &grown[0] == &n.key[0]) {
			t.Fatalf("size %d: growing the key wrote in place", size)
		}
		if c := n.cache; string(n.val.(valueNode)) != "v" || c.dirty || c.pending || c.refLen != 0 || c.stored != nil {
			t.Fatalf("size %d: value %v, cache %+v", size, n.val, n.cache)
		}
	}
}

// TestNodeAllocChunks: the nodes a nodeAlloc hands out are zeroed and
// distinct, so that a node written never shows in another, and its chunks
// grow from firstChunkNodes to about maxChunkNodes.
func TestNodeAllocChunks(t *testing.T) {
	var alloc nodeAlloc
	seen := map[*fullNode]bool{}
	var sizes []int
	for i := range 500 {
		if len(alloc.branches.free) == 0 {
			sizes = append(sizes, alloc.branches.size)
		}
		n := alloc.branch()
		if seen[n] {
			t.Fatalf("branch %d handed out twice", i)
		}
		seen[n] = true
		if !reflect.ValueOf(*n).IsZero() {
			t.Fatalf("branch %d is not zeroed: %+v", i, n)
		}
		n.children[i%17] = valueNode("x")
		n.cache.refLen, n.rewritten = 32, allRewritten
	}
	for n := range seen {
		set := 0
		for _, c := range n.children {
			if c != nil {
				set++
			}
		}
		if set != 1 || n.cache.refLen != 32 {
			t.Fatalf("a branch was written by another's writes: %+v", n)
		}
	}
	if sizes[0] != 0 || sizes[1] != firstChunkNodes || sizes[len(sizes)-1] != maxChunkNodes {
		t.Fatalf("chunk lengths asked %v, want from %d doubling to %d", sizes[1:], firstChunkNodes, maxChunkNodes)
	}
}

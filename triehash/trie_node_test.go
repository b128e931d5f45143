package triehash

import (
	"bytes"
	"testing"
)

// TestNewShortNodeKeyRoom: a short node's key, in its own allocation or in
// the room next to the node, is a copy of the caller's, and one in the room
// ends at its capacity, so that a key grown later moves out and never
// writes into the room or the caller's bytes.
func TestNewShortNodeKeyRoom(t *testing.T) {
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

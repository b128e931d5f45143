package nodeset

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/trie/trienode"
)

// TestCollectorMatchesAddNode checks that a Collector, made by New or by
// NewSized for fewer, as many or more changes than it takes, builds the
// set that AddNode with go-ethereum's own constructors builds from the
// same changes, over more changes than several blocks hold.
func TestCollectorMatchesAddNode(t *testing.T) {
	for _, hint := range []int{-1, 0, 10, 3 * maxBlock, 8 * maxBlock} {
		t.Run(fmt.Sprintf("hint=%d", hint), func(t *testing.T) { testCollector(t, hint) })
	}
}

// testCollector is TestCollectorMatchesAddNode for New (hint -1) or
// NewSized(hint).
func testCollector(t *testing.T, hint int) {
	owner := common.Hash{1}
	c := New(owner)
	if hint >= 0 {
		c = NewSized(owner, hint)
	}
	want := trienode.NewNodeSet(owner)
	for i := range 3 * maxBlock {
		path := []byte(fmt.Sprintf("%x", i))
		prev := []byte{byte(i), 1}
		if i%2 == 1 {
			prev = nil // no origin
		}
		if i%5 == 0 {
			c.Add(path, [32]byte{}, nil, prev)
			want.AddNode(path, trienode.NewDeletedWithPrev(prev))
			continue
		}
		hash, blob := [32]byte{byte(i), byte(i >> 8)}, bytes.Repeat([]byte{byte(i)}, 1+i%40)
		c.Add(path, hash, blob, prev)
		want.AddNode(path, trienode.NewNodeWithPrev(hash, blob, prev))
	}
	got := c.Set
	if len(got.Nodes) != len(want.Nodes) || len(got.Origins) != len(want.Origins) {
		t.Fatalf("%d nodes and %d origins, want %d and %d", len(got.Nodes), len(got.Origins), len(want.Nodes), len(want.Origins))
	}
	for path, w := range want.Nodes {
		g := got.Nodes[path]
		if g == nil || g.Hash != w.Hash || !bytes.Equal(g.Blob, w.Blob) || g.IsDeleted() != w.IsDeleted() {
			t.Fatalf("path %q: node %+v, want %+v", path, g, w)
		}
		if o, ok := got.Origins[path]; !ok || !bytes.Equal(o, want.Origins[path]) || (o == nil) != (want.Origins[path] == nil) {
			t.Fatalf("path %q: origin %x (present %v), want %x", path, o, ok, want.Origins[path])
		}
	}
	gu, gd := got.Size()
	wu, wd := want.Size()
	if gu != wu || gd != wd {
		t.Fatalf("Size() = %d updates, %d deletes; want %d, %d", gu, gd, wu, wd)
	}
}

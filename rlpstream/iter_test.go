package rlpstream

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/rlp"
)

// TestIteratorOffset checks Offset against go-ethereum's rlp.Iterator on
// random lists, and that NewIteratorAt moves every offset, of items and of
// errors, by its base.
func TestIteratorOffset(t *testing.T) {
	g := newGen(11)
	for i := range 300 {
		list := mustEncode(t, g.list(3))
		ours, err := NewListIterator(list)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := rlp.NewListIterator(list)
		if err != nil {
			t.Fatal(err)
		}
		_, content, _, _ := Split(list)
		base := len(list) - len(content)
		at := NewIteratorAt(content, 1000+base)
		for ours.Next() {
			if !theirs.Next() || !at.Next() {
				t.Fatalf("list %d: the iterators disagree on the number of items", i)
			}
			if ours.Offset() != theirs.Offset() {
				t.Fatalf("list %d: Offset %d, go-ethereum %d", i, ours.Offset(), theirs.Offset())
			}
			if at.Offset() != 1000+ours.Offset() {
				t.Fatalf("list %d: NewIteratorAt's Offset %d, want %d", i, at.Offset(), 1000+ours.Offset())
			}
			if got := list[ours.Offset() : ours.Offset()+len(ours.Raw())]; string(got) != string(ours.Raw()) {
				t.Fatalf("list %d: Offset %d does not point at the item", i, ours.Offset())
			}
		}
		if theirs.Next() || at.Next() || ours.Err() != nil {
			t.Fatalf("list %d: the iterators disagree at the end (%v)", i, ours.Err())
		}
		if ours.Offset() != len(list) {
			t.Fatalf("list %d: Offset at the end %d, want %d", i, ours.Offset(), len(list))
		}
	}

	// An error carries the offset of the bad item, which Offset then gives.
	it := NewIteratorAt(mustHex("01028100"), 500)
	for it.Next() {
	}
	if !errors.Is(it.Err(), ErrNonCanonicalSize) || offsetOf(it.Err()) != 502 || it.Offset() != 502 {
		t.Fatalf("error %v, Offset %d; want the offset 502", it.Err(), it.Offset())
	}
}

package asmstream

import (
	"testing"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// TestMerge merges a stream of 6 instructions with one of 3: each keeps its
// order, b's instructions spread one after every second of a, the
// comments travel with the instruction after them, and nothing is lost.
func TestMerge(t *testing.T) {
	a := Record(func(c *build.Context) {
		for range 6 {
			c.ADDQ(reg.RAX, reg.RBX)
		}
	})
	b := Record(func(c *build.Context) {
		c.Comment("b")
		for range 3 {
			c.VPXOR(reg.Y0, reg.Y1, reg.Y2)
		}
	})
	var got string
	for _, n := range Merge(a, b) {
		switch n := n.(type) {
		case *ir.Instruction:
			got += n.Opcode[:1]
		case *ir.Comment:
			got += "#"
		}
	}
	if want := "A#VAAVAAVA"; got != want {
		t.Errorf("merged %q, want %q (A for a's ADDQ, V for b's VPXOR, # for b's comment)", got, want)
	}
}

// TestMergeRefusesBranches checks that a stream with a jump is refused:
// merging would move instructions across it.
func TestMergeRefusesBranches(t *testing.T) {
	a := Record(func(c *build.Context) {
		c.Label("top")
		c.JMP(operand.LabelRef("top"))
	})
	b := Record(func(c *build.Context) { c.ADDQ(reg.RAX, reg.RBX) })
	defer func() {
		if recover() == nil {
			t.Error("Merge of a stream with a branch did not panic")
		}
	}()
	Merge(a, b)
}

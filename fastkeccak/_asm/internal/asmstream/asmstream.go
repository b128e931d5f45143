// Package asmstream records instructions that an avo generator emits into
// lists, and emits the lists into the function being generated, one after
// the other or two merged into one stream. Merging the rounds of two
// independent computations (the AVX2 rounds of four Keccak states and the
// scalar rounds of a fifth) gives the core's vector and integer pipes work
// from both in every stretch of the code, so that neither waits for the
// end of its own round alone.
package asmstream

import (
	"fmt"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
)

// Record returns the nodes (instructions, labels and comments) that emit
// adds to the context it is given, in order. It panics if an instruction
// has operands that no form takes, as avo's global context would fail the
// generator.
func Record(emit func(c *build.Context)) []ir.Node {
	c := build.NewContext()
	c.Function("recorded")
	emit(c)
	f, err := c.Result()
	if err != nil {
		panic(fmt.Sprintf("asmstream: %v", err))
	}
	return f.Functions()[0].Nodes
}

// Emit adds the nodes to the function being generated in the global
// context.
func Emit(nodes []ir.Node) {
	for _, n := range nodes {
		switch n := n.(type) {
		case *ir.Instruction:
			build.Instruction(n)
		case ir.Label:
			build.Label(string(n))
		case *ir.Comment:
			build.Comment(n.Lines...)
		default:
			panic(fmt.Sprintf("asmstream: node of type %T", n))
		}
	}
}

// Merge returns a and b merged, each in its own order, the instructions
// of b spread evenly among those of a: after the k-th instruction of a
// come the instructions of b up to the share k/len(a) of them. Comments
// and labels travel with the instruction after them. The two streams must
// use disjoint registers and memory, which Merge does not check, and
// neither may branch.
func Merge(a, b []ir.Node) []ir.Node {
	na, nb := instructions(a), instructions(b)
	merged := make([]ir.Node, 0, len(a)+len(b))
	var ia, ib, doneA, doneB int
	takeOne := func(nodes []ir.Node, i *int, done *int) {
		for *i < len(nodes) {
			n := nodes[*i]
			merged = append(merged, n)
			*i++
			if inst, ok := n.(*ir.Instruction); ok {
				if inst.IsBranch {
					panic("asmstream: Merge of a stream with a branch")
				}
				*done++
				return
			}
		}
	}
	for doneA < na {
		takeOne(a, &ia, &doneA)
		for nb > 0 && doneB*na < doneA*nb {
			takeOne(b, &ib, &doneB)
		}
	}
	merged = append(merged, a[ia:]...)
	return append(merged, b[ib:]...)
}

func instructions(nodes []ir.Node) int {
	n := 0
	for _, node := range nodes {
		if _, ok := node.(*ir.Instruction); ok {
			n++
		}
	}
	return n
}

package main

// # The BMI2 kernel
//
// The 25 lanes do not fit in the 14 general-purpose registers that are
// free, so the state lives in memory and every round streams it from one
// buffer to the other: even rounds read the caller's state and write a
// 200-byte buffer in the frame, odd rounds read that buffer and write the
// caller's state, so after 24 rounds the result is where it started.
// Reading one buffer while writing the other lets each round write its
// outputs in their natural (x, y) places whatever order ρ and π read the
// inputs in.
//
// One round, with the column parities C[x] of its input already in
// registers (the previous round computed them while it wrote its output):
//
//  1. θ's D[x] = C[x-1] ^ rot(C[x+1], 1) (RORX and XOR) for the five
//     columns; D[0] stays in a register, the others go to the frame and
//     are XORed in straight from memory (a folded load costs no ALU slot).
//  2. Row by row (y = 0..4): the five lanes that π brings to row y are
//     loaded, XORed with their column's D and rotated by their ρ offset
//     with RORX (three operands, no copy). Then χ makes each output as
//     b[x] ^ ANDN(b[x+1], b[x+2]): with ANDN lane complementing has
//     nothing left to save, so the state stays in normal form throughout.
//     Each output is stored and XORed into the parity C[x] of the next
//     round (row 0 starts the parities). ι goes into output (0, 0) before
//     it is stored or counted.
//
// That is about 131 ALU operations a round (25 θ XORs, 24 ρ rotations, 50
// for χ, 20 for the next parities, 10 for D, 1 for ι) with no register
// copies, against about 135 plus 25 copies for the classic lane-
// complementing code. The first round of each block computes the
// parities from memory while it XORs the block in.
//
// The rounds run in a loop of bmi2RoundsPerPass rounds (an even number, so
// every pass starts from the caller's buffer); R15 walks the round
// constant table.

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

const bmi2RoundsPerPass = 4

// Register assignment, shared by both functions.
var (
	statePtr = RDI                                  // the caller's *[25]uint64
	colC     = [5]Register{RAX, RBX, RCX, RDX, RSI} // θ column parities C[x]
	rowB     = [5]Register{R8, R9, R10, R11, R12}   // one row of B (after θ, ρ, π)
	tmp      = R13                                  // χ output, scratch
	d0       = R14                                  // D[0]
	rcPtr    = R15                                  // the round constants of this pass
	blockPtr = R8                                   // absorb: the block, only while rowB is free
	blockEnd = R9                                   // absorb: end of p, only at the top
)

// Frame layout, in bytes from the frame's base.
const (
	frameTmp   = 0      // 25 lanes: the state between an even and an odd round
	frameD     = 25 * 8 // D[1..4] at frameD + 8*x
	frameP     = 30 * 8 // absorb: the current block
	frameEnd   = 31 * 8 // absorb: end of p
	frameBytes = 32 * 8 // 256 >= 128: keeps the stack check in
)

// scalar holds the two state buffers of one BMI2 function.
type scalar struct {
	caller Mem // the caller's state, based on statePtr
	frame  Mem // the base of the local frame
}

func newScalar() scalar {
	return scalar{caller: Mem{Base: statePtr}, frame: AllocLocal(frameBytes)}
}

// buffer returns the state buffer that round r reads (out == false) or
// writes (out == true).
func (k scalar) buffer(r int, out bool) Mem {
	if (r%2 == 0) != out {
		return k.caller
	}
	return k.frame.Offset(frameTmp)
}

func lane(buf Mem, i int) Mem { return buf.Offset(8 * i) }

// parities computes C[x] of the caller's state into colC. With block (the
// register holding a block pointer) non-nil, it first XORs the block's 17
// lanes into the state and stores them back.
func (k scalar) parities(block Register) {
	Comment("θ parities of the input state")
	for x := 0; x < 5; x++ {
		for y := 0; y < 5; y++ {
			i := x + 5*y
			absorb := block != nil && i < rateLanes
			if y > 0 && !absorb {
				XORQ(lane(k.caller, i), colC[x])
				continue
			}
			var dst Register = colC[x]
			if y > 0 {
				dst = tmp
			}
			MOVQ(lane(k.caller, i), dst)
			if absorb {
				XORQ(Mem{Base: block, Disp: 8 * i}, dst)
				MOVQ(dst, lane(k.caller, i))
			}
			if y > 0 {
				XORQ(dst, colC[x])
			}
		}
	}
}

// round emits round r of a pass. On entry colC holds the parities of its
// input; on exit, those of its output.
func (k scalar) round(r int) {
	src, dst := k.buffer(r, false), k.buffer(r, true)
	Commentf("round %d of the pass", r)

	// θ: D[x] = C[x-1] ^ rot(C[x+1], 1).
	var d [5]Op
	for x := 0; x < 5; x++ {
		var rd Register = d0
		if x > 0 {
			rd = rowB[x-1] // free until the first row is loaded
		}
		RORXQ(U8(63), colC[(x+1)%5], rd)
		XORQ(colC[(x+4)%5], rd)
		d[x] = rd
		if x > 0 {
			slot := k.frame.Offset(frameD + 8*x)
			MOVQ(rd, slot)
			d[x] = slot
		}
	}

	for y := 0; y < 5; y++ {
		// θ (apply D), ρ and π.
		for x := 0; x < 5; x++ {
			s := piSource[x+5*y]
			MOVQ(lane(src, s), rowB[x])
			XORQ(d[s%5], rowB[x])
			if rho[s] != 0 {
				RORXQ(U8(64-rho[s]), rowB[x], rowB[x])
			}
		}
		// χ, ι, and the parities of the next round.
		for x := 0; x < 5; x++ {
			var out Register = tmp
			if y == 0 {
				out = colC[x]
			}
			ANDNQ(rowB[(x+2)%5], rowB[(x+1)%5], out) // ^b[x+1] & b[x+2]
			XORQ(rowB[x], out)
			if x == 0 && y == 0 {
				XORQ(Mem{Base: rcPtr, Disp: 8 * r}, out) // ι
			}
			MOVQ(out, lane(dst, x+5*y))
			if y > 0 {
				XORQ(out, colC[x])
			}
		}
	}
}

// permute emits the 24 rounds; colC must hold the input's parities. It
// clobbers every register but statePtr.
func (k scalar) permute() {
	LEAQ(roundConstantTable, rcPtr)
	Label("rounds")
	for r := 0; r < bmi2RoundsPerPass; r++ {
		k.round(r)
	}
	ADDQ(U8(8*bmi2RoundsPerPass), rcPtr)
	LEAQ(roundConstantTable.Offset(8*roundCount), tmp)
	CMPQ(rcPtr, tmp)
	JB(LabelRef("rounds"))
}

func keccakF1600BMI2() {
	TEXT("keccakF1600BMI2", 0, "func(a *[25]uint64)")
	k := newScalar()
	Load(Param("a"), statePtr)
	k.parities(nil)
	k.permute()
	RET()
}

func absorbBlocksBMI2() {
	TEXT("absorbBlocksBMI2", 0, "func(a *[25]uint64, p []byte)")
	k := newScalar()
	Load(Param("a"), statePtr)
	Load(Param("p").Base(), blockPtr)
	Load(Param("p").Len(), blockEnd)
	TESTQ(blockEnd, blockEnd)
	JZ(LabelRef("done"))
	ADDQ(blockPtr, blockEnd)
	MOVQ(blockEnd, k.frame.Offset(frameEnd))

	Label("block")
	MOVQ(blockPtr, k.frame.Offset(frameP))
	k.parities(blockPtr)
	k.permute()
	MOVQ(k.frame.Offset(frameP), blockPtr)
	ADDQ(U32(rate), blockPtr)
	CMPQ(blockPtr, k.frame.Offset(frameEnd))
	JB(LabelRef("block"))

	Label("done")
	RET()
}

// Package scalar emits the rounds of the BMI2 Keccak-f[1600] kernel, one
// state in general-purpose registers and two buffers in the frame, for the
// avo generators that use them: the single-state kernels of
// keccakf_amd64.s and the five-state batch kernel of batch_amd64.s, which
// runs these rounds interleaved with the four-state AVX2 rounds.
//
// # The rounds
//
// The 25 lanes do not fit in the 14 general-purpose registers that are
// free, so the state lives in the frame, in two 200-byte buffers, and every
// round streams it from one to the other: even rounds read buffer A and
// write buffer B, odd rounds the reverse, so after an even number of rounds
// the state is back in A. Both buffers are addressed from SP, which frees
// the register that would hold a pointer, and a round writes its outputs in
// their natural (x, y) places whatever order ρ and π read the inputs in.
//
// One round, with the column parities C[x] of its input already in
// registers (the previous round computed them while it wrote its output):
//
//  1. θ's D[x] = C[x-1] ^ rot(C[x+1], 1) (RORX and XOR) for the five
//     columns, all five kept in registers for the whole round. The core's
//     store-to-load forwarding takes several cycles, and θ is the one
//     place where a round waits for all of the round before it: a D
//     written to the frame and read back puts that delay on every round's
//     critical path. Three Ds have registers of their own; the other two
//     take the parity registers of two "late" columns (lateColumn), whose
//     parities for the next round are summed at the end of the round
//     instead (step 3).
//  2. Row by row (y = 0..4): the five lanes that π brings to row y are
//     loaded, XORed with their column's D and rotated by their ρ offset
//     with RORX (three operands, no copy). Then χ makes each output as
//     b[x] ^ ANDN(b[x+1], b[x+2]): with ANDN, lane complementing has
//     nothing left to save, so the state stays in normal form throughout.
//     Each output is stored and XORed into the parity C[x] of the next
//     round (row 0 starts the parities). ι goes into output (0, 0) before
//     it is stored or counted. The outputs of a row come out in the order
//     the next round's rows read them (outputOrder), so that the lane the
//     next round needs first is stored first.
//  3. In the last row, once its lanes have had their D, the Ds are dead:
//     the late columns' registers load the column's first four outputs
//     back from the buffer just written (three XORs, as many as the
//     accumulation would have taken) and take the fifth as it comes.
//
// That is about 131 ALU operations a round (25 θ XORs, 24 ρ rotations, 50
// for χ, 20 for the next parities, 10 for D, 1 for ι), with two register
// copies that the renamer absorbs. The rounds use every general-purpose
// register but SP and BP, and no vector register.
package scalar

import (
	"github.com/keccakroot/keccakroot/fastkeccak/_asm/internal/fips202"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Register assignment.
var (
	// ColC holds the θ column parities C[x] between rounds.
	ColC = [5]reg.Register{reg.RAX, reg.RBX, reg.RCX, reg.RDX, reg.RSI}
	// RowB holds one row of B (after θ, ρ, π); free between rounds.
	RowB = [5]reg.Register{reg.R8, reg.R9, reg.R10, reg.R11, reg.R12}
	// Tmp is the χ output and scratch; free between rounds.
	Tmp = reg.R13
	// dHome holds D[x] through a round: three registers of their own and
	// the parity registers of the two late columns. The three are free
	// between rounds.
	dHome = [5]reg.Register{reg.R14, reg.R15, reg.RDI, ColC[1], ColC[4]}
	// lateColumn marks the columns whose next parities are summed in the
	// last row (their registers hold Ds until then). Columns 1 and 4 time
	// a little better than the other pairs on Zen 4; column 0 cannot be
	// late, because ι may use Tmp just before output (0, 0) is written.
	lateColumn = [5]bool{1: true, 4: true}
)

// Frame layout of the two state buffers, in bytes from the frame's base.
const (
	FrameA      = 0      // 25 lanes: the state between rounds of even number
	FrameB      = 25 * 8 // 25 lanes: the state after an even round
	StateBuffer = 50 * 8 // the bytes of both
)

// Asm is what the rounds emit through: the avo global context (Global) or
// a *build.Context that records them (see the asmstream package).
type Asm interface {
	MOVQ(mr, mr1 operand.Op)
	XORQ(imr, mr operand.Op)
	RORXQ(i, mr, r operand.Op)
	ANDNQ(mr, r, r1 operand.Op)
	Comment(lines ...string)
	Commentf(format string, a ...any)
}

// Global emits into avo's global context, the function being generated.
// Each method emits the instruction (or comment) of its name.
type Global struct{}

// MOVQ emits MOVQ.
func (Global) MOVQ(mr, mr1 operand.Op) { build.MOVQ(mr, mr1) }

// XORQ emits XORQ.
func (Global) XORQ(imr, mr operand.Op) { build.XORQ(imr, mr) }

// RORXQ emits RORXQ.
func (Global) RORXQ(i, mr, r operand.Op) { build.RORXQ(i, mr, r) }

// ANDNQ emits ANDNQ.
func (Global) ANDNQ(mr, r, r1 operand.Op) { build.ANDNQ(mr, r, r1) }

// Comment emits a comment.
func (Global) Comment(lines ...string) { build.Comment(lines...) }

// Commentf emits a formatted comment.
func (Global) Commentf(format string, a ...any) { build.Commentf(format, a...) }

// Rounds emits rounds on one state held in Frame's two buffers.
type Rounds struct {
	Frame operand.Mem // FrameA and FrameB from here
	Asm   Asm
}

// Buffer returns the state buffer that round r reads (out == false) or
// writes (out == true).
func (k *Rounds) Buffer(r int, out bool) operand.Mem {
	if (r%2 == 0) != out {
		return k.Frame.Offset(FrameA)
	}
	return k.Frame.Offset(FrameB)
}

// Lane is lane i of a state buffer.
func Lane(buf operand.Mem, i int) operand.Mem { return buf.Offset(8 * i) }

// Parities computes C[x] of buffer A into ColC. With absorb non-nil, it
// first XORs into each lane i of the state that absorb(i) accepts (returns
// non-nil for) the quadword it returns, and stores the lane back.
func (k *Rounds) Parities(absorb func(i int) operand.Op) {
	a, asm := k.Frame.Offset(FrameA), k.Asm
	asm.Comment("θ parities of the input state")
	for x := 0; x < 5; x++ {
		for y := 0; y < 5; y++ {
			i := x + 5*y
			var in operand.Op
			if absorb != nil {
				in = absorb(i)
			}
			if y > 0 && in == nil {
				asm.XORQ(Lane(a, i), ColC[x])
				continue
			}
			var dst reg.Register = ColC[x]
			if y > 0 {
				dst = Tmp
			}
			asm.MOVQ(Lane(a, i), dst)
			if in != nil {
				asm.XORQ(in, dst)
				asm.MOVQ(dst, Lane(a, i))
			}
			if y > 0 {
				asm.XORQ(dst, ColC[x])
			}
		}
	}
}

// Round says where round r finds its ι constant and what it XORs into its
// outputs.
type Round struct {
	R int // the round's number, which sets the buffers it reads and writes
	// Iota XORs the round constant into out, the χ output (0, 0); it may
	// use Tmp, which is never out.
	Iota func(out reg.Register)
	// AddBlock, if not nil, is the address of a block whose 17 lanes the
	// round XORs into its outputs 0..16 (the next block of the message).
	AddBlock *operand.Mem
}

// Emit emits one round. On entry ColC holds the parities of its input; on
// exit, those of its output.
func (k *Rounds) Emit(rd Round) {
	src, dst := k.Buffer(rd.R, false), k.Buffer(rd.R, true)
	asm := k.Asm
	asm.Commentf("round %d", rd.R)

	// θ: D[x] = C[x-1] ^ rot(C[x+1], 1). A D whose home is a parity
	// register is made in a row register and moved once all five are
	// made, since the other Ds still read that parity.
	scratch := RowB[:]
	var moves [][2]reg.Register
	for x := 0; x < 5; x++ {
		d := dHome[x]
		if isParity(d) {
			d, scratch = scratch[0], scratch[1:]
			moves = append(moves, [2]reg.Register{d, dHome[x]})
		}
		asm.RORXQ(operand.U8(63), ColC[(x+1)%5], d)
		asm.XORQ(ColC[(x+4)%5], d)
	}
	for _, m := range moves {
		asm.MOVQ(m[0], m[1])
	}

	for y := 0; y < 5; y++ {
		// θ (apply D), ρ and π.
		for x := 0; x < 5; x++ {
			s := fips202.PiSource[x+5*y]
			asm.MOVQ(Lane(src, s), RowB[x])
			asm.XORQ(dHome[s%5], RowB[x])
			if fips202.Rho[s] != 0 {
				asm.RORXQ(operand.U8(64-fips202.Rho[s]), RowB[x], RowB[x])
			}
		}
		if y == 4 {
			// The Ds are dead: the late columns sum their first four rows.
			for c := 0; c < 5; c++ {
				if lateColumn[c] {
					asm.MOVQ(Lane(dst, c), ColC[c])
					for yy := 1; yy < 4; yy++ {
						asm.XORQ(Lane(dst, c+5*yy), ColC[c])
					}
				}
			}
		}
		// χ, ι, the next block, and the parities of the next round.
		for _, x := range outputOrder(y) {
			var out reg.Register = Tmp
			if y == 0 && !lateColumn[x] {
				out = ColC[x]
			}
			asm.ANDNQ(RowB[(x+2)%5], RowB[(x+1)%5], out) // ^b[x+1] & b[x+2]
			asm.XORQ(RowB[x], out)
			if x == 0 && y == 0 {
				rd.Iota(out)
			}
			i := x + 5*y
			if rd.AddBlock != nil && i < 17 {
				asm.XORQ(rd.AddBlock.Offset(8*i), out)
			}
			asm.MOVQ(out, Lane(dst, i))
			if y > 0 && (!lateColumn[x] || y == 4) {
				asm.XORQ(out, ColC[x])
			}
		}
	}
}

// outputOrder is the order in which row y's χ outputs are written: the
// next round's row i reads the lane of column (y+3i) mod 5 of this row (π),
// so its first row gets its lanes first.
func outputOrder(y int) [5]int {
	var order [5]int
	for i := range order {
		order[i] = (y + 3*i) % 5
	}
	return order
}

func isParity(r reg.Register) bool {
	for _, c := range ColC {
		if r == c {
			return true
		}
	}
	return false
}

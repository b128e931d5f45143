package main

// # The BMI2 kernel
//
// The 25 lanes do not fit in the 14 general-purpose registers that are
// free, so the state lives in the frame, in two 200-byte buffers, and every
// round streams it from one to the other: even rounds read buffer A and
// write buffer B, odd rounds the reverse, so after 24 rounds the state is
// back in A. The caller's state is copied into A on entry and back on
// return: both buffers are then addressed from SP, which frees the
// register that would hold the caller's pointer, and a round writes its
// outputs in their natural (x, y) places whatever order ρ and π read the
// inputs in.
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
// copies that the renamer absorbs. The first round of a message computes
// the parities from memory while it XORs the first block in; the last
// round of every block but the last XORs the next block into its outputs
// as it stores them, so its parities come out of the round as usual.
//
// The rounds run in a loop of bmi2RoundsPerPass rounds (an even number,
// so every pass starts from buffer A; a short loop keeps the code well
// inside the op caches of the cores that run this kernel, on Zen 3 too).
// The loop's round-constant pointer lives in the frame; ι loads it into
// the χ scratch register, free at that moment. The absorb loop's last
// pass is unrolled, to branch on the next block before its last round.

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

const bmi2RoundsPerPass = 4

// Register assignment, shared by both functions.
var (
	colC = [5]Register{RAX, RBX, RCX, RDX, RSI} // θ column parities C[x]
	rowB = [5]Register{R8, R9, R10, R11, R12}   // one row of B (after θ, ρ, π)
	tmp  = R13                                  // χ output, scratch
	// dHome holds D[x] through a round: three registers of their own and
	// the parity registers of the two late columns.
	dHome = [5]Register{R14, R15, RDI, colC[1], colC[4]}
	// lateColumn marks the columns whose next parities are summed in the
	// last row (their registers hold Ds until then). Columns 1 and 4 time
	// a little better than the other pairs on Zen 4; column 0 cannot be
	// late, because ι uses tmp just before output (0, 0) is written.
	lateColumn = [5]bool{1: true, 4: true}
	blockPtr   = R8 // absorb: the block, only while rowB is free
	blockEnd   = R9 // absorb: end of p, only at the top
)

// Frame layout, in bytes from the frame's base.
const (
	frameA     = 0                     // 25 lanes: the state between permutations
	frameB     = 25 * 8                // 25 lanes: the state after an even round
	frameBlock = 50 * 8                // absorb: the next block's 17 lanes
	frameRC    = 67 * 8                // the round constants of this pass
	frameP     = 68 * 8                // absorb: the current block
	frameEnd   = 69 * 8                // absorb: end of p
	frameState = 70 * 8                // the caller's *[25]uint64
	frameBytes = 72 * 8                // 576 >= 128: keeps the stack check in
	passRounds = bmi2RoundsPerPass * 8 // bytes of round constants per pass
	tailRound  = roundCount - 4        // absorb: the first round of the unrolled pass
)

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

// scalar emits one BMI2 function: its frame, and the labels it has used.
type scalar struct {
	frame  Mem
	prefix string // for labels, which are per file
}

func newScalar(name string) *scalar {
	return &scalar{frame: AllocLocal(frameBytes), prefix: name + "_"}
}

func (k *scalar) label(name string) string { return k.prefix + name }

// buffer returns the state buffer that round r reads (out == false) or
// writes (out == true).
func (k *scalar) buffer(r int, out bool) Mem {
	if (r%2 == 0) != out {
		return k.frame.Offset(frameA)
	}
	return k.frame.Offset(frameB)
}

func lane(buf Mem, i int) Mem { return buf.Offset(8 * i) }

// copyState copies the 25 lanes from one buffer to the other through tmp.
func copyState(from, to Mem) {
	for i := 0; i < 25; i++ {
		MOVQ(lane(from, i), tmp)
		MOVQ(tmp, lane(to, i))
	}
}

// parities computes C[x] of buffer A into colC. With block (the register
// holding a block pointer) non-nil, it first XORs the block's 17 lanes
// into the state and stores them back.
func (k *scalar) parities(block Register) {
	Comment("θ parities of the input state")
	a := k.frame.Offset(frameA)
	for x := 0; x < 5; x++ {
		for y := 0; y < 5; y++ {
			i := x + 5*y
			absorb := block != nil && i < rateLanes
			if y > 0 && !absorb {
				XORQ(lane(a, i), colC[x])
				continue
			}
			var dst Register = colC[x]
			if y > 0 {
				dst = tmp
			}
			MOVQ(lane(a, i), dst)
			if absorb {
				XORQ(Mem{Base: block, Disp: 8 * i}, dst)
				MOVQ(dst, lane(a, i))
			}
			if y > 0 {
				XORQ(dst, colC[x])
			}
		}
	}
}

// roundKind says where round r finds its ι constant and what it XORs
// into its outputs.
type roundKind struct {
	inLoop   bool // r is r mod bmi2RoundsPerPass of a pass; frameRC points at the pass's constants
	addBlock bool // XOR the block at frameBlock into outputs 0..16
}

// round emits round r. On entry colC holds the parities of its input; on
// exit, those of its output.
func (k *scalar) round(r int, kind roundKind) {
	src, dst := k.buffer(r, false), k.buffer(r, true)
	Commentf("round %d", r)

	// θ: D[x] = C[x-1] ^ rot(C[x+1], 1). A D whose home is a parity
	// register is made in a row register and moved once all five are
	// made, since the other Ds still read that parity.
	scratch := rowB[:]
	var moves [][2]Register
	for x := 0; x < 5; x++ {
		rd := dHome[x]
		if isParity(rd) {
			rd, scratch = scratch[0], scratch[1:]
			moves = append(moves, [2]Register{rd, dHome[x]})
		}
		RORXQ(U8(63), colC[(x+1)%5], rd)
		XORQ(colC[(x+4)%5], rd)
	}
	for _, m := range moves {
		MOVQ(m[0], m[1])
	}

	for y := 0; y < 5; y++ {
		// θ (apply D), ρ and π.
		for x := 0; x < 5; x++ {
			s := piSource[x+5*y]
			MOVQ(lane(src, s), rowB[x])
			XORQ(dHome[s%5], rowB[x])
			if rho[s] != 0 {
				RORXQ(U8(64-rho[s]), rowB[x], rowB[x])
			}
		}
		if y == 4 {
			// The Ds are dead: the late columns sum their first four rows.
			for c := 0; c < 5; c++ {
				if lateColumn[c] {
					MOVQ(lane(dst, c), colC[c])
					for yy := 1; yy < 4; yy++ {
						XORQ(lane(dst, c+5*yy), colC[c])
					}
				}
			}
		}
		// χ, ι, the next block, and the parities of the next round.
		for _, x := range outputOrder(y) {
			var out Register = tmp
			if y == 0 && !lateColumn[x] {
				out = colC[x]
			}
			ANDNQ(rowB[(x+2)%5], rowB[(x+1)%5], out) // ^b[x+1] & b[x+2]
			XORQ(rowB[x], out)
			if x == 0 && y == 0 {
				k.iota(r, kind, out)
			}
			i := x + 5*y
			if kind.addBlock && i < rateLanes {
				XORQ(k.frame.Offset(frameBlock+8*i), out)
			}
			MOVQ(out, lane(dst, i))
			if y > 0 && (!lateColumn[x] || y == 4) {
				XORQ(out, colC[x])
			}
		}
	}
}

// iota XORs round r's constant into out, the χ output (0, 0).
func (k *scalar) iota(r int, kind roundKind, out Register) {
	if !kind.inLoop {
		XORQ(roundConstantTable.Offset(8*r), out)
		return
	}
	if out == tmp {
		panic("ι needs tmp for the constant pointer")
	}
	MOVQ(k.frame.Offset(frameRC), tmp)
	XORQ(Mem{Base: tmp, Disp: 8 * (r % bmi2RoundsPerPass)}, out)
}

func isParity(r Register) bool {
	for _, c := range colC {
		if r == c {
			return true
		}
	}
	return false
}

// roundLoop emits passes of bmi2RoundsPerPass rounds up to round
// constant number end; colC must hold the input's parities. It clobbers
// every register.
func (k *scalar) roundLoop(end int) {
	LEAQ(roundConstantTable, tmp)
	MOVQ(tmp, k.frame.Offset(frameRC))
	Label(k.label("rounds"))
	for r := 0; r < bmi2RoundsPerPass; r++ {
		k.round(r, roundKind{inLoop: true})
	}
	MOVQ(k.frame.Offset(frameRC), tmp)
	ADDQ(U8(passRounds), tmp)
	MOVQ(tmp, k.frame.Offset(frameRC))
	LEAQ(roundConstantTable.Offset(8*end), R8)
	CMPQ(tmp, R8)
	JB(LabelRef(k.label("rounds")))
}

// loadState copies the caller's state into buffer A and keeps its
// pointer in the frame.
func (k *scalar) loadState() {
	Load(Param("a"), RDI)
	MOVQ(RDI, k.frame.Offset(frameState))
	copyState(Mem{Base: RDI}, k.frame.Offset(frameA))
}

// storeState copies buffer A back to the caller's state.
func (k *scalar) storeState() {
	MOVQ(k.frame.Offset(frameState), RDI)
	copyState(k.frame.Offset(frameA), Mem{Base: RDI})
}

func keccakF1600BMI2() {
	TEXT("keccakF1600BMI2", 0, "func(a *[25]uint64)")
	k := newScalar("permute")
	k.loadState()
	k.parities(nil)
	k.roundLoop(roundCount)
	k.storeState()
	RET()
}

func absorbBlocksBMI2() {
	TEXT("absorbBlocksBMI2", 0, "func(a *[25]uint64, p []byte)")
	k := newScalar("absorb")
	Load(Param("p").Base(), blockPtr)
	Load(Param("p").Len(), blockEnd)
	CMPQ(blockEnd, U32(rate))
	JB(LabelRef(k.label("done")))
	ADDQ(blockPtr, blockEnd)
	MOVQ(blockEnd, k.frame.Offset(frameEnd))
	MOVQ(blockPtr, k.frame.Offset(frameP))
	k.loadState()
	k.parities(blockPtr)

	Label(k.label("block"))
	k.roundLoop(tailRound)
	for r := tailRound; r < roundCount-1; r++ {
		k.round(r, roundKind{})
	}
	Comment("is there a whole block after this one?")
	MOVQ(k.frame.Offset(frameP), blockPtr)
	ADDQ(U32(rate), blockPtr)
	LEAQ(Mem{Base: blockPtr, Disp: rate}, blockEnd)
	CMPQ(blockEnd, k.frame.Offset(frameEnd))
	JA(LabelRef(k.label("last")))
	MOVQ(blockPtr, k.frame.Offset(frameP))
	for i := 0; i < rateLanes; i++ {
		t := rowB[1+i%4]
		MOVQ(Mem{Base: blockPtr, Disp: 8 * i}, t)
		MOVQ(t, k.frame.Offset(frameBlock+8*i))
	}
	k.round(roundCount-1, roundKind{addBlock: true})
	JMP(LabelRef(k.label("block")))

	Label(k.label("last"))
	k.round(roundCount-1, roundKind{})
	k.storeState()
	Label(k.label("done"))
	RET()
}

// The pass arithmetic above assumes whole passes before the unrolled one.
func init() {
	if roundCount%bmi2RoundsPerPass != 0 || tailRound%bmi2RoundsPerPass != 0 || bmi2RoundsPerPass%2 != 0 {
		panic(fmt.Sprintf("bmi2RoundsPerPass %d does not divide the rounds", bmi2RoundsPerPass))
	}
}

package main

// # The AVX-512VL kernel
//
// It keeps the whole state in vector registers, one lane in the low
// quadword of each xmm register (the high quadword is don't-care), so that
// every step is a plain lane-wise instruction and the 32 EVEX registers
// hold the 25 lanes plus 7 temporaries. π costs nothing: the generator
// only renames registers. Per round, about 105 instructions, 95 of them
// for the execution units (register copies cost none on current cores):
//
//   - θ parities C[x], from the lanes: a copy and two 3-way XORs
//     (VPTERNLOGQ) per column, rows 0 to 2 first, so that only one
//     instruction waits for the previous round's last row.
//   - θ's D[x] = C[x-1] ^ rot(C[x+1], 1): a VPROLQ and a VPXORQ per
//     column, in an order that writes each D over a parity both of whose
//     uses are done: 25 lanes, 5 parities and 2 temporaries fill the 32
//     registers, and the five Ds stay in registers through the rows.
//   - Then one B row at a time: per lane, θ (a[x,y] ^= D[x], in place)
//     and ρ (one VPROLQ, in place); then χ on the row, one VPTERNLOGQ per
//     lane (b0 ^ (^b1 & b2)), emitted vecRowLead rows behind θ and ρ.
//     The first two outputs of a row go to fresh registers (their inputs
//     are still needed): a copy, then the VPTERNLOGQ; the other three
//     overwrite an input nobody needs any more. The two freed inputs are
//     the next row's fresh registers; each D is freed after its column's
//     last lane, in the last row.
//   - ι: for lane (0, 0) the copy is a VPXORQ with the round constant
//     (broadcast from a table in the binary), so ι is free.
//
// Applying θ row by row, just before ρ and χ, spreads the rotations, which
// have half as many ports as the logic instructions on Zen 4, evenly over
// the round: it is faster than applying θ to all 25 lanes first (the
// older kernel, which needed the registers the Ds take to accumulate the
// next round's parities while the rows came out).
//
// The lanes wander between registers from round to round; at the end of
// every pass of the round loop (vecRoundsPerPass rounds) a few register
// moves put each lane back in its home register (lane i in Xi), so the
// round loop and the absorb loop can go round with the state in
// registers. The block is XORed in with 17 broadcast loads, and the state
// is loaded once on entry and stored once on return. The kernel uses no
// general-purpose register but RDI, RSI, RCX, RAX and R8.

import (
	"github.com/keccakroot/keccakroot/fastkeccak/_asm/internal/lanes"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

const (
	vecRegs = 32
	// The frame is not used, but a frame of 128 bytes or more keeps the
	// stack check in the prologue.
	vecFrameBytes = 128
)

// vecRoundsPerPass is how many rounds one pass of the round loop does.
const vecRoundsPerPass = 8

// vecRowLead is how many B rows ahead of χ the generator emits θ and ρ.
// The core starts the oldest ready instruction first, so emitting the
// rotations of later rows before the current row's χ keeps the rotation
// ports busy while χ waits for its inputs.
const vecRowLead = 2

var xmm = [vecRegs]VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15,
	X16, X17, X18, X19, X20, X21, X22, X23, X24, X25, X26, X27, X28, X29, X30, X31}

// Ternary-logic truth tables for VPTERNLOGQ imm, c, b, a (a is also the
// destination): bit a<<2 | b<<1 | c of the immediate is the result.
const (
	ternXor3 = 0x96 // a ^ b ^ c
	ternChi  = 0xD2 // a ^ (^b & c)
)

// vecState is the single-state kernel's register map (see lanes).
type vecState struct {
	*lanes.Map
}

func newVecState() *vecState {
	return &vecState{Map: lanes.New(xmm)}
}

// round emits round r of a pass; vecRCPtr points at the pass's round
// constants.
func (s *vecState) round(r int) {
	Commentf("round %d", r)
	var c [5]int
	for x := 0; x < 5; x++ {
		c[x] = s.Alloc()
		VMOVDQA64(s.Reg(x), xmm[c[x]])
		VPTERNLOGQ(U8(ternXor3), s.Reg(x+10), s.Reg(x+5), xmm[c[x]])
		VPTERNLOGQ(U8(ternXor3), s.Reg(x+20), s.Reg(x+15), xmm[c[x]])
	}
	// D[x] = C[x-1] ^ rot(C[x+1], 1), in an order that reuses the
	// parities' registers as they die: 25 lanes, 5 parities and 2
	// temporaries fill the 32 registers.
	var d [5]int
	dAt := func(x, dst int) {
		VPROLQ(U8(1), xmm[c[(x+1)%5]], xmm[dst])
		VPXORQ(xmm[c[(x+4)%5]], xmm[dst], xmm[dst])
		d[x] = dst
	}
	dAt(0, s.Alloc())
	dAt(2, s.Alloc())
	s.Free(c[1])
	dAt(1, s.Alloc())
	dAt(3, c[4])
	s.Free(c[2])
	dAt(4, c[0])
	s.Free(c[3])

	uses := [5]int{5, 5, 5, 5, 5}
	var out [25]int
	var b [5][5]int
	thetaRho := func(y int) {
		for x := range b[y] {
			l := piSource[x+5*y]
			b[y][x] = s.Lane[l]
			VPXORQ(xmm[d[l%5]], xmm[b[y][x]], xmm[b[y][x]])
			if uses[l%5]--; uses[l%5] == 0 {
				s.Free(d[l%5])
			}
			if n := rho[l]; n != 0 {
				VPROLQ(U8(n), xmm[b[y][x]], xmm[b[y][x]])
			}
		}
	}
	for y := 0; y < vecRowLead; y++ {
		thetaRho(y)
	}
	for y := 0; y < 5; y++ {
		if y+vecRowLead < 5 {
			thetaRho(y + vecRowLead)
		}
		b := b[y]
		o := out[5*y : 5*y+5]
		for x := 0; x < 2; x++ {
			o[x] = s.Alloc()
			if x == 0 && y == 0 {
				VPXORQ_BCST(Mem{Base: vecRCPtr, Disp: 8 * r}, xmm[b[x]], xmm[o[x]]) // ι
			} else {
				VMOVDQA64(xmm[b[x]], xmm[o[x]])
			}
			VPTERNLOGQ(U8(ternChi), xmm[b[x+2]], xmm[b[x+1]], xmm[o[x]])
		}
		for x := 2; x < 5; x++ {
			o[x] = b[x]
			VPTERNLOGQ(U8(ternChi), xmm[b[(x+2)%5]], xmm[b[(x+1)%5]], xmm[o[x]])
		}
		s.Free(b[0])
		s.Free(b[1])
	}
	s.Lane = out
}

// Scalar registers of the AVX-512VL functions.
var (
	vecStatePtr = RDI // the caller's *[25]uint64
	vecBlock    = RSI // absorb: the current block
	vecEnd      = RCX // absorb: end of p less rate-1 bytes: the bound of a whole block's start
	vecRCPtr    = R8  // the round constants of this pass
	vecScratch  = RAX
)

// permute emits the 24 rounds.
func (s *vecState) permute() {
	LEAQ(roundConstantTable, vecRCPtr)
	Label("rounds")
	for r := 0; r < vecRoundsPerPass; r++ {
		s.round(r)
	}
	s.Home()
	ADDQ(U8(8*vecRoundsPerPass), vecRCPtr)
	LEAQ(roundConstantTable.Offset(8*roundCount), vecScratch)
	CMPQ(vecRCPtr, vecScratch)
	JB(LabelRef("rounds"))
}

func vecPrologue() *vecState {
	AllocLocal(vecFrameBytes)
	Load(Param("a"), vecStatePtr)
	for i := 0; i < 25; i++ {
		VMOVQ(Mem{Base: vecStatePtr, Disp: 8 * i}, xmm[i])
	}
	return newVecState()
}

func vecEpilogue() {
	for i := 0; i < 25; i++ {
		VMOVQ(xmm[i], Mem{Base: vecStatePtr, Disp: 8 * i})
	}
	VZEROUPPER()
	RET()
}

func keccakF1600AVX512VL() {
	TEXT("keccakF1600AVX512VL", 0, "func(a *[25]uint64)")
	s := vecPrologue()
	s.permute()
	vecEpilogue()
}

func absorbBlocksAVX512VL() {
	TEXT("absorbBlocksAVX512VL", 0, "func(a *[25]uint64, p []byte)")
	s := vecPrologue()
	Load(Param("p").Base(), vecBlock)
	Load(Param("p").Len(), vecEnd)
	// A block starts below vecEnd only if it ends within p: a tail
	// shorter than a block is left alone, never read.
	CMPQ(vecEnd, U32(rate))
	JB(LabelRef("done"))
	LEAQ(Mem{Base: vecBlock, Index: vecEnd, Scale: 1, Disp: -(rate - 1)}, vecEnd)

	Label("block")
	for i := 0; i < rateLanes; i++ {
		VPXORQ_BCST(Mem{Base: vecBlock, Disp: 8 * i}, xmm[i], xmm[i])
	}
	s.permute()
	ADDQ(U32(rate), vecBlock)
	CMPQ(vecBlock, vecEnd)
	JB(LabelRef("block"))

	Label("done")
	vecEpilogue()
}

package main

// # The AVX-512VL kernel
//
// It keeps the whole state in vector registers, one lane in the low
// quadword of each xmm register (the high quadword is don't-care), so that
// every step is a plain lane-wise instruction and the 32 EVEX registers
// hold the 25 lanes plus 7 temporaries. π costs nothing: the generator
// only renames registers. Per round, about 105 instructions:
//
//   - θ apply: per column x, R = rot(C[x+1], 1) (VPROLQ), then
//     a[x,y] ^= C[x-1] ^ R as one 3-way XOR (VPTERNLOGQ) per lane, in
//     place. The columns go in an order that frees each parity as soon as
//     both its uses are done, so at most 6 temporaries are live.
//   - ρ, one B row at a time: one VPROLQ per lane, in place.
//   - χ on that row: one VPTERNLOGQ per lane (b0 ^ (^b1 & b2)). The first
//     two outputs of a row go to fresh registers (their inputs are still
//     needed): a copy, then the VPTERNLOGQ; the other three overwrite an
//     input nobody needs any more. The two freed inputs are the next row's
//     fresh registers.
//   - ι: for lane (0, 0) the copy is a VPXORQ with the round constant
//     (broadcast from a table in the binary), so ι is free.
//   - The next round's parities C[x], accumulated as the rows come out
//     (XOR of rows 0 and 1, a 3-way XOR with rows 2 and 3, then row 4), so
//     that only one XOR separates the last χ from the next θ. The first
//     round of a pass computes them from the lanes instead (a copy and
//     two 3-way XORs per column).
//
// Doing ρ and χ row by row lets the rotations and the ternary-logic
// instructions, which use different execution ports, overlap.
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

var xmm = [vecRegs]VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15,
	X16, X17, X18, X19, X20, X21, X22, X23, X24, X25, X26, X27, X28, X29, X30, X31}

// Ternary-logic truth tables for VPTERNLOGQ imm, c, b, a (a is also the
// destination): bit a<<2 | b<<1 | c of the immediate is the result.
const (
	ternXor3 = 0x96 // a ^ b ^ c
	ternChi  = 0xD2 // a ^ (^b & c)
)

// vecState is the single-state kernel's register map (see lanes), with
// the registers of the column parities carried between rounds.
type vecState struct {
	*lanes.Map
	c []int // registers of the parities of the current state, or nil
}

func newVecState() *vecState {
	return &vecState{Map: lanes.New(xmm)}
}

// round emits round r of a pass; vecRCPtr points at the pass's round
// constants.
func (s *vecState) round(r int, acc bool) {
	Commentf("round %d", r)

	// θ parities, unless the previous round left them.
	c := s.c
	if c == nil {
		c = make([]int, 5)
		for x := 0; x < 5; x++ {
			c[x] = s.Alloc()
			VMOVDQA64(s.Reg(x), xmm[c[x]])
			VPTERNLOGQ(U8(ternXor3), s.Reg(x+10), s.Reg(x+5), xmm[c[x]])
			VPTERNLOGQ(U8(ternXor3), s.Reg(x+20), s.Reg(x+15), xmm[c[x]])
		}
	}
	s.c = nil

	// θ apply. C[j] is used by column j+1 as it is and by column j-1
	// rotated; its register is freed after both.
	uses := [5]int{2, 2, 2, 2, 2}
	done := func(j int) {
		if uses[j]--; uses[j] == 0 {
			s.Free(c[j])
		}
	}
	for _, x := range [5]int{0, 2, 1, 3, 4} {
		rot := s.Alloc()
		VPROLQ(U8(1), xmm[c[(x+1)%5]], xmm[rot])
		for y := 0; y < 5; y++ {
			VPTERNLOGQ(U8(ternXor3), xmm[rot], xmm[c[(x+4)%5]], s.Reg(x+5*y))
		}
		s.Free(rot)
		done((x + 1) % 5)
		done((x + 4) % 5)
	}

	// ρ, π (a renaming), χ and ι, one B row at a time.
	var out [25]int
	for y := 0; y < 5; y++ {
		var b [5]int
		for x := range b {
			b[x] = s.Lane[piSource[x+5*y]]
			if n := rho[piSource[x+5*y]]; n != 0 {
				VPROLQ(U8(n), xmm[b[x]], xmm[b[x]])
			}
		}
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
		if !acc {
			continue
		}
		// The next round's parities, as soon as the rows come.
		switch y {
		case 1:
			s.c = make([]int, 5)
			for x := 0; x < 5; x++ {
				s.c[x] = s.Alloc()
				VPXORQ(xmm[out[x]], xmm[out[x+5]], xmm[s.c[x]])
			}
		case 3:
			for x := 0; x < 5; x++ {
				VPTERNLOGQ(U8(ternXor3), xmm[out[x+15]], xmm[out[x+10]], xmm[s.c[x]])
			}
		case 4:
			for x := 0; x < 5; x++ {
				VPXORQ(xmm[out[x+20]], xmm[s.c[x]], xmm[s.c[x]])
			}
		}
	}
	s.Lane = out
}

// Scalar registers of the AVX-512VL functions.
var (
	vecStatePtr = RDI // the caller's *[25]uint64
	vecBlock    = RSI // absorb: the current block
	vecEnd      = RCX // absorb: end of p
	vecRCPtr    = R8  // the round constants of this pass
	vecScratch  = RAX
)

// permute emits the 24 rounds.
func (s *vecState) permute() {
	LEAQ(roundConstantTable, vecRCPtr)
	Label("rounds")
	for r := 0; r < vecRoundsPerPass; r++ {
		s.round(r, r < vecRoundsPerPass-1)
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
	TESTQ(vecEnd, vecEnd)
	JZ(LabelRef("done"))
	ADDQ(vecBlock, vecEnd)

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

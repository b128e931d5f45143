package main

// # The 4-way AVX2 kernel
//
// Lane i of four states is one ymm register, but AVX2 has only 16 of them,
// so the state lives in memory and every round streams it from one buffer
// to the other, as the scalar BMI2 kernel does: even rounds read the
// caller's states and write a buffer in the frame, odd rounds read that
// buffer and write the caller's states back. What stays in registers are
// the column parities, the θ values and one row at a time:
//
//  1. θ: from the parities C[x] (left by the previous round),
//     D[x] = C[x-1] ^ rot(C[x+1], 1), computed in place in the order
//     x = 0, 2, 4, 1, 3 so that only D[0] needs a new register. AVX2 has
//     no rotate, but the two halves of rot(c, 1) do not overlap, so each
//     is XORed in on its own: c>>63 (VPSRLQ) and c+c (VPADDQ, which runs
//     on more ports than a shift).
//  2. Row by row: the five lanes that π brings to row y are loaded with
//     their column's D XORed in (VPXOR with a memory operand) and rotated
//     by their ρ offset: shift, shift, OR, except the byte rotations 8 and
//     56 (one VPSHUFB), the rotation by 1 (c+c for the left shift) and
//     lane (0, 0), which is not rotated. χ makes each output as
//     b[x] ^ (^b[x+1] & b[x+2]) with one VPANDN and one VPXOR; ι goes into
//     output (0, 0). Each output is stored and XORed into the parity C[x]
//     of the next round (row 0 starts the parities in place).
//
// That is 5 D registers, 5 parities, 5 row lanes and one temporary: all
// sixteen registers. About 185 vector instructions and 25 stores a round
// for four states, against about 95 instructions for eight states in the
// AVX-512 kernel.
//
// The block is gathered lane by lane with VPGATHERQQ (the four message
// pointers are the index vector, 136*k the base register), XORed into the
// caller's states in memory, and the first round's parities are summed on
// the way. The round constants are stored four times over, so that ι is a
// plain VPXOR with memory.

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

const (
	ymmRegs      = 16
	ymmLaneBytes = 32 // one lane of the four states
	ymmStateSize = 25 * ymmLaneBytes
)

var ymm = [ymmRegs]VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}

// Scalar registers of absorbBatch4AVX2.
var (
	yStatePtr = RDI // a
	yPtrs     = RSI // p: the four block pointers, the gather index vector
	yBlocks   = RCX // blocks left
	yBlockOff = R9  // 136 * blocks done: the gather base
	yRCPtr    = R8  // the round constants of the current pair of rounds
	yScratch  = RAX
)

// Static tables of the AVX2 kernel.
var (
	ymmRoundConstants Mem // each constant four times
	ymmRotate8        Mem // VPSHUFB control: every quadword rotated left 8 bits
	ymmRotate56       Mem // and left 56 bits
	ymmLaneBits       Mem // 1, 2, 4, 8: the bit of fresh for each state
)

func avx2Tables() {
	ymmRoundConstants = GLOBL("batchRoundConstants4", RODATA|NOPTR)
	for i, rc := range roundConstants {
		for j := 0; j < 4; j++ {
			DATA(32*i+8*j, U64(rc))
		}
	}
	// VPSHUFB works within 16-byte halves; byte k of each quadword takes
	// byte k-1 (rotation left by 8) or k+1 (left by 56) of the same one.
	ymmRotate8 = GLOBL("batchRotate8", RODATA|NOPTR)
	for i := 0; i < 32; i++ {
		quad := (i % 16) &^ 7
		k := i % 8
		DATA(i, U8(quad+(k+7)%8))
	}
	ymmRotate56 = GLOBL("batchRotate56", RODATA|NOPTR)
	for i := 0; i < 32; i++ {
		quad := (i % 16) &^ 7
		k := i % 8
		DATA(i, U8(quad+(k+1)%8))
	}
	ymmLaneBits = GLOBL("batchLaneBits4", RODATA|NOPTR)
	for j := 0; j < 4; j++ {
		DATA(8*j, U64(uint64(1)<<j))
	}
}

// ymmAlloc hands out ymm registers.
type ymmAlloc struct{ used [ymmRegs]bool }

func (a *ymmAlloc) get() VecPhysical {
	for r := 0; r < ymmRegs; r++ {
		if !a.used[r] {
			a.used[r] = true
			return ymm[r]
		}
	}
	panic("out of ymm registers")
}

func (a *ymmAlloc) take(r VecPhysical) {
	n := ymmIndex(r)
	if a.used[n] {
		panic("register taken twice")
	}
	a.used[n] = true
}

func (a *ymmAlloc) put(r VecPhysical) {
	n := ymmIndex(r)
	if !a.used[n] {
		panic("double free of a ymm register")
	}
	a.used[n] = false
}

func ymmIndex(r VecPhysical) int {
	for i, y := range ymm {
		if y == r {
			return i
		}
	}
	panic("not a ymm register")
}

// ymmAsm is what the AVX2 rounds emit through: the function being
// generated (ymmGlobal) or a *build.Context that records them, to merge
// them with the scalar rounds of a fifth state (see short5.go).
type ymmAsm interface {
	VPXOR(mxy, xy, xy1 Op)
	VPANDN(mxy, xy, xy1 Op)
	VPOR(mxy, xy, xy1 Op)
	VPADDQ(ops ...Op)
	VPSRLQ(ops ...Op)
	VPSLLQ(ops ...Op)
	VPSHUFB(ops ...Op)
	VMOVDQU(mxy, mxy1 Op)
	Comment(lines ...string)
	Commentf(format string, a ...any)
}

// ymmGlobal emits into avo's global context.
type ymmGlobal struct{}

func (ymmGlobal) VPXOR(mxy, xy, xy1 Op)            { VPXOR(mxy, xy, xy1) }
func (ymmGlobal) VPANDN(mxy, xy, xy1 Op)           { VPANDN(mxy, xy, xy1) }
func (ymmGlobal) VPOR(mxy, xy, xy1 Op)             { VPOR(mxy, xy, xy1) }
func (ymmGlobal) VPADDQ(ops ...Op)                 { VPADDQ(ops...) }
func (ymmGlobal) VPSRLQ(ops ...Op)                 { VPSRLQ(ops...) }
func (ymmGlobal) VPSLLQ(ops ...Op)                 { VPSLLQ(ops...) }
func (ymmGlobal) VPSHUFB(ops ...Op)                { VPSHUFB(ops...) }
func (ymmGlobal) VMOVDQU(mxy, mxy1 Op)             { VMOVDQU(mxy, mxy1) }
func (ymmGlobal) Comment(lines ...string)          { Comment(lines...) }
func (ymmGlobal) Commentf(format string, a ...any) { Commentf(format, a...) }

// rotl1Xor emits dst = a ^ rot(b, 1) with the temporary t; dst may be a.
func rotl1Xor(asm ymmAsm, dst, a, b, t VecPhysical) {
	asm.VPSRLQ(U8(63), b, t)
	asm.VPXOR(t, a, dst)
	asm.VPADDQ(b, b, t)
	asm.VPXOR(t, dst, dst)
}

// rotate emits v = rot(v, n), with t free for the duration.
func rotate(asm ymmAsm, v VecPhysical, n int, ra *ymmAlloc) {
	switch n {
	case 0:
	case 8:
		asm.VPSHUFB(ymmRotate8, v, v)
	case 56:
		asm.VPSHUFB(ymmRotate56, v, v)
	default:
		t := ra.get()
		asm.VPSRLQ(U8(64-n), v, t)
		if n == 1 {
			asm.VPADDQ(v, v, v)
		} else {
			asm.VPSLLQ(U8(n), v, v)
		}
		asm.VPOR(t, v, v)
		ra.put(t)
	}
}

// ymmRound emits one round from the buffer in to the buffer out through
// asm. c holds the parities of in; rc is the round constant, four times
// over. It returns the registers of the parities of out.
func ymmRound(asm ymmAsm, ra *ymmAlloc, in, out, rc Mem, c [5]VecPhysical) [5]VecPhysical {
	asm.Comment("θ: D[x] = C[x-1] ^ rot(C[x+1], 1)")
	var d [5]VecPhysical
	d[0] = ra.get()
	t := ra.get()
	rotl1Xor(asm, d[0], c[4], c[1], t)
	for _, x := range []int{2, 4, 1, 3} {
		d[x] = c[(x+4)%5]
		rotl1Xor(asm, d[x], c[(x+4)%5], c[(x+1)%5], t)
	}
	ra.put(t)
	ra.put(c[4])

	var next [5]VecPhysical
	for y := 0; y < 5; y++ {
		asm.Commentf("row %d: ρ, π, χ", y)
		var b [5]VecPhysical
		for x := 0; x < 5; x++ {
			src := piSource[x+5*y]
			b[x] = ra.get()
			asm.VPXOR(in.Offset(ymmLaneBytes*src), d[src%5], b[x])
			rotate(asm, b[x], rho[src], ra)
		}
		for x := 0; x < 5; x++ {
			var o VecPhysical
			if y == 0 {
				o = ra.get()
				next[x] = o
			} else {
				o = ra.get()
			}
			asm.VPANDN(b[(x+2)%5], b[(x+1)%5], o)
			asm.VPXOR(b[x], o, o)
			if x == 0 && y == 0 {
				asm.VPXOR(rc, o, o)
			}
			asm.VMOVDQU(o, out.Offset(ymmLaneBytes*(x+5*y)))
			if y > 0 {
				asm.VPXOR(o, next[x], next[x])
				ra.put(o)
			}
		}
		for x := range b {
			ra.put(b[x])
		}
	}
	for x := range d {
		ra.put(d[x])
	}
	return next
}

// ymmPermute emits the 24 rounds on the states in st, two per iteration of
// a loop at label: the states to the buffer spare and back. head holds the
// parities of st on entry.
func ymmPermute(st, spare Mem, head [5]VecPhysical, label string) {
	Comment("24 rounds, two per iteration: the states to the spare buffer and back.")
	LEAQ(ymmRoundConstants, yRCPtr)
	Label(label)
	{
		var ra ymmAlloc
		for _, r := range head {
			ra.take(r)
		}
		rc := Mem{Base: yRCPtr}
		c := ymmRound(ymmGlobal{}, &ra, st, spare, rc, head)
		c = ymmRound(ymmGlobal{}, &ra, spare, st, rc.Offset(ymmLaneBytes), c)
		ymmMove(&ra, c, head)
	}
	ADDQ(U8(2*ymmLaneBytes), yRCPtr)
	LEAQ(ymmRoundConstants.Offset(roundCount*ymmLaneBytes), yScratch)
	CMPQ(yRCPtr, yScratch)
	JB(LabelRef(label))
}

// ymmMove emits moves that take the values in from to the registers to.
// Every register in to that is not in from must be free.
func ymmMove(ra *ymmAlloc, from, to [5]VecPhysical) {
	cur := from
	for {
		progress := false
		pending := false
		for i := range cur {
			if cur[i] == to[i] {
				continue
			}
			pending = true
			busy := false
			for j := range cur {
				if j != i && cur[j] == to[i] {
					busy = true
				}
			}
			if busy {
				continue
			}
			ra.take(to[i])
			VMOVDQA(cur[i], to[i])
			ra.put(cur[i])
			cur[i] = to[i]
			progress = true
		}
		if !pending {
			return
		}
		if !progress {
			// A cycle: park one value in a free register.
			t := ra.get()
			VMOVDQA(cur[0], t)
			ra.put(cur[0])
			cur[0] = t
		}
	}
}

func absorbBatch4AVX2() {
	TEXT("absorbBatch4AVX2", 0, "func(a *[100]uint64, p *[4]*byte, fresh uint64, nblocks int)")
	Doc("absorbBatch4AVX2 absorbs nblocks blocks into each of 4 interleaved states.")
	frame := AllocLocal(ymmStateSize)
	st := Mem{Base: yStatePtr}
	Load(Param("a"), yStatePtr)
	Load(Param("p"), yPtrs)
	Load(Param("nblocks"), yBlocks)

	Comment("Clear the states marked fresh.")
	Load(Param("fresh"), yScratch)
	TESTQ(yScratch, yScratch)
	JZ(LabelRef("cleared"))
	{
		keep, t := Y14, Y15
		fresh, err := Param("fresh").Resolve()
		if err != nil {
			panic(err)
		}
		VPBROADCASTQ(fresh.Addr, keep)
		VPAND(ymmLaneBits, keep, keep)
		VPXOR(t, t, t)
		VPCMPEQQ(t, keep, keep) // all ones where the state is kept
		for i := 0; i < 25; i++ {
			VPAND(st.Offset(ymmLaneBytes*i), keep, t)
			VMOVDQU(t, st.Offset(ymmLaneBytes*i))
		}
	}
	Label("cleared")

	XORL(yBlockOff.As32(), yBlockOff.As32())
	TESTQ(yBlocks, yBlocks)
	JLE(LabelRef("done"))

	head := [5]VecPhysical{Y0, Y1, Y2, Y3, Y4}
	Label("block")
	{
		Comment("XOR the next block of every state in, and sum the parities.")
		var ra ymmAlloc
		for _, r := range head {
			ra.take(r)
		}
		idx := ra.get()
		VMOVDQU(Mem{Base: yPtrs}, idx)
		masks := []VecPhysical{ra.get(), ra.get()}
		tmps := []VecPhysical{ra.get(), ra.get()}
		for i := 0; i < rateLanes; i++ {
			m := masks[i%2]
			dst := tmps[i%2]
			if i < 5 {
				dst = head[i]
			}
			VPCMPEQQ(m, m, m)
			VPGATHERQQ(m, Mem{Base: yBlockOff, Index: idx, Scale: 1, Disp: 8 * i}, dst)
			VPXOR(st.Offset(ymmLaneBytes*i), dst, dst)
			VMOVDQU(dst, st.Offset(ymmLaneBytes*i))
			if i >= 5 {
				VPXOR(dst, head[i%5], head[i%5])
			}
		}
		for i := rateLanes; i < 25; i++ {
			VPXOR(st.Offset(ymmLaneBytes*i), head[i%5], head[i%5])
		}
	}

	ymmPermute(st, frame, head, "rounds")

	ADDQ(U32(rate), yBlockOff)
	DECQ(yBlocks)
	JNZ(LabelRef("block"))

	Label("done")
	VZEROUPPER()
	RET()
}

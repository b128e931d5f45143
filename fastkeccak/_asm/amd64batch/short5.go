package main

// # The 5-way kernel for one-block messages: four AVX2 states and a scalar one
//
// sumShort5AVX2 hashes five messages of at most 135 bytes: four as
// sumShort4AVX2 (short2.go) does, lane-major in ymm registers, and the
// fifth in general-purpose registers with the rounds of the BMI2 kernel
// (the scalar package). The two kinds of rounds share no register and no
// memory, and the generator merges their instruction streams, two rounds
// of each per pass of the loop, into one (asmstream.Merge): on cores whose
// vector and integer instructions issue to pipes of their own (AMD's), the
// scalar state's work fills the cycles in which the AVX2 rounds wait at
// each round's θ for the whole round before it. On Zen 5 the merged pass
// gave five states in about 59 cycles a round where four AVX2 states alone
// take about 61, a stand-in; on a Zen 3, the one AVX2-only core measured,
// it lost to the four-state kernel, every AVX2 core's default since
// (docs/performance.md, Sum256Batch).
//
//   - Loading: messages 0..3 as sumShort4AVX2 loads them. Message 4's
//     whole quadwords are read with the same masked VPMASKMOVQ columns
//     into lanes 0..15 of the scalar state, its tail quadword and the
//     padding as for the others.
//   - Rounds: the AVX2 rounds address their states in the frame from SP
//     (no base register), and both kinds read the round constant from two
//     slots in the frame, which the loop fills from the four-times table at
//     the top of each pass: the first quadword of a slot is the scalar
//     round's constant.
//   - Digests: lanes 0..3 of the four AVX2 states transposed as in
//     sumShort4AVX2, and lanes 0..3 of the scalar state, through the
//     pointers.
//
// It needs AVX2 and BMI2 (RORX and ANDN in the scalar rounds).

import (
	"github.com/keccakroot/keccakroot/fastkeccak/_asm/internal/asmstream"
	"github.com/keccakroot/keccakroot/fastkeccak/_asm/internal/scalar"

	"github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The frame of sumShort5AVX2: the four AVX2 states, the buffer of their
// odd rounds, the scalar state's two buffers, the two round-constant
// slots, and the pointer to the next pass's constants.
const (
	short5Scalar  = 2 * ymmStateSize
	short5RC      = short5Scalar + scalar.StateBuffer
	short5RCPtr   = short5RC + short5Rounds*ymmLaneBytes
	short5Frame   = short5RCPtr + 8
	short5Rounds  = 2 // rounds of each kind per pass
	short5PassEnd = roundCount * ymmLaneBytes
)

func sumShort5AVX2() {
	TEXT("sumShort5AVX2", 0, "func(out *[5]*[32]byte, msgs *[5][]byte)")
	Doc("sumShort5AVX2 hashes five messages of at most 135 bytes.")
	frame := AllocLocal(short5Frame)
	Load(Param("out"), s2Out)
	Load(Param("msgs"), s2Msgs)
	LEAQ(frame, yStatePtr)
	loadShort4(Mem{Base: yStatePtr})

	k := scalar.Rounds{Frame: frame.Offset(short5Scalar), Asm: scalar.Global{}}
	a := k.Frame.Offset(scalar.FrameA)
	Comment("Message 4 into the scalar state: whole quadwords 0..15 (lanes 0..15),")
	Comment("lane 16 the last padding byte, lanes 17..24 zero, then the tail.")
	loadMessage(4)
	words, mask, lane := Y8, Y9, Y0
	MOVQ(s2Len, s2Words)
	SHRQ(U8(3), s2Words)
	broadcastCount(s2Words, words)
	for c := 0; c < 4; c++ {
		maskedQuads(c, words, mask, lane)
		VMOVDQU(lane, a.Offset(32*c))
	}
	VPXOR(lane, lane, lane)
	VMOVDQU(lane, scalar.Lane(a, 17))
	VMOVDQU(lane, scalar.Lane(a, 21))
	MOVQ(U64(0x80<<56), s2Part)
	MOVQ(s2Part, scalar.Lane(a, 16))
	tailQuadword(4)
	LEAQ(a, s2Part)
	XORQ(s2Tail, Mem{Base: s2Part, Index: s2Words, Scale: 8})

	st := frame
	mergedPermute5(st, k, frame.Offset(short5RC), frame.Offset(short5RCPtr), "rounds5")

	Load(Param("out"), s2Out)
	storeDigests4(st)
	storeScalarDigest(a)
	VZEROUPPER()
	RET()
}

// storeScalarDigest writes lanes 0..3 of the scalar state at a, message
// 4's digest, through its pointer in s2Out.
func storeScalarDigest(a Mem) {
	Comment("The scalar state's digest: its lanes 0..3.")
	VMOVDQU(a, Y0)
	MOVQ(Mem{Base: s2Out, Disp: 8 * 4}, s2Ptr)
	VMOVDQU(Y0, Mem{Base: s2Ptr})
}

// mergedPermute5 emits the first round's parities of the four AVX2 states
// at st (addressed from SP, the buffer of their odd rounds after them) and
// of k's scalar state, then their 24 rounds, two of each kind per pass of a
// loop at label, the two instruction streams merged (asmstream.Merge). The
// round constants come from the slots at rcSlots, refilled at the top of
// each pass from the four-times table through the pointer kept at rcPtr.
// The rounds use every general-purpose register but SP and BP, and every
// vector register; the states end where they began.
func mergedPermute5(st Mem, k scalar.Rounds, rcSlots, rcPtr Mem, label string) {
	spare := st.Offset(ymmStateSize)
	head := ymmParities(st)
	k.Parities(nil)

	Comment("24 rounds of each kind, merged, two of each per pass.")
	LEAQ(ymmRoundConstants, scalar.Tmp)
	MOVQ(scalar.Tmp, rcPtr)
	Label(label)
	{
		Comment("This pass's round constants into the slots.")
		MOVQ(rcPtr, scalar.Tmp)
		for r := 0; r < short5Rounds; r++ {
			VMOVDQU(Mem{Base: scalar.Tmp, Disp: ymmLaneBytes * r}, Y5)
			VMOVDQU(Y5, rcSlots.Offset(ymmLaneBytes*r))
		}
		var ra ymmAlloc
		for _, r := range head {
			ra.take(r)
		}
		c := head
		vector := asmstream.Record(func(asm *build.Context) {
			in, out := st, spare
			for r := 0; r < short5Rounds; r++ {
				c = ymmRound(asm, &ra, in, out, rcSlots.Offset(ymmLaneBytes*r), c)
				in, out = out, in
			}
		})
		integer := asmstream.Record(func(asm *build.Context) {
			rec := scalar.Rounds{Frame: k.Frame, Asm: asm}
			for r := 0; r < short5Rounds; r++ {
				rc := rcSlots.Offset(ymmLaneBytes * r)
				rec.Emit(scalar.Round{R: r, Iota: func(out Register) { asm.XORQ(rc, out) }})
			}
		})
		asmstream.Emit(asmstream.Merge(vector, integer))
		ymmMove(&ra, c, head)
	}
	MOVQ(rcPtr, scalar.Tmp)
	ADDQ(U8(short5Rounds*ymmLaneBytes), scalar.Tmp)
	MOVQ(scalar.Tmp, rcPtr)
	LEAQ(ymmRoundConstants.Offset(short5PassEnd), scalar.RowB[0])
	CMPQ(scalar.Tmp, scalar.RowB[0])
	JB(LabelRef(label))
}

// The passes must leave both kinds of state where they began: the AVX2
// states alternate between two buffers, the scalar one too.
func init() {
	if short5Rounds%2 != 0 || roundCount%short5Rounds != 0 {
		panic("short5Rounds must be even and divide the rounds")
	}
}

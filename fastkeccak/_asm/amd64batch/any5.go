package main

// # The 5-way kernel for messages of any length: four AVX2 states and a scalar one
//
// sumAny5AVX2 is sumAny4AVX2 (any2.go) with a fifth message, held in
// general-purpose registers as sumShort5AVX2 (short5.go) holds its fifth:
// each block of messages 0..3 is absorbed as sumAny4AVX2 absorbs it, the
// fifth message's block is XORed into the scalar state, and the 24 rounds
// of both kinds run merged (mergedPermute5). It is the any-length kernel of
// amd64-avx2x5, for the trie's branches and other messages longer than one
// block.
//
//   - Message 4's block: a full one (136 bytes or more left from the
//     block's start) is read with plain 32-byte loads for lanes 0..15 and
//     one quadword load for lane 16, since every byte of it is the
//     message's; a last block as sumAny4AVX2 reads one, masked loads for
//     its whole quadwords and its tail through lastTail, with 0x80 at
//     byte 135; a message that ended before the block is not read.
//   - The merged rounds use every general-purpose register, so the block
//     offset, the end and the finishing messages' bits live in the frame,
//     and the parameters are loaded again after each block's rounds.
//
// It needs AVX2 and BMI2 (RORX and ANDN in the scalar rounds).

import (
	"github.com/keccakroot/keccakroot/fastkeccak/_asm/internal/scalar"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The frame of sumAny5AVX2: sumShort5AVX2's (the states, the scalar
// state's buffers, the round-constant slots and their pointer), then the
// end of the last block, the bits of the messages finishing at this block,
// and 136 * the blocks done.
const (
	any5End      = short5Frame
	any5Last     = any5End + 8
	any5BlockOff = any5Last + 8
	any5Frame    = any5BlockOff + 8
)

func sumAny5AVX2() {
	TEXT("sumAny5AVX2", 0, "func(out *[5]*[32]byte, msgs *[5][]byte, nblocks int)")
	Doc("sumAny5AVX2 hashes five messages of at most nblocks blocks each.")
	frame := AllocLocal(any5Frame)
	st := frame // the rounds address the AVX2 states from SP
	k := scalar.Rounds{Frame: frame.Offset(short5Scalar), Asm: scalar.Global{}}
	a := k.Frame.Offset(scalar.FrameA)
	Load(Param("nblocks"), a2BlockOff)
	IMUL3Q(U32(rate), a2BlockOff, a2BlockOff)
	MOVQ(a2BlockOff, frame.Offset(any5End))
	MOVQ(U32(0), frame.Offset(any5BlockOff))

	Comment("The states start at zero.")
	VPXOR(Y0, Y0, Y0)
	for i := 0; i < 25; i++ {
		VMOVDQU(Y0, st.Offset(ymmLaneBytes*i))
	}
	for off := 0; off < 25*8; off += 32 {
		VMOVDQU(Y0, a.Offset(min(off, 25*8-32)))
	}

	Label("block")
	Load(Param("msgs"), s2Msgs)
	MOVQ(frame.Offset(any5BlockOff), a2BlockOff)
	LEAQ(frame, yStatePtr)
	absorbAny4(Mem{Base: yStatePtr})
	absorbScalar(a, short5Scalar+scalar.FrameA)
	MOVQ(s2Words, frame.Offset(any5Last))

	mergedPermute5(st, k, frame.Offset(short5RC), frame.Offset(short5RCPtr), "rounds")

	Comment("The digests of the states whose last block this was.")
	MOVQ(frame.Offset(any5Last), s2Words)
	TESTQ(s2Words, s2Words)
	JZ(LabelRef("next"))
	Load(Param("out"), s2Out)
	storeFinished4(st)
	BTQ(U8(4), s2Words)
	JCC(LabelRef("next"))
	storeScalarDigest(a)

	Label("next")
	MOVQ(frame.Offset(any5BlockOff), a2BlockOff)
	ADDQ(U32(rate), a2BlockOff)
	MOVQ(a2BlockOff, frame.Offset(any5BlockOff))
	CMPQ(a2BlockOff, frame.Offset(any5End))
	JB(LabelRef("block"))

	VZEROUPPER()
	RET()
}

// absorbScalar XORs block a2BlockOff/136 of message 4 of s2Msgs into the
// scalar state at a, aOff bytes from where yStatePtr points, padded where
// it is the message's last, and sets bit 4 of s2Words if it is.
func absorbScalar(a Mem, aOff int) {
	Comment("Message 4's block into the scalar state.")
	any2Block(4)
	CMPQ(s2Len, U32(rate))
	JGE(LabelRef("full4"))
	TESTQ(s2Len, s2Len)
	JGE(LabelRef("last4"))
	JMP(LabelRef("lane4done")) // the message ended before this block

	lane, mask, words := Y0, Y9, Y8
	Label("full4")
	for c := 0; c < 4; c++ {
		VMOVDQU(Mem{Base: s2Ptr, Disp: 32 * c}, lane)
		VPXOR(a.Offset(32*c), lane, lane)
		VMOVDQU(lane, a.Offset(32*c))
	}
	MOVQ(Mem{Base: s2Ptr, Disp: 8 * 16}, s2Tail)
	XORQ(s2Tail, scalar.Lane(a, 16))
	JMP(LabelRef("lane4done"))

	Label("last4")
	BTSQ(U8(4), s2Words)
	MOVQ(s2Len, s2Tail)
	SHRQ(U8(3), s2Tail)
	broadcastCount(s2Tail, words)
	for c := 0; c < 4; c++ {
		maskedQuads(c, words, mask, lane)
		VPXOR(a.Offset(32*c), lane, lane)
		VMOVDQU(lane, a.Offset(32*c))
	}
	lastTail(4, 3) // lanes 8 bytes apart in the scalar state
	XORQ(s2Tail, Mem{Base: yStatePtr, Index: a2LaneOff, Scale: 1, Disp: aOff})
	MOVQ(U64(0x80<<56), s2Tail)
	XORQ(s2Tail, scalar.Lane(a, 16))
	Label("lane4done")
}

package main

// # The 4-way AVX2 kernel for messages of any length
//
// sumAny4AVX2 is sumAny8AVX512 (any512.go) for four messages with AVX2
// only: it loads block k of each message as sumShort4AVX2 (short2.go) loads
// a one-block message, from byte 136*k on, and XORs it into the four
// states, which stay lane-major in the frame as the rounds of
// absorbBatch4AVX2 want them.
//
//   - Whole quadwords: VPMASKMOVQ under a mask made from the quadwords
//     left in the message from the block's start (at most the block's
//     sixteen in the masked columns), none for a message that ended, so
//     no byte past a message is read.
//   - Lane 16 of a full block is one scalar load; the last block of a
//     message gets its len%8 bytes with the first padding byte (0x01) as
//     sumShort4AVX2 does, and 0x80 at byte 135 of its state.
//   - After the rounds, each state whose last block it was gives its
//     digest; the others wait for their next block.
//
// It needs AVX2 and nothing else.

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Scalar registers of sumAny4AVX2 besides those of sumShort4AVX2.
var (
	a2BlockOff = R9  // 136 * the blocks done
	a2LaneOff  = RAX // the offset of the lane a message's tail goes into; yScratch in the rounds
)

// The frame of sumAny4AVX2: the states, the buffer of the rounds' odd
// passes, then the end of the last block and the mask of the states
// finishing at this block.
const (
	any2EndOffset  = 2 * ymmStateSize
	any2LastOffset = any2EndOffset + 8
	any2FrameBytes = any2LastOffset + 8
)

// any2Block sets s2Ptr to the start of block a2BlockOff of message j and
// s2Len to the message's bytes from there, negative for a message that
// ended before it; where no byte is left s2Ptr stays at the message's
// start (a masked load that reads nothing still takes a page walk where
// memory is not mapped).
func any2Block(j int) {
	loadMessage(j)
	LEAQ(Mem{Base: s2Ptr, Index: a2BlockOff, Scale: 1}, s2Part)
	SUBQ(a2BlockOff, s2Len)
	CMOVQGT(s2Part, s2Ptr)
}

func sumAny4AVX2() {
	TEXT("sumAny4AVX2", 0, "func(out *[4]*[32]byte, msgs *[4][]byte, nblocks int)")
	Doc("sumAny4AVX2 hashes four messages of at most nblocks blocks each.")
	frame := AllocLocal(any2FrameBytes)
	Load(Param("out"), s2Out)
	Load(Param("msgs"), s2Msgs)
	Load(Param("nblocks"), a2BlockOff)
	IMUL3Q(U32(rate), a2BlockOff, a2BlockOff)
	LEAQ(frame, yStatePtr)
	st := Mem{Base: yStatePtr}
	spare := st.Offset(ymmStateSize)
	MOVQ(a2BlockOff, st.Offset(any2EndOffset))
	XORL(a2BlockOff.As32(), a2BlockOff.As32())

	Comment("The states start at zero.")
	VPXOR(Y0, Y0, Y0)
	for i := 0; i < 25; i++ {
		VMOVDQU(Y0, st.Offset(ymmLaneBytes*i))
	}

	Label("block")
	absorbAny4(st)
	MOVQ(s2Words, st.Offset(any2LastOffset))

	ymmPermuteFromMemory(st, spare)

	Comment("The digests of the states whose last block this was.")
	MOVQ(st.Offset(any2LastOffset), s2Words)
	TESTQ(s2Words, s2Words)
	JZ(LabelRef("next"))
	storeFinished4(st)

	Label("next")
	ADDQ(U32(rate), a2BlockOff)
	CMPQ(a2BlockOff, st.Offset(any2EndOffset))
	JB(LabelRef("block"))

	VZEROUPPER()
	RET()
}

// absorbAny4 XORs block a2BlockOff/136 of messages 0..3 of s2Msgs into the
// four states at st (which must be yStatePtr), padded where it is a
// message's last, and leaves in s2Words the bits of the messages whose
// last block it is.
func absorbAny4(st Mem) {
	rows := []VecPhysical{Y0, Y1, Y2, Y3}
	tmp := []VecPhysical{Y4, Y5, Y6, Y7}
	for c := 0; c < 4; c++ {
		Commentf("Whole quadwords %d..%d of each message's block: lanes %d..%d.", 4*c, 4*c+3, 4*c, 4*c+3)
		loadQuadColumn(c, rows, tmp, any2Block)
		for k, lane := range rows {
			VPXOR(st.Offset(ymmLaneBytes*(4*c+k)), lane, lane)
			VMOVDQU(lane, st.Offset(ymmLaneBytes*(4*c+k)))
		}
	}

	Comment("Lane 16 of a full block; a last block's tail, its padding, and which messages end here.")
	XORL(s2Words.As32(), s2Words.As32()) // the finishing states' bits, until the frame takes them
	for j := 0; j < 4; j++ {
		full, last, next := fmt.Sprintf("full%d", j), fmt.Sprintf("last%d", j), fmt.Sprintf("lane%ddone", j)
		any2Block(j)
		CMPQ(s2Len, U32(rate))
		JGE(LabelRef(full))
		TESTQ(s2Len, s2Len)
		JGE(LabelRef(last))
		JMP(LabelRef(next)) // the message ended before this block

		Label(full)
		MOVQ(Mem{Base: s2Ptr, Disp: 8 * 16}, s2Tail)
		XORQ(s2Tail, st.Offset(ymmLaneBytes*16+8*j))
		JMP(LabelRef(next))

		Label(last)
		BTSQ(U8(j), s2Words)
		lastTail(j, 5) // lanes 32 bytes apart in the states
		XORQ(s2Tail, Mem{Base: yStatePtr, Index: a2LaneOff, Scale: 1, Disp: 8 * j})
		MOVQ(U64(0x80<<56), s2Tail)
		XORQ(s2Tail, st.Offset(ymmLaneBytes*16+8*j))
		Label(next)
	}
}

// lastTail sets s2Tail to the last len%8 bytes of message j's last block
// (s2Ptr and s2Len as any2Block leaves them) followed by the first padding
// byte (0x01), and a2LaneOff to the index of the lane they go into shifted
// left by laneShift: the lane's offset in the states.
func lastTail(j, laneShift int) {
	MOVQ(s2Len, s2Tail)
	SHRQ(U8(3), s2Tail)
	LEAQ(Mem{Base: s2Ptr, Index: s2Tail, Scale: 8}, s2Ptr)
	SHLQ(U8(laneShift), s2Tail)
	MOVQ(s2Tail, a2LaneOff)
	XORL(s2Tail.As32(), s2Tail.As32())
	XORL(s2Shift.As32(), s2Shift.As32())
	for _, n := range []int{4, 2, 1} {
		tailPart(n, fmt.Sprintf("any%dtail%d", j, n))
	}
	MOVL(U32(1), s2Part.As32())
	SHLQ(CL, s2Part)
	ORQ(s2Part, s2Tail)
}

// storeFinished4 writes lanes 0..3 of each of the four states at st whose
// bit is set in s2Words through its digest pointer in s2Out.
func storeFinished4(st Mem) {
	for j, digest := range digestRows4(st) {
		skip := fmt.Sprintf("digest%dskipped", j)
		BTQ(U8(j), s2Words)
		JCC(LabelRef(skip))
		MOVQ(Mem{Base: s2Out, Disp: 8 * j}, s2Ptr)
		VMOVDQU(digest, Mem{Base: s2Ptr})
		Label(skip)
	}
}

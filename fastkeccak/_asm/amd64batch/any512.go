package main

// # The 8-way AVX-512 kernel for messages of any length
//
// sumAny8AVX512 hashes eight messages of up to nblocks blocks each, of
// lengths that may differ, in one call: the trie nodes a level of a trie
// hashes together (branches of three or four blocks beside extensions and
// small branches of one) without the Go driver of absorbBatch8AVX512 in
// between, which pads each message's last block into a buffer, clears and
// reloads states, and picks the digests out of the lane-major state after
// each call.
//
//   - Block k of every message is loaded as sumShort8AVX512 loads a
//     message (see short512.go), from byte 136*k on and with the masks
//     made from the bytes left from there, clamped to 0..136: a full block
//     loads all 136 bytes, the last block loads what is left and gets the
//     padding byte after it, and a message already finished loads nothing,
//     so no byte past any message is read. The 0x80 of the padding goes,
//     under a mask, only into the states whose last block this is.
//   - The state waits in the frame between blocks: the rows are transposed
//     in all 32 registers, then the waiting state is XORed in from memory.
//   - After each permutation the states whose last block it was store
//     their digests (storeDigests under the same mask); the states of
//     finished messages go on permuting, unread.
//
// Like sumShort8AVX512 it needs AVX512F, AVX512BW and BMI2.

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Scalar registers of sumAny8AVX512 besides those of sumShort8AVX512.
var (
	aBlockOff = RCX // 136 * the blocks done
	aLast     = R8  // the states whose last block this is; zRCPtr in the permutation
)

// The frame of sumAny8AVX512: the waiting state, lane-major as in
// absorbBatch8AVX512, then the end of the last block and the mask of the
// states finishing at this block.
const (
	anyStateBytes = 25 * zmmLaneBytes
	anyEndOffset  = anyStateBytes
	anyLastOffset = anyStateBytes + 8
	anyFrameBytes = anyStateBytes + 16
)

// blockSource is the source (see loadRows) of block aBlockOff of each
// message: sPtr its start, sLen the message's bytes from there, clamped to
// 0..136 (BZHI reads only the low byte of its index, so rowMasks needs
// lengths under 255).
func blockSource(j int) {
	loadMessage512(j)
	blockStart()
}

// blockStart moves sPtr and sLen, a message's start and length, to block
// aBlockOff: sLen the bytes left from there, clamped to 0..136, and sPtr
// the block's start, or the message's own where no byte is left (a block
// of padding alone, or a message that ended before). The masks then load
// nothing, but a masked load that points past the memory a program has
// mapped still takes the page walk, and the microcode assist, of the fault
// it suppresses. (The rows of a last block past its bytes point past the
// message too, as in the one-block kernels: within the block, so a page
// at most.)
func blockStart() {
	LEAQ(Mem{Base: sPtr, Index: aBlockOff, Scale: 1}, sLoad)
	SUBQ(aBlockOff, sLen)
	CMOVQGT(sLoad, sPtr)
	clampBlockBytes()
}

// clampBlockBytes clamps sLen, the bytes of a message left from a block's
// start, to 0..136.
func clampBlockBytes() {
	CMOVQLT(sZero, sLen) // the flags of the comparison of sLen with zero
	MOVL(U32(rate), sIndex.As32())
	CMPQ(sLen, sIndex)
	CMOVQGT(sIndex, sLen)
}

func sumAny8AVX512() {
	TEXT("sumAny8AVX512", 0, "func(out *[8]*[32]byte, msgs *[8][]byte, nblocks int)")
	Doc("sumAny8AVX512 hashes eight messages of at most nblocks blocks each.")
	frame := AllocLocal(anyFrameBytes)
	Load(Param("out"), sOut)
	Load(Param("msgs"), sMsgs)
	Load(Param("nblocks"), aBlockOff)
	IMUL3Q(U32(rate), aBlockOff, aBlockOff)
	MOVQ(aBlockOff, frame.Offset(anyEndOffset))
	MOVQ(I32(-1), sOnes)
	XORL(sZero.As32(), sZero.As32())
	XORL(aBlockOff.As32(), aBlockOff.As32())

	Comment("The states start at zero.")
	VPXORQ(Z0, Z0, Z0)
	for i := 0; i < 25; i++ {
		VMOVDQU64(Z0, frame.Offset(zmmLaneBytes*i))
	}

	Label("block")
	pad := loadLanes0To15(blockSource)

	Comment("Bytes 128..135: lane 16; and which messages end in this block.")
	lane16 := zmm[16]
	VPXORQ(lane16, lane16, lane16)
	VPBROADCASTB(zScratch.As32(), pad) // zScratch still holds 1
	XORL(aLast.As32(), aLast.As32())
	for j := 0; j < zmmWidth; j++ {
		// The block is message j's last if 0 <= bytes left < 136, before
		// the clamp: a message that ended before has none left either.
		notLast := fmt.Sprintf("message%dgoeson", j)
		loadMessage512(j)
		MOVQ(sLen, sIndex)
		SUBQ(aBlockOff, sIndex)
		CMPQ(sIndex, U32(rate))
		JAE(LabelRef(notLast)) // unsigned: also a message that ended
		BTSQ(U8(j), aLast)
		Label(notLast)
		blockStart()
		loadLane16Element(j, pad, lane16) // at most 136-128 bytes left
	}
	Comment("The last padding byte, 0x80 at byte 135, of the messages that end here.")
	KMOVW(aLast.As32(), K4)
	MOVQ(U64(0x80<<56), sIndex)
	VPBROADCASTQ(sIndex, Z24)
	VPORQ(Z24, lane16, K4, lane16)
	MOVQ(aLast, frame.Offset(anyLastOffset))

	Comment("XOR the waiting states in.")
	for i := 0; i < 25; i++ {
		if i < rateLanes {
			VPXORQ(frame.Offset(zmmLaneBytes*i), zmm[i], zmm[i])
		} else {
			VMOVDQU64(frame.Offset(zmmLaneBytes*i), zmm[i])
		}
	}

	s := newZmmState()
	s.permute()

	Comment("The states wait in the frame; the finished ones give their digests.")
	for i := 0; i < 25; i++ {
		VMOVDQU64(zmm[i], frame.Offset(zmmLaneBytes*i))
	}
	MOVQ(frame.Offset(anyLastOffset), sIndex)
	TESTQ(sIndex, sIndex)
	JZ(LabelRef("next"))
	storeDigests(sIndex)

	Label("next")
	ADDQ(U32(rate), aBlockOff)
	CMPQ(aBlockOff, frame.Offset(anyEndOffset))
	JB(LabelRef("block"))

	VZEROUPPER()
	RET()
}

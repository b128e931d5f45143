package main

// # The 4-way AVX2 kernel for one-block messages
//
// sumShort4AVX2 is sumShort8AVX512 (short512.go) for four messages with
// AVX2 only: it reads each message where it lies, builds the four padded
// states lane-major in its frame, runs the rounds of absorbBatch4AVX2 and
// writes each digest through its own pointer.
//
//   - Loading: the whole quadwords of a message (the first len/8) are read
//     32 bytes at a time with VPMASKMOVQ, whose mask (a compare of the
//     quadword count with the quadwords' indexes) leaves out every
//     quadword at or past the message's last whole one; a masked-out
//     element is never read, so a message at the edge of a page cannot
//     fault. Four messages' rows of one 32-byte column are a 4x4 matrix of
//     lanes, transposed with two unpacks and VPERM2I128 into lanes of the
//     four states and stored. Lanes 16..24 start as 0x80 at byte 135 (the
//     last padding byte) and zero.
//   - The last len%8 bytes are read with one load each of 4, 2 and 1
//     bytes as len's bits say, joined with the first padding byte (0x01)
//     into one quadword, and XORed into the state's lane in memory.
//   - The rounds are absorbBatch4AVX2's, from the frame to a second buffer
//     in the frame and back, after the first round's parities are summed.
//   - Lanes 0..3 of the four states are transposed back the same way, a
//     digest a register, and stored through the digest pointers.
//
// It needs AVX2 and nothing else (shifts by CL, not BMI2's SHLX).

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Scalar registers of sumShort4AVX2, besides yStatePtr (the states, in the
// frame), yRCPtr and yScratch, which the rounds use.
var (
	s2Out   = R10 // out: the four digest pointers
	s2Msgs  = RSI // msgs: the four slice headers
	s2Ptr   = RDX // a message's first byte, then its tail's
	s2Len   = RBX // its length
	s2Words = R11 // its whole quadwords
	s2Tail  = R12 // its tail quadword, padded
	s2Part  = R13 // one load of the tail
	s2Shift = RCX // the tail bits so far: CL shifts
)

// ymmQuadIndex holds 0..15: the index of each quadword of the four 32-byte
// columns of a message, compared with its count of whole quadwords.
var ymmQuadIndex Mem

// ymmLastPad is lane 16 before any message byte: 0x80 at byte 135.
var ymmLastPad Mem

func short2Tables() {
	ymmQuadIndex = GLOBL("shortQuadIndex4", RODATA|NOPTR)
	for i := 0; i < 16; i++ {
		DATA(8*i, U64(uint64(i)))
	}
	ymmLastPad = GLOBL("shortLastPad4", RODATA|NOPTR)
	for j := 0; j < 4; j++ {
		DATA(8*j, U64(0x80<<56))
	}
}

// transpose4x4 turns rows, lane k of state j in rows[j] element k, into
// dst, lane k of state j in dst[k] element j. tmp are four other
// registers; dst may be rows.
func transpose4x4(rows, tmp, dst []VecPhysical) {
	VPUNPCKLQDQ(rows[1], rows[0], tmp[0]) // lanes 0, 2 of states 0, 1
	VPUNPCKHQDQ(rows[1], rows[0], tmp[1]) // lanes 1, 3
	VPUNPCKLQDQ(rows[3], rows[2], tmp[2]) // lanes 0, 2 of states 2, 3
	VPUNPCKHQDQ(rows[3], rows[2], tmp[3])
	VPERM2I128(U8(0x20), tmp[2], tmp[0], dst[0])
	VPERM2I128(U8(0x31), tmp[2], tmp[0], dst[2])
	VPERM2I128(U8(0x20), tmp[3], tmp[1], dst[1])
	VPERM2I128(U8(0x31), tmp[3], tmp[1], dst[3])
}

// loadMessage loads the pointer and length of message j.
func loadMessage(j int) {
	MOVQ(Mem{Base: s2Msgs, Disp: sliceHeaderBytes * j}, s2Ptr)
	MOVQ(Mem{Base: s2Msgs, Disp: sliceHeaderBytes*j + 8}, s2Len)
}

// tailPart ORs into s2Tail the next n bytes at s2Ptr if the length has
// bit n, shifted past the bits so far, and advances.
func tailPart(n int, skip string) {
	TESTQ(U32(n), s2Len)
	JZ(LabelRef(skip))
	switch n {
	case 4:
		MOVL(Mem{Base: s2Ptr}, s2Part.As32())
	case 2:
		MOVWQZX(Mem{Base: s2Ptr}, s2Part)
	case 1:
		MOVBQZX(Mem{Base: s2Ptr}, s2Part)
	}
	SHLQ(CL, s2Part)
	ORQ(s2Part, s2Tail)
	ADDQ(U8(n), s2Ptr)
	ADDL(U8(8*n), s2Shift.As32())
	Label(skip)
}

// loadQuadColumn loads the whole quadwords 4c..4c+3 of the four messages,
// as source (loadMessage, or a block's start and the bytes left from it,
// negative for none) sets s2Ptr and s2Len, into rows: lane 4c+k of state j
// in rows[k] element j. VPMASKMOVQ reads only the quadwords its mask (a
// compare of the quadword count with their indexes) leaves in. tmp and
// Y8, Y9 are overwritten.
func loadQuadColumn(c int, rows, tmp []VecPhysical, source func(j int)) {
	words, mask := Y8, Y9
	for j, row := range rows {
		source(j)
		SARQ(U8(3), s2Len) // a negative count stays negative: no quadword
		broadcastCount(s2Len, words)
		maskedQuads(c, words, mask, row)
	}
	transpose4x4(rows, tmp, rows)
}

// broadcastCount sets every element of words to count, a message's whole
// quadwords, for maskedQuads.
func broadcastCount(count Register, words VecPhysical) {
	VMOVQ(count, words.AsX())
	VPBROADCASTQ(words.AsX(), words)
}

// maskedQuads loads quadwords 4c..4c+3 at s2Ptr into dst, those at or past
// the count in words (see broadcastCount) left out, unread, and zero; mask
// is overwritten.
func maskedQuads(c int, words, mask, dst VecPhysical) {
	VPCMPGTQ(ymmQuadIndex.Offset(32*c), words, mask)
	VPMASKMOVQ(Mem{Base: s2Ptr, Disp: 32 * c}, mask, dst)
}

// ymmPermuteFromMemory emits the first round's parities of the states in
// st, then the 24 rounds (see ymmPermute), the states ending in st.
func ymmPermuteFromMemory(st, spare Mem) {
	ymmPermute(st, spare, ymmParities(st), "rounds")
}

// ymmParities emits the first round's parities of the four states in st
// into Y0..Y4, and returns those registers.
func ymmParities(st Mem) [5]VecPhysical {
	Comment("The first round's parities.")
	head := [5]VecPhysical{Y0, Y1, Y2, Y3, Y4}
	for x, c := range head {
		VMOVDQU(st.Offset(ymmLaneBytes*x), c)
		for y := 1; y < 5; y++ {
			VPXOR(st.Offset(ymmLaneBytes*(x+5*y)), c, c)
		}
	}
	return head
}

func sumShort4AVX2() {
	TEXT("sumShort4AVX2", 0, "func(out *[4]*[32]byte, msgs *[4][]byte)")
	Doc("sumShort4AVX2 hashes four messages of at most 135 bytes.")
	frame := AllocLocal(2 * ymmStateSize)
	Load(Param("out"), s2Out)
	Load(Param("msgs"), s2Msgs)
	LEAQ(frame, yStatePtr)
	st := Mem{Base: yStatePtr}
	spare := st.Offset(ymmStateSize)

	loadShort4(st)
	ymmPermuteFromMemory(st, spare)
	storeDigests4(st)
	VZEROUPPER()
	RET()
}

// loadShort4 sets the four states at st (which must be yStatePtr) to
// messages 0..3 of s2Msgs, each padded into one block.
func loadShort4(st Mem) {
	rows := []VecPhysical{Y0, Y1, Y2, Y3}
	tmp := []VecPhysical{Y4, Y5, Y6, Y7}
	for c := 0; c < 4; c++ {
		Commentf("Whole quadwords %d..%d of each message: lanes %d..%d.", 4*c, 4*c+3, 4*c, 4*c+3)
		loadQuadColumn(c, rows, tmp, loadMessage)
		for k, lane := range rows {
			VMOVDQU(lane, st.Offset(ymmLaneBytes*(4*c+k)))
		}
	}
	Comment("Lane 16: the last padding byte; lanes 17..24: zero.")
	VMOVDQU(ymmLastPad, Y0)
	VMOVDQU(Y0, st.Offset(ymmLaneBytes*16))
	VPXOR(Y0, Y0, Y0)
	for i := 17; i < 25; i++ {
		VMOVDQU(Y0, st.Offset(ymmLaneBytes*i))
	}

	Comment("Each message's last len%8 bytes and the first padding byte, into lane len/8.")
	for j := 0; j < 4; j++ {
		loadMessage(j)
		tailQuadword(j)
		SHLQ(U8(5), s2Words) // the lane's offset in the states
		XORQ(s2Tail, Mem{Base: yStatePtr, Index: s2Words, Scale: 1, Disp: 8 * j})
	}
}

// tailQuadword sets s2Words to the whole quadwords of message j, whose
// pointer and length loadMessage left in s2Ptr and s2Len, and s2Tail to
// its last len%8 bytes followed by the first padding byte (0x01).
func tailQuadword(j int) {
	MOVQ(s2Len, s2Words)
	SHRQ(U8(3), s2Words)
	LEAQ(Mem{Base: s2Ptr, Index: s2Words, Scale: 8}, s2Ptr)
	XORL(s2Tail.As32(), s2Tail.As32())
	XORL(s2Shift.As32(), s2Shift.As32())
	for _, n := range []int{4, 2, 1} {
		tailPart(n, "tail"+string(rune('a'+j))+string(rune('0'+n)))
	}
	MOVL(U32(1), s2Part.As32())
	SHLQ(CL, s2Part)
	ORQ(s2Part, s2Tail)
}

// digestRows4 loads lanes 0..3 of the four states at st and transposes
// them, a digest a register, into the registers it returns (Y0..Y3; Y4..Y7
// are overwritten).
func digestRows4(st Mem) []VecPhysical {
	rows := []VecPhysical{Y0, Y1, Y2, Y3}
	tmp := []VecPhysical{Y4, Y5, Y6, Y7}
	for k, lane := range rows {
		VMOVDQU(st.Offset(ymmLaneBytes*k), lane)
	}
	transpose4x4(rows, tmp, rows)
	return rows
}

// storeDigests4 writes lanes 0..3 of the four states at st through the
// digest pointers of s2Out.
func storeDigests4(st Mem) {
	Comment("The digests: lanes 0..3 of each state, through the pointers.")
	rows := digestRows4(st)
	for j, digest := range rows {
		MOVQ(Mem{Base: s2Out, Disp: 8 * j}, s2Ptr)
		VMOVDQU(digest, Mem{Base: s2Ptr})
	}
}

package main

// # The 8-way AVX-512 kernel for one-block messages
//
// sumShort8AVX512 hashes eight messages of at most 135 bytes, one
// permutation each, reading them where they lie and writing the digests
// where the caller wants them: the work that the Go driver of
// absorbBatch8AVX512 does around the kernel (copying each message into a
// pad buffer, clearing the rest, padding, then picking the digest out of
// the lane-major state) is done here in registers.
//
//   - Loading: each message is read as three rows, bytes 0..63, 64..127
//     and 128..135, with byte-masked loads (VMOVDQU8, zeroing), the mask
//     covering only the message's bytes: a masked-out byte is never read,
//     so a message that ends at the edge of a page cannot fault. The masks
//     come from the length with BZHI. The first padding byte (0x01 at the
//     message's end) is put in with a merge-masked move of a register of
//     0x01 bytes; the last (0x80 at byte 135) is ORed into lane 16 of all
//     eight states at once.
//   - Transposing: the rows of bytes 0..63 of the eight messages are an
//     8x8 matrix of lanes, one message a row; three stages of shuffles
//     (VPUNPCKLQDQ/VPUNPCKHQDQ, then VSHUFI64X2 twice) make it one lane of
//     all eight states a register, the layout of the permutation. The same
//     for bytes 64..127; the eight lanes 16 are merged in with
//     VPBROADCASTQ under a one-bit mask each. Lanes 17..24 start at zero.
//   - Permuting: the rounds of absorbBatch8AVX512, with the state in
//     Z0..Z24.
//   - Storing: lanes 0..3 of the eight states are transposed back (two
//     unpacks and a VPERMT2Q per pair of states) and each digest is stored
//     through its own pointer.
//
// It needs AVX512F, AVX512BW (the byte masks) and BMI2 (BZHI).

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Scalar registers of sumShort8AVX512, besides zRCPtr and zScratch, which
// the permutation uses.
var (
	sOut    = RDI // out: the eight digest pointers
	sMsgs   = RSI // msgs: the eight slice headers
	sPtr    = RDX // a message's first byte
	sLen    = RBX // its length
	sOnes   = R10 // all ones, BZHI's source
	sZero   = R11 // zero, for the clamps
	sIndex  = R12 // a BZHI index
	sLoad   = R13 // a load mask
	sPadded = R9  // a load mask one byte longer, then the padding byte's mask
)

// sliceHeaderBytes is the size of a []byte header: pointer, length,
// capacity.
const sliceHeaderBytes = 24

// shortDigestIndex is the table of VPERMT2Q indexes that put lanes 0..3 of
// two states side by side (see storeDigests).
var shortDigestIndex Mem

func short512Tables() {
	shortDigestIndex = GLOBL("shortDigestIndex", RODATA|NOPTR)
	for i, v := range []uint64{0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15} {
		DATA(8*i, U64(v))
	}
}

// rowMasks sets K1 to the load mask and K2 to the padding byte's mask of
// the row of a message of sLen bytes that starts at byte offset: the
// bytes offset.. of the message, and the byte at its end if that falls in
// the row. Indexes are clamped at zero; BZHI leaves all 64 bits for an
// index of 64 to 255 (it reads only the index's low byte).
func rowMasks(offset int) {
	if offset == 0 {
		BZHIQ(sLen, sOnes, sLoad)
	} else {
		MOVQ(sLen, sIndex)
		SUBQ(U32(offset), sIndex)
		CMOVQLT(sZero, sIndex)
		BZHIQ(sIndex, sOnes, sLoad)
	}
	LEAQ(Mem{Base: sLen, Disp: 1 - offset}, sIndex)
	if offset > 0 {
		// LEAQ sets no flags: compare the index with zero.
		TESTQ(sIndex, sIndex)
		CMOVQLT(sZero, sIndex)
	}
	BZHIQ(sIndex, sOnes, sPadded)
	XORQ(sLoad, sPadded)
	KMOVQ(sLoad, K1)
	KMOVQ(sPadded, K2)
}

// loadMessage512 sets sPtr and sLen to the first byte and the length of
// message j.
func loadMessage512(j int) {
	MOVQ(Mem{Base: sMsgs, Disp: sliceHeaderBytes * j}, sPtr)
	MOVQ(Mem{Base: sMsgs, Disp: sliceHeaderBytes*j + 8}, sLen)
}

// loadRows loads row offset (0 or 64) of message j into rows[j], with its
// padding byte; pad is the register of 0x01 bytes. source(j) sets sPtr and
// sLen to where message j's block starts and how many of its bytes are
// left from there (loadMessage512 for a message's only block).
func loadRows(offset int, rows []VecPhysical, pad VecPhysical, source func(j int)) {
	for j, row := range rows {
		source(j)
		rowMasks(offset)
		VMOVDQU8_Z(Mem{Base: sPtr, Disp: offset}, K1, row)
		VMOVDQU8(pad, K2, row)
	}
}

// transpose8x8 turns rows, lane k of state j in rows[j] element k, into
// dst, lane k of state j in dst[k] element j. tmp are eight other
// registers; rows and tmp are overwritten.
func transpose8x8(rows, tmp, dst []VecPhysical) {
	// tmp[2p] holds the even lanes of states 2p and 2p+1, interleaved;
	// tmp[2p+1] the odd lanes.
	for p := 0; p < 4; p++ {
		VPUNPCKLQDQ(rows[2*p+1], rows[2*p], tmp[2*p])
		VPUNPCKHQDQ(rows[2*p+1], rows[2*p], tmp[2*p+1])
	}
	// 128-bit blocks: u[4h+2m+e] holds, for states 4h..4h+3, lanes
	// 2m+e and 2m+e+4 (e = 0 for the even lanes of tmp, 1 for the odd).
	u := rows
	for h := 0; h < 2; h++ {
		for e := 0; e < 2; e++ {
			a, b := tmp[4*h+e], tmp[4*h+e+2]
			VSHUFI64X2(U8(0x88), b, a, u[4*h+2*e])
			VSHUFI64X2(U8(0xDD), b, a, u[4*h+2*e+1])
		}
	}
	// u[2e+m] and u[4+2e+m] together hold lanes l = 2m+e and l+4 of all
	// eight states.
	for e := 0; e < 2; e++ {
		for m := 0; m < 2; m++ {
			lo, hi := u[2*e+m], u[4+2*e+m]
			l := 2*m + e
			VSHUFI64X2(U8(0x88), hi, lo, dst[l])
			VSHUFI64X2(U8(0xDD), hi, lo, dst[l+4])
		}
	}
}

// storeDigests writes lanes 0..3 of the eight states (Z0..Z3) through the
// eight pointers at sOut; with a mask register, only the digests of the
// states whose bit is set in it. It overwrites Z4..Z11, Z20 and Z21.
func storeDigests(mask Register) {
	// Z4 = lanes 0, 1 of the even states, Z5 of the odd ones, pair by pair;
	// Z6, Z7 the same for lanes 2, 3.
	VPUNPCKLQDQ(Z1, Z0, Z4)
	VPUNPCKHQDQ(Z1, Z0, Z5)
	VPUNPCKLQDQ(Z3, Z2, Z6)
	VPUNPCKHQDQ(Z3, Z2, Z7)
	VMOVDQU64(shortDigestIndex, Z20)
	VMOVDQU64(shortDigestIndex.Offset(64), Z21)
	// Each result holds two digests: states s and s+2.
	for i, idx := range []VecPhysical{Z20, Z20, Z21, Z21} {
		lo, hi := Z4, Z6 // even states
		if i%2 == 1 {
			lo, hi = Z5, Z7
		}
		res := zmm[8+i]
		VMOVDQA64(lo, res)
		VPERMT2Q(hi, idx, res)
		s := 4*(i/2) + i%2                                                   // the first state of the pair
		storeDigest(mask, s, func() { VMOVDQU(res.AsY(), Mem{Base: sPtr}) }) // VEX: Z8..Z11 need no AVX512VL
		storeDigest(mask, s+2, func() { VEXTRACTI64X4(U8(1), res, Mem{Base: sPtr}) })
	}
}

// storeDigest emits store, which writes state s's digest through sPtr,
// after loading sPtr from out; with a mask register, only if bit s is set
// in it.
func storeDigest(mask Register, s int, store func()) {
	skip := fmt.Sprintf("digest%dskipped", s)
	if mask != nil {
		BTQ(U8(s), mask)
		JCC(LabelRef(skip))
	}
	MOVQ(Mem{Base: sOut, Disp: 8 * s}, sPtr)
	store()
	if mask != nil {
		Label(skip)
	}
}

// loadLanes0To15 loads bytes 0..127 of each of the eight messages, as
// source (see loadRows) finds them, into lanes 0..15 of the eight states
// (Z0..Z15), with the first padding byte where a message ends among them.
// It returns the register it broadcast the padding byte to, and leaves 1 in
// zScratch.
func loadLanes0To15(source func(j int)) (pad VecPhysical) {
	rows := zmm[16:24]
	tmp := zmm[24:32]
	pad = zmm[31]
	for half := 0; half < 2; half++ {
		Commentf("Bytes %d..%d of each message: lanes %d..%d.", 64*half, 64*half+63, 8*half, 8*half+7)
		MOVL(U32(1), zScratch.As32())
		VPBROADCASTB(zScratch.As32(), pad)
		loadRows(64*half, rows, pad, source)
		transpose8x8(rows, tmp, zmm[8*half:8*half+8])
	}
	return pad
}

// loadLane16Element loads bytes 128..135 of message j, as sPtr and sLen
// give it (at most eight bytes: zmm moves, without AVX512VL), with its
// padding byte, into element j of lane16; Z24 is overwritten.
func loadLane16Element(j int, pad, lane16 VecPhysical) {
	rowMasks(128)
	VMOVDQU8_Z(Mem{Base: sPtr, Disp: 128}, K1, Z24)
	VMOVDQU8(pad, K2, Z24)
	MOVL(U32(1<<j), sIndex.As32())
	KMOVW(sIndex.As32(), K3)
	VPBROADCASTQ(X24, K3, lane16)
}

func sumShort8AVX512() {
	TEXT("sumShort8AVX512", 0, "func(out *[8]*[32]byte, msgs *[8][]byte)")
	Doc("sumShort8AVX512 hashes eight messages of at most 135 bytes.")
	AllocLocal(zmmFrameBytes) // unused; keeps the stack check
	Load(Param("out"), sOut)
	Load(Param("msgs"), sMsgs)
	MOVQ(I32(-1), sOnes)
	XORL(sZero.As32(), sZero.As32())

	pad := loadLanes0To15(loadMessage512)

	Comment("Bytes 128..135: lane 16, each message's in its element.")
	lane16 := zmm[16]
	VPXORQ(lane16, lane16, lane16)
	VPBROADCASTB(zScratch.As32(), pad) // zScratch still holds 1
	for j := 0; j < zmmWidth; j++ {
		loadMessage512(j)
		loadLane16Element(j, pad, lane16)
	}
	Comment("The last padding byte, 0x80 at byte 135 of every message.")
	MOVQ(U64(0x80<<56), sIndex)
	VPBROADCASTQ(sIndex, Z24)
	VPORQ(Z24, lane16, lane16)
	for i := 17; i < 25; i++ {
		VPXORQ(zmm[i], zmm[i], zmm[i])
	}

	s := newZmmState()
	s.permute()

	Comment("The digests: lanes 0..3 of each state.")
	storeDigests(nil)
	VZEROUPPER()
	RET()
}

// Command amd64 generates fastkeccak/keccakf_amd64.s, the amd64 assembly
// kernels of the Keccak-f[1600] permutation:
//
//	keccakF1600BMI2, absorbBlocksBMI2          (bmi2.go)
//	keccakF1600AVX512VL, absorbBlocksAVX512VL  (avx512.go)
//
// Run it from the fastkeccak/_asm folder:
//
//	go run ./amd64 -out ../keccakf_amd64.s
//
// (the go:generate line in fastkeccak/keccakf_amd64_decl.go does exactly
// that). The output depends only on this program, so running it twice
// gives the same file.
//
// Every function has a frame of at least 128 bytes and no NOSPLIT, so the
// assembler keeps the stack-bound check in its prologue (the point where
// the scheduler can preempt a goroutine between two calls). The absorb
// functions loop over the blocks themselves.
//
// The only global symbol is the static table of round constants, which is
// file-local (<>), so -dynlink builds do not reach it through the GOT and
// do not clobber R15.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

const (
	rate       = 136      // Keccak-256 block size in bytes (1088 bits)
	rateLanes  = rate / 8 // 17
	roundCount = 24
)

// roundConstants are the ι constants of Keccak-f[1600] (FIPS 202, 3.2.5),
// computed by the LFSR rc(t) of FIPS 202 algorithm 5.
var roundConstants = func() [roundCount]uint64 {
	var rcs [roundCount]uint64
	lfsr := uint8(1) // x^8 + x^6 + x^5 + x^4 + 1, one step per output bit
	bit := func() uint64 {
		out := uint64(lfsr & 1)
		if lfsr&0x80 != 0 {
			lfsr = lfsr<<1 ^ 0x71
		} else {
			lfsr <<= 1
		}
		return out
	}
	for round := range rcs {
		for j := 0; j <= 6; j++ {
			rcs[round] |= bit() << (1<<j - 1)
		}
	}
	return rcs
}()

// rho[x+5*y] is the ρ rotation (to the left) of lane (x, y), from the walk
// of FIPS 202 algorithm 2.
var rho = func() [25]int {
	var r [25]int
	x, y := 1, 0
	for t := 0; t < 24; t++ {
		r[x+5*y] = (t + 1) * (t + 2) / 2 % 64
		x, y = y, (2*x+3*y)%5
	}
	return r
}()

// piSource[x+5*y] is the lane of A that π (after ρ) moves to lane (x, y)
// of B: B[x, y] = ρ(A[x+3y, x]).
var piSource = func() [25]int {
	var s [25]int
	for y := 0; y < 5; y++ {
		for x := 0; x < 5; x++ {
			s[x+5*y] = (x+3*y)%5 + 5*x
		}
	}
	return s
}()

// roundConstantTable is the static table of the 24 round constants.
var roundConstantTable Mem

func main() {
	// Spot checks of the derived tables against FIPS 202.
	if roundConstants[1] != 0x8082 || roundConstants[23] != 0x8000000080008008 ||
		rho[1] != 1 || rho[24] != 14 || piSource[1] != 6 {
		panic(fmt.Sprintf("bad tables: %#x %#x %d %d %d",
			roundConstants[1], roundConstants[23], rho[1], rho[24], piSource[1]))
	}

	ConstraintExpr("amd64,!purego")
	roundConstantTable = GLOBL("keccakRoundConstants", RODATA|NOPTR)
	for i, rc := range roundConstants {
		DATA(8*i, U64(rc))
	}

	keccakF1600BMI2()
	absorbBlocksBMI2()
	keccakF1600AVX512VL()
	absorbBlocksAVX512VL()
	Generate()
}

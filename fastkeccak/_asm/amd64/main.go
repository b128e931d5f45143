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
	"github.com/keccakroot/keccakroot/fastkeccak/_asm/internal/fips202"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

const (
	rate       = 136      // Keccak-256 block size in bytes (1088 bits)
	rateLanes  = rate / 8 // 17
	roundCount = 24
)

// The Keccak geometry, derived from FIPS 202: the ι constants, the ρ
// rotations, and piSource[x+5*y], the lane π moves to lane (x, y).
var (
	roundConstants = fips202.RoundConstants
	rho            = fips202.Rho
	piSource       = fips202.PiSource
)

// roundConstantTable is the static table of the 24 round constants.
var roundConstantTable Mem

func main() {

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

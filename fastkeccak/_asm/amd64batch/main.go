// Command amd64batch generates fastkeccak/batch_amd64.s, the multi-state
// ("batch") Keccak-256 absorb kernels for amd64:
//
//	absorbBatch8AVX512  8 states, one zmm register per lane  (avx512.go)
//	absorbBatch4AVX2    4 states, one ymm register per lane  (avx2.go)
//	sumShort8AVX512     8 one-block messages, read in place   (short512.go)
//	sumShort4AVX2       4 one-block messages, read in place   (short2.go)
//	sumShort5AVX2       5 one-block messages, 4 AVX2 + 1 scalar (short5.go)
//	sumAny8AVX512       8 messages of any length, read in place (any512.go)
//	sumAny4AVX2         4 messages of any length, read in place (any2.go)
//	sumAny5AVX2         5 messages of any length, 4 AVX2 + 1 scalar (any5.go)
//
// Run it from the fastkeccak/_asm folder:
//
//	go run ./amd64batch -out ../batch_amd64.s
//
// (fastkeccak/generate.go has the go:generate line). The output depends
// only on this program.
//
// # Layout and calling convention
//
// Both kernels work on W states interleaved lane by lane ("lane-major"):
// lane i of state j is a[W*i+j], so one vector register or one 8W-byte
// slot holds lane i of every state. A call
//
//	absorbBatchW(a *[25*W]uint64, p *[W]*byte, fresh uint64, nblocks int)
//
// first clears every state j whose bit j is set in fresh, then nblocks
// times XORs the next 136-byte block of each state's input into its lanes
// 0..16 and applies Keccak-f[1600] to all W states at once. State j reads
// its blocks from p[j], p[j]+136, ..., so every p[j] must point at nblocks
// readable blocks; a state the caller does not need (an idle lane) may
// share another state's pointer. The block lanes are fetched with
// VPGATHERQQ: the p array is the index vector, and a general-purpose
// register holding 136*k (starting at 0) is the base, so the pointers are
// loaded once per block and never modified.
//
// The one-block kernels have a convention of their own: they take the
// messages' slice headers and a pointer for each digest (see short512.go).
// The any-length kernels take the same and nblocks, at least 1 and at
// least each message's len/136+1 (see any512.go).
//
// Every function has a frame of at least 128 bytes and no NOSPLIT, which
// keeps the stack check in the prologue; the Go caller bounds nblocks so
// that no call runs long without one.
package main

import (
	"github.com/keccakroot/keccakroot/fastkeccak/_asm/internal/fips202"

	. "github.com/mmcloughlin/avo/build"
)

const (
	rate       = 136      // Keccak-256 block size in bytes
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

// Ternary-logic truth tables for VPTERNLOGQ $imm, c, b, a (a is also the
// destination): bit a<<2 | b<<1 | c of the immediate is the result.
const (
	ternXor3 = 0x96 // a ^ b ^ c
	ternChi  = 0xD2 // a ^ (^b & c)
)

func main() {
	ConstraintExpr("amd64,!purego")
	avx512Tables()
	avx2Tables()
	short512Tables()
	short2Tables()
	absorbBatch8AVX512()
	absorbBatch4AVX2()
	sumShort8AVX512()
	sumShort4AVX2()
	sumShort5AVX2()
	sumAny8AVX512()
	sumAny4AVX2()
	sumAny5AVX2()
	Generate()
}

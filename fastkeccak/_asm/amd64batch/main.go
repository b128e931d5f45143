// Command amd64batch generates fastkeccak/batch_amd64.s, the multi-state
// ("batch") Keccak-256 absorb kernels for amd64:
//
//	absorbBatch8AVX512  8 states, one zmm register per lane  (avx512.go)
//	absorbBatch4AVX2    4 states, one ymm register per lane  (avx2.go)
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
// Every function has a frame of at least 128 bytes and no NOSPLIT, which
// keeps the stack check in the prologue; the Go caller bounds nblocks so
// that no call runs long without one.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
)

const (
	rate       = 136      // Keccak-256 block size in bytes
	rateLanes  = rate / 8 // 17
	roundCount = 24
)

// roundConstants are the ι constants of Keccak-f[1600], from the LFSR
// rc(t) of FIPS 202 algorithm 5.
var roundConstants = func() [roundCount]uint64 {
	var rcs [roundCount]uint64
	lfsr := uint8(1)
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

// rho[x+5*y] is the left rotation ρ applies to lane (x, y) (FIPS 202
// algorithm 2).
var rho = func() [25]int {
	var r [25]int
	x, y := 1, 0
	for t := 0; t < 24; t++ {
		r[x+5*y] = (t + 1) * (t + 2) / 2 % 64
		x, y = y, (2*x+3*y)%5
	}
	return r
}()

// piSource[x+5*y] is the lane of the state that π moves to lane (x, y):
// B[x, y] = ρ(A[x+3y, x]).
var piSource = func() [25]int {
	var s [25]int
	for y := 0; y < 5; y++ {
		for x := 0; x < 5; x++ {
			s[x+5*y] = (x+3*y)%5 + 5*x
		}
	}
	return s
}()

// Ternary-logic truth tables for VPTERNLOGQ $imm, c, b, a (a is also the
// destination): bit a<<2 | b<<1 | c of the immediate is the result.
const (
	ternXor3 = 0x96 // a ^ b ^ c
	ternChi  = 0xD2 // a ^ (^b & c)
)

func main() {
	if roundConstants[1] != 0x8082 || roundConstants[23] != 0x8000000080008008 ||
		rho[1] != 1 || rho[24] != 14 || piSource[1] != 6 {
		panic(fmt.Sprintf("bad tables: %#x %#x %d %d %d",
			roundConstants[1], roundConstants[23], rho[1], rho[24], piSource[1]))
	}
	ConstraintExpr("amd64,!purego")
	avx512Tables()
	avx2Tables()
	absorbBatch8AVX512()
	absorbBatch4AVX2()
	Generate()
}

// Command arm64batch generates fastkeccak/batch_arm64.s, the 2-way batch
// Keccak-256 absorb kernel for arm64 CPUs with the ARMv8.2 SHA3 extension.
// avo cannot target arm64, so the assembly is written out as text.
//
// Usage, from fastkeccak/_asm:
//
//	go run ./arm64batch -out ../batch_arm64.s
//
// # Layout
//
// Two states are interleaved lane by lane: lane i of state j is a[2*i+j],
// and the kernel keeps lane i of both states in Vi (state 0 in the low 64
// bits, state 1 in the high 64 bits) for the whole call. EOR3, RAX1, XAR
// and BCAX work on both halves of a register at once, so one round is the
// same 69 instructions as the single-state SHA3 kernel (see _asm/arm64)
// and computes two states; only ι differs, loading its constant into both
// halves (LD1R). V25..V31 are scratch.
//
// The round has no register moves: each row of π and χ writes one pair of
// adjacent B lanes to scratch registers and all others to the register
// they finish in, in an order found by a small search (see schedule).
// Before printing, the generator runs the exact instruction list on an
// interpreter of both halves and checks it against a textbook permutation.
//
// # Calling convention
//
//	absorbBatch2SHA3(a *[50]uint64, p *[2]*byte, fresh uint64, nblocks int)
//
// clears state j when bit j of fresh is set, then nblocks times XORs the
// next 136 bytes from p[j] into lanes 0..16 of state j and permutes both
// states. The pointers are copied into registers and advanced there; p is
// only read. Each block is read with post-incremented loads of 32 bytes
// from each state's input, and ZIP1/ZIP2 pair up the lanes of the two
// states.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/keccakroot/keccakroot/fastkeccak/_asm/internal/armsched"
	"github.com/keccakroot/keccakroot/fastkeccak/_asm/internal/fips202"
	"log"
	"math/bits"
	"os"
	"strings"
)

func main() {
	out := flag.String("out", "", "output file (default standard output)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("arm64batch: ")

	round := armsched.Round()
	if err := selfCheck(round); err != nil {
		log.Fatal(err)
	}
	text := render(round)
	var err error
	if *out == "" {
		_, err = os.Stdout.Write(text)
	} else {
		err = os.WriteFile(*out, text, 0o644)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// ---------------------------------------------------------------------------
// Keccak geometry

// The Keccak geometry: where π moves each lane, the ρ
// rotations and the ι constants, all derived from FIPS 202.
var (
	piDst          = fips202.PiDest
	rho            = fips202.Rho
	roundConstants = fips202.RoundConstants
)

// ---------------------------------------------------------------------------
// Self-check

// run interprets the round 24 times on a register file of two 64-bit
// halves, state j of the pair in half j.
func run(round []armsched.Instr, a *[2][25]uint64) {
	var v [32][2]uint64
	for j := range 2 {
		for i := range 25 {
			v[i][j] = a[j][i]
		}
	}
	rc := 0
	for range 24 {
		for _, in := range round {
			var r [2]uint64
			for j := range 2 {
				s0, s1, s2 := v[in.S[0]][j], v[in.S[1]][j], v[in.S[2]][j]
				switch in.Op {
				case armsched.OpEOR3:
					r[j] = s0 ^ s1 ^ s2
				case armsched.OpRAX1:
					r[j] = s0 ^ bits.RotateLeft64(s1, 1)
				case armsched.OpXAR:
					r[j] = bits.RotateLeft64(s0^s1, in.Rot)
				case armsched.OpBCAX:
					r[j] = s0 ^ (s2 &^ s1)
				case armsched.OpEOR:
					r[j] = s0 ^ s1
				case armsched.OpLDRC:
					r[j] = roundConstants[rc]
				}
			}
			if in.Op == armsched.OpLDRC {
				rc++
			}
			v[in.D] = r
		}
	}
	for j := range 2 {
		for i := range 25 {
			a[j][i] = v[i][j]
		}
	}
}

func selfCheck(round []armsched.Instr) error {
	var z [25]uint64
	fips202.Permute(&z)
	if z[0] != 0xF1258F7940E1DDE7 || z[24] != 0xEAF1FF7B5CECA249 {
		return fmt.Errorf("textbook permutation fails its known answer: %#x %#x", z[0], z[24])
	}
	seed := uint64(0x243F6A8885A308D3)
	for i := range 100 {
		var got [2][25]uint64
		for j := range 2 {
			for k := range got[j] {
				if i > 0 {
					seed ^= seed << 13
					seed ^= seed >> 7
					seed ^= seed << 17
					got[j][k] = seed
				}
			}
		}
		want := got
		run(round, &got)
		fips202.Permute(&want[0])
		fips202.Permute(&want[1])
		if got != want {
			return fmt.Errorf("generated round disagrees with the textbook permutation (pair %d)", i)
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Output

// General-purpose registers; R18 and R26..R30 are reserved on arm64.
const (
	regA      = "R0" // a
	regLoad   = "R1" // a, post-incremented while loading and storing
	regRC     = "R2" // round constant pointer
	regRound  = "R3" // rounds left
	regP0     = "R4" // state 0's next block
	regP1     = "R5" // state 1's next block
	regBlocks = "R6" // blocks left
	regFresh  = "R7" // fresh, then a lane mask
	regMask1  = "R8" // the other lane mask
	regPtrs   = "R9" // p
)

func render(round []armsched.Instr) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

	p("// Code generated by fastkeccak/_asm/arm64batch. DO NOT EDIT.")
	p("")
	p("//go:build !purego")
	p("")
	p(`#include "textflag.h"`)
	p("")
	p("// Two Keccak-f[1600] states at once with the SHA3 extension (FEAT_SHA3):")
	p("// lane i of state 0 in the low 64 bits of Vi, of state 1 in the high 64")
	p("// bits; V25-V31 are scratch. Go operand order: VEOR3 Va, Vm, Vn, Vd is")
	p("// Vd = Vn^Vm^Va; VRAX1 Vm, Vn, Vd is Vd = Vn ^ Vm<<<1; VXAR $i, Vm, Vn, Vd")
	p("// is Vd = (Vn^Vm)>>>i; VBCAX Va, Vm, Vn, Vd is Vd = Vn ^ (Vm &^ Va).")
	p("")
	p("// Round constants of ι, in round order.")
	for i, c := range roundConstants {
		p("DATA ·batchRoundConstantsSHA3<>+0x%02x(SB)/8, $0x%016x", 8*i, c)
	}
	p("GLOBL ·batchRoundConstantsSHA3<>(SB), NOPTR|RODATA, $%d", 8*len(roundConstants))

	p("")
	p("// func absorbBatch2SHA3(a *[50]uint64, p *[2]*byte, fresh uint64, nblocks int)")
	p("// The 128-byte frame is unused; it keeps the function splittable.")
	p("TEXT ·absorbBatch2SHA3(SB), 0, $128-32")
	p("\tMOVD\ta+0(FP), %s", regA)
	p("\tMOVD\tp+8(FP), %s", regPtrs)
	p("\tMOVD\tfresh+16(FP), %s", regFresh)
	p("\tMOVD\tnblocks+24(FP), %s", regBlocks)
	p("\tMOVD\t(%s), %s", regPtrs, regP0)
	p("\tMOVD\t8(%s), %s", regPtrs, regP1)
	p("")
	p("\t// Load both states, lane i of the pair into Vi.")
	p("\tMOVD\t%s, %s", regA, regLoad)
	for i := 0; i < 24; i += 4 {
		p("\tVLD1.P\t64(%s), [V%d.D2, V%d.D2, V%d.D2, V%d.D2]", regLoad, i, i+1, i+2, i+3)
	}
	p("\tVLD1\t(%s), [V24.D2]", regLoad)
	p("")
	p("\t// Clear the states marked fresh: lane mask j is all ones unless bit j")
	p("\t// of fresh is set.")
	p("\tCBZ\t%s, cleared", regFresh)
	p("\tLSR\t$1, %s, %s", regFresh, regMask1)
	p("\tAND\t$1, %s, %s", regFresh, regFresh)
	p("\tAND\t$1, %s, %s", regMask1, regMask1)
	p("\tSUB\t$1, %s, %s", regFresh, regFresh)
	p("\tSUB\t$1, %s, %s", regMask1, regMask1)
	p("\tVMOV\t%s, V31.D[0]", regFresh)
	p("\tVMOV\t%s, V31.D[1]", regMask1)
	for i := range 25 {
		p("\tVAND\tV31.B16, V%d.B16, V%d.B16", i, i)
	}
	p("")
	p("cleared:")
	p("\tCBZ\t%s, store", regBlocks)
	p("")
	p("block:")
	p("\t// XOR the next block of each state into lanes 0..16: four lanes of")
	p("\t// each state at a time, paired up by ZIP1 (low halves) and ZIP2.")
	for i := 0; i < 16; i += 4 {
		p("\tVLD1.P\t32(%s), [V25.D2, V26.D2]", regP0)
		p("\tVLD1.P\t32(%s), [V27.D2, V28.D2]", regP1)
		p("\tVZIP1\tV27.D2, V25.D2, V29.D2")
		p("\tVZIP2\tV27.D2, V25.D2, V30.D2")
		p("\tVEOR\tV29.B16, V%d.B16, V%d.B16", i, i)
		p("\tVEOR\tV30.B16, V%d.B16, V%d.B16", i+1, i+1)
		p("\tVZIP1\tV28.D2, V26.D2, V29.D2")
		p("\tVZIP2\tV28.D2, V26.D2, V30.D2")
		p("\tVEOR\tV29.B16, V%d.B16, V%d.B16", i+2, i+2)
		p("\tVEOR\tV30.B16, V%d.B16, V%d.B16", i+3, i+3)
	}
	p("\tVLD1.P\t8(%s), [V25.D1]", regP0)
	p("\tVLD1.P\t8(%s), [V27.D1]", regP1)
	p("\tVZIP1\tV27.D2, V25.D2, V29.D2")
	p("\tVEOR\tV29.B16, V16.B16, V16.B16")
	p("")
	p("\tMOVD\t$·batchRoundConstantsSHA3<>(SB), %s", regRC)
	p("\tMOVD\t$24, %s", regRound)
	p("")
	p("round:")
	for _, in := range round {
		if in.Comment != "" {
			p("\t// %s", in.Comment)
		}
		p("\t%s", in.Asm(loadRC))
	}
	p("\tSUBS\t$1, %s, %s", regRound, regRound)
	p("\tBNE\tround")
	p("\tSUBS\t$1, %s, %s", regBlocks, regBlocks)
	p("\tBNE\tblock")
	p("")
	p("store:")
	p("\tMOVD\t%s, %s", regA, regLoad)
	for i := 0; i < 24; i += 4 {
		p("\tVST1.P\t[V%d.D2, V%d.D2, V%d.D2, V%d.D2], 64(%s)", i, i+1, i+2, i+3, regLoad)
	}
	p("\tVST1\t[V24.D2], (%s)", regLoad)
	p("\tRET")

	return []byte(strings.ReplaceAll(b.String(), "\t\n", "\n"))
}

// loadRC loads the next round constant into register d, into both lanes.
func loadRC(d int) string {
	return fmt.Sprintf("VLD1R.P\t8(%s), [V%d.D2]", regRC, d)
}

// Command arm64 generates fastkeccak/keccakf_arm64.s, the Keccak-f[1600]
// kernels for arm64 CPUs with the ARMv8.2 SHA3 extension (EOR3, RAX1, XAR,
// BCAX). avo cannot target arm64, so the assembly is written out as text.
//
// Usage, from fastkeccak/_asm:
//
//	go run ./arm64 -out ../keccakf_arm64.s
//
// Layout: the 25 lanes live in the low 64 bits of V0..V24 (lane (x, y) in
// V(x+5y)) for the whole permutation, and V25..V31 are scratch. Every round
// must end with lane i back in Vi, because one round's code is a loop body.
//
// One round is 69 instructions with no register moves:
//
//	θ     10 EOR3 (column parities C) + 5 RAX1 (D[x] = C[x-1] ^ C[x+1]<<<1)
//	ρ π   24 XAR (lane ^ D, rotate) + 1 EOR (lane 0 is not rotated)
//	χ     25 BCAX
//	ι      1 LD1 of the round constant + 1 EOR
//	loop   SUBS + BNE
//
// Avoiding moves takes some care, and the generator finds the order of
// operations itself (see schedule). Before emitting anything it runs the
// exact instruction list it is about to print on an interpreter and checks
// the result against a textbook permutation, so a scheduling mistake stops
// generation instead of producing a wrong kernel.
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
	log.SetPrefix("arm64: ")

	round := buildRound()
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
// Instructions

type opcode int

const (
	opEOR3 opcode = iota // d = s0 ^ s1 ^ s2
	opRAX1               // d = s0 ^ (s1 <<< 1)
	opXAR                // d = (s0 ^ s1) <<< rot
	opBCAX               // d = s0 ^ (s2 &^ s1)   (χ: b ^ (^b1 & b2))
	opEOR                // d = s0 ^ s1
	opLDRC               // d = next round constant (post-increment load)
)

// instr is one vector instruction of the round, on register numbers
// (V0..V31), in the operand order of the Keccak formulas above; render
// turns it into Go's operand order.
type instr struct {
	op      opcode
	d       int
	s       [3]int
	rot     int    // opXAR: left rotation
	comment string // printed before the instruction when not empty
}

func (in instr) String() string {
	v := func(r int) string { return fmt.Sprintf("V%d.B16", r) }
	w := func(r int) string { return fmt.Sprintf("V%d.D2", r) }
	switch in.op {
	case opEOR3:
		return fmt.Sprintf("VEOR3\t%s, %s, %s, %s", v(in.s[2]), v(in.s[1]), v(in.s[0]), v(in.d))
	case opRAX1:
		// Go: VRAX1 Vm, Vn, Vd computes Vd = Vn ^ (Vm <<< 1).
		return fmt.Sprintf("VRAX1\t%s, %s, %s", w(in.s[1]), w(in.s[0]), w(in.d))
	case opXAR:
		// Go: VXAR $imm, Vm, Vn, Vd computes Vd = (Vn ^ Vm) >>> imm.
		return fmt.Sprintf("VXAR\t$%d, %s, %s, %s", (64-in.rot)%64, w(in.s[1]), w(in.s[0]), w(in.d))
	case opBCAX:
		// Go: VBCAX Va, Vm, Vn, Vd computes Vd = Vn ^ (Vm &^ Va).
		return fmt.Sprintf("VBCAX\t%s, %s, %s, %s", v(in.s[1]), v(in.s[2]), v(in.s[0]), v(in.d))
	case opEOR:
		return fmt.Sprintf("VEOR\t%s, %s, %s", v(in.s[1]), v(in.s[0]), v(in.d))
	case opLDRC:
		return fmt.Sprintf("VLD1.P\t8(%s), [V%d.D1]", regRC, in.d)
	}
	panic("unknown opcode")
}

// ---------------------------------------------------------------------------
// Building one round

type regAlloc struct{ busy [32]bool }

func (r *regAlloc) get() int {
	for i := 25; i < 32; i++ {
		if !r.busy[i] {
			r.busy[i] = true
			return i
		}
	}
	log.Fatal("out of scratch registers")
	return 0
}

func (r *regAlloc) put(i int) {
	if i < 25 || !r.busy[i] {
		log.Fatalf("bad free of V%d", i)
	}
	r.busy[i] = false
}

// buildRound returns the instructions of one round. It starts and ends with
// lane i in Vi and V25..V31 free.
func buildRound() []instr {
	var code []instr
	emit := func(in instr) { code = append(code, in) }
	var ra regAlloc

	// θ: C[x] = A[x] ^ A[x+5] ^ A[x+10] ^ A[x+15] ^ A[x+20].
	var c [5]int
	for x := range 5 {
		c[x] = ra.get()
		in := instr{op: opEOR3, d: c[x], s: [3]int{x, x + 5, x + 10}}
		if x == 0 {
			in.comment = "θ: column parities"
		}
		emit(in)
	}
	for x := range 5 {
		emit(instr{op: opEOR3, d: c[x], s: [3]int{c[x], x + 15, x + 20}})
	}
	// D[x] = C[x-1] ^ (C[x+1] <<< 1), in the order x = 0, 2, 4, 1, 3: then
	// C[x-1] is dead once D[x] is computed (its other reader, D[x-2], came
	// earlier), except for x = 0, which takes a new register. C[4] dies
	// with D[3].
	var d [5]int
	for i, x := range []int{0, 2, 4, 1, 3} {
		in := instr{op: opRAX1, s: [3]int{c[(x+4)%5], c[(x+1)%5]}}
		if x == 0 {
			in.d = ra.get()
			in.comment = "θ: D[x] = C[x-1] ^ C[x+1]<<<1"
		} else {
			in.d = c[(x+4)%5]
		}
		d[x] = in.d
		emit(in)
		if i == 4 {
			ra.put(c[4])
		}
	}

	sch := armsched.Find()
	var where [25]int // register of B[q] while it is in scratch
	var colLeft [5]int
	for x := range colLeft {
		colLeft[x] = 5
	}
	first := true
	for _, st := range sch.Path {
		if !st.Chi {
			p := st.Lane
			q := piDst[p]
			x := p % 5
			dr := q
			if sch.Breaks[q] {
				dr = ra.get()
				where[q] = dr
			}
			in := instr{op: opXAR, d: dr, s: [3]int{p, d[x]}, rot: rho[p]}
			if rho[p] == 0 {
				in.op = opEOR
			}
			if first {
				in.comment = "ρ π: B[π(p)] = (A[p] ^ D[x]) <<< ρ[p], interleaved with χ by rows"
				first = false
			}
			emit(in)
			if colLeft[x]--; colLeft[x] == 0 {
				ra.put(d[x])
			}
			continue
		}
		y := st.Lane
		a := sch.Pair[y]
		b := func(pos int) int {
			q := 5*y + pos%5
			if sch.Breaks[q] {
				return where[q]
			}
			return q
		}
		for i := range 5 {
			pos := a + i
			in := instr{op: opBCAX, d: 5*y + pos%5, s: [3]int{b(pos), b(pos + 1), b(pos + 2)}}
			if i == 0 {
				in.comment = fmt.Sprintf("χ row %d", y)
			}
			emit(in)
		}
		ra.put(where[5*y+a])
		ra.put(where[5*y+(a+1)%5])
		if y == 0 {
			t := ra.get()
			emit(instr{op: opLDRC, d: t, comment: "ι"})
			emit(instr{op: opEOR, d: 0, s: [3]int{0, t}})
			ra.put(t)
		}
	}
	for i := 25; i < 32; i++ {
		if ra.busy[i] {
			log.Fatalf("V%d still busy at the end of the round", i)
		}
	}
	return code
}

// ---------------------------------------------------------------------------
// Self-check

// run interprets the round code 24 times on the low lanes of a register
// file, with the same semantics the instruction comments state.
func run(round []instr, a *[25]uint64) {
	var v [32]uint64
	copy(v[:], a[:])
	rc := 0
	for range 24 {
		for _, in := range round {
			s0, s1, s2 := v[in.s[0]], v[in.s[1]], v[in.s[2]]
			switch in.op {
			case opEOR3:
				v[in.d] = s0 ^ s1 ^ s2
			case opRAX1:
				v[in.d] = s0 ^ bits.RotateLeft64(s1, 1)
			case opXAR:
				v[in.d] = bits.RotateLeft64(s0^s1, in.rot)
			case opBCAX:
				v[in.d] = s0 ^ (s2 &^ s1)
			case opEOR:
				v[in.d] = s0 ^ s1
			case opLDRC:
				v[in.d] = roundConstants[rc]
				rc++
			}
		}
	}
	copy(a[:], v[:25])
}

func selfCheck(round []instr) error {
	// Known answer: the permutation of the zero state (Keccak team's
	// KeccakF-1600-IntermediateValues.txt), first and last lane.
	var z [25]uint64
	fips202.Permute(&z)
	if z[0] != 0xF1258F7940E1DDE7 || z[24] != 0xEAF1FF7B5CECA249 {
		return fmt.Errorf("textbook permutation fails its known answer: %#x %#x", z[0], z[24])
	}
	seed := uint64(0x9E3779B97F4A7C15)
	for i := range 100 {
		var a, b [25]uint64
		for j := range a {
			if i > 0 {
				seed ^= seed << 13
				seed ^= seed >> 7
				seed ^= seed << 17
				a[j] = seed
			}
		}
		b = a
		run(round, &a)
		fips202.Permute(&b)
		if a != b {
			return fmt.Errorf("generated round disagrees with the textbook permutation (state %d)", i)
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Output

// General-purpose registers. R18 and R26..R30 are reserved on arm64.
const (
	regA     = "R0" // state pointer
	regLoad  = "R1" // state pointer, post-incremented while loading
	regRC    = "R2" // round constant pointer
	regRound = "R3" // rounds left
	regP     = "R4" // input pointer
	regN     = "R5" // input bytes left
)

func render(round []instr) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

	p("// Code generated by fastkeccak/_asm/arm64. DO NOT EDIT.")
	p("")
	p("//go:build !purego")
	p("")
	p(`#include "textflag.h"`)
	p("")
	p("// Keccak-f[1600] for arm64 with the SHA3 extension (FEAT_SHA3).")
	p("// Lane i of the state lives in the low 64 bits of Vi; V25-V31 are scratch.")
	p("// Go operand order: VEOR3 Va, Vm, Vn, Vd is Vd = Vn^Vm^Va;")
	p("// VRAX1 Vm, Vn, Vd is Vd = Vn ^ Vm<<<1; VXAR $i, Vm, Vn, Vd is")
	p("// Vd = (Vn^Vm)>>>i; VBCAX Va, Vm, Vn, Vd is Vd = Vn ^ (Vm &^ Va).")
	p("")
	p("// Round constants of ι, in round order.")
	for i, c := range roundConstants {
		p("DATA ·keccakRoundConstantsSHA3<>+0x%02x(SB)/8, $0x%016x", 8*i, c)
	}
	p("GLOBL ·keccakRoundConstantsSHA3<>(SB), NOPTR|RODATA, $%d", 8*len(roundConstants))

	loadState := func() {
		p("\tMOVD\t%s, %s", regA, regLoad)
		for i := 0; i < 24; i += 4 {
			p("\tVLD1.P\t32(%s), [V%d.D1, V%d.D1, V%d.D1, V%d.D1]", regLoad, i, i+1, i+2, i+3)
		}
		p("\tVLD1\t(%s), [V24.D1]", regLoad)
	}
	storeState := func() {
		p("\tMOVD\t%s, %s", regA, regLoad)
		for i := 0; i < 24; i += 4 {
			p("\tVST1.P\t[V%d.D1, V%d.D1, V%d.D1, V%d.D1], 32(%s)", i, i+1, i+2, i+3, regLoad)
		}
		p("\tVST1\t[V24.D1], (%s)", regLoad)
	}
	permute := func(label string) {
		p("\tMOVD\t$·keccakRoundConstantsSHA3<>(SB), %s", regRC)
		p("\tMOVD\t$24, %s", regRound)
		p("")
		p("%s:", label)
		for _, in := range round {
			if in.comment != "" {
				p("\t// %s", in.comment)
			}
			p("\t%s", in)
		}
		p("\tSUBS\t$1, %s, %s", regRound, regRound)
		p("\tBNE\t%s", label)
	}

	p("")
	p("// func keccakF1600SHA3(a *[25]uint64)")
	p("// The 128-byte frame is unused; it keeps the function splittable.")
	p("TEXT ·keccakF1600SHA3(SB), 0, $128-8")
	p("\tMOVD\ta+0(FP), %s", regA)
	loadState()
	permute("round")
	p("")
	storeState()
	p("\tRET")

	p("")
	p("// func absorbBlocksSHA3(a *[25]uint64, p []byte)")
	p("// len(p) is a multiple of 136; each block is XORed into lanes 0..16 and")
	p("// the state permuted, with the state kept in V0..V24 between blocks.")
	p("TEXT ·absorbBlocksSHA3(SB), 0, $128-32")
	p("\tMOVD\ta+0(FP), %s", regA)
	p("\tMOVD\tp_base+8(FP), %s", regP)
	p("\tMOVD\tp_len+16(FP), %s", regN)
	p("\tCBZ\t%s, done", regN)
	loadState()
	p("")
	p("block:")
	p("\t// XOR the 17 little-endian lanes of the block into the state.")
	for i := 0; i < 16; i += 4 {
		p("\tVLD1.P\t32(%s), [V25.D1, V26.D1, V27.D1, V28.D1]", regP)
		for j := range 4 {
			p("\tVEOR\tV%d.B16, V%d.B16, V%d.B16", 25+j, i+j, i+j)
		}
	}
	p("\tVLD1.P\t8(%s), [V25.D1]", regP)
	p("\tVEOR\tV25.B16, V16.B16, V16.B16")
	permute("round")
	p("\tSUBS\t$136, %s, %s", regN, regN)
	p("\tBNE\tblock")
	p("")
	storeState()
	p("")
	p("done:")
	p("\tRET")

	return []byte(strings.ReplaceAll(b.String(), "\t\n", "\n"))
}

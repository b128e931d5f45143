package armsched

import (
	"fmt"
	"log"

	"github.com/keccakroot/keccakroot/fastkeccak/_asm/internal/fips202"
)

// Instructions of one round, on register numbers.

// Op is an operation of the round.
type Op int

const (
	OpEOR3 Op = iota // d = s0 ^ s1 ^ s2
	OpRAX1           // d = s0 ^ (s1 <<< 1)
	OpXAR            // d = (s0 ^ s1) <<< rot
	OpBCAX           // d = s0 ^ (s2 &^ s1)   (χ: b ^ (^b1 & b2))
	OpEOR            // d = s0 ^ s1
	OpLDRC           // d = next round constant (post-increment load)
)

// Instr is one vector instruction of the round, on register numbers
// (V0..V31), in the operand order of the Keccak formulas above; Asm
// turns it into Go's operand order.
type Instr struct {
	Op      Op
	D       int
	S       [3]int
	Rot     int    // OpXAR: left rotation
	Comment string // printed before the instruction when not empty
}

// Asm returns the instruction in Go's arm64 assembler syntax; loadRC gives
// the round-constant load into register d, the one instruction whose form
// depends on how many states a register holds.
func (in Instr) Asm(loadRC func(d int) string) string {
	v := func(r int) string { return fmt.Sprintf("V%d.B16", r) }
	w := func(r int) string { return fmt.Sprintf("V%d.D2", r) }
	switch in.Op {
	case OpEOR3:
		return fmt.Sprintf("VEOR3\t%s, %s, %s, %s", v(in.S[2]), v(in.S[1]), v(in.S[0]), v(in.D))
	case OpRAX1:
		// Go: VRAX1 Vm, Vn, Vd computes Vd = Vn ^ (Vm <<< 1).
		return fmt.Sprintf("VRAX1\t%s, %s, %s", w(in.S[1]), w(in.S[0]), w(in.D))
	case OpXAR:
		// Go: VXAR $imm, Vm, Vn, Vd computes Vd = (Vn ^ Vm) >>> imm.
		return fmt.Sprintf("VXAR\t$%d, %s, %s, %s", (64-in.Rot)%64, w(in.S[1]), w(in.S[0]), w(in.D))
	case OpBCAX:
		// Go: VBCAX Va, Vm, Vn, Vd computes Vd = Vn ^ (Vm &^ Va).
		return fmt.Sprintf("VBCAX\t%s, %s, %s, %s", v(in.S[1]), v(in.S[2]), v(in.S[0]), v(in.D))
	case OpEOR:
		return fmt.Sprintf("VEOR\t%s, %s, %s", v(in.S[1]), v(in.S[0]), v(in.D))
	case OpLDRC:
		return loadRC(in.D)
	}
	panic("unknown opcode")
}

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

// Round returns the instructions of one round. It starts and ends with
// lane i in Vi and V25..V31 free.
func Round() []Instr {
	var code []Instr
	emit := func(in Instr) { code = append(code, in) }
	var ra regAlloc

	// θ: C[x] = A[x] ^ A[x+5] ^ A[x+10] ^ A[x+15] ^ A[x+20].
	var c [5]int
	for x := range 5 {
		c[x] = ra.get()
		in := Instr{Op: OpEOR3, D: c[x], S: [3]int{x, x + 5, x + 10}}
		if x == 0 {
			in.Comment = "θ: column parities"
		}
		emit(in)
	}
	for x := range 5 {
		emit(Instr{Op: OpEOR3, D: c[x], S: [3]int{c[x], x + 15, x + 20}})
	}
	// D[x] = C[x-1] ^ (C[x+1] <<< 1), in the order x = 0, 2, 4, 1, 3: then
	// C[x-1] is dead once D[x] is computed (its other reader, D[x-2], came
	// earlier), except for x = 0, which takes a new register. C[4] dies
	// with D[3].
	var d [5]int
	for i, x := range []int{0, 2, 4, 1, 3} {
		in := Instr{Op: OpRAX1, S: [3]int{c[(x+4)%5], c[(x+1)%5]}}
		if x == 0 {
			in.D = ra.get()
			in.Comment = "θ: D[x] = C[x-1] ^ C[x+1]<<<1"
		} else {
			in.D = c[(x+4)%5]
		}
		d[x] = in.D
		emit(in)
		if i == 4 {
			ra.put(c[4])
		}
	}

	sch := Find()
	var where [25]int // register of B[q] while it is in scratch
	var colLeft [5]int
	for x := range colLeft {
		colLeft[x] = 5
	}
	first := true
	for _, st := range sch.Path {
		if !st.Chi {
			p := st.Lane
			q := fips202.PiDest[p]
			x := p % 5
			dr := q
			if sch.Breaks[q] {
				dr = ra.get()
				where[q] = dr
			}
			in := Instr{Op: OpXAR, D: dr, S: [3]int{p, d[x]}, Rot: fips202.Rho[p]}
			if fips202.Rho[p] == 0 {
				in.Op = OpEOR
			}
			if first {
				in.Comment = "ρ π: B[π(p)] = (A[p] ^ D[x]) <<< ρ[p], interleaved with χ by rows"
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
			in := Instr{Op: OpBCAX, D: 5*y + pos%5, S: [3]int{b(pos), b(pos + 1), b(pos + 2)}}
			if i == 0 {
				in.Comment = fmt.Sprintf("χ row %d", y)
			}
			emit(in)
		}
		ra.put(where[5*y+a])
		ra.put(where[5*y+(a+1)%5])
		if y == 0 {
			t := ra.get()
			emit(Instr{Op: OpLDRC, D: t, Comment: "ι"})
			emit(Instr{Op: OpEOR, D: 0, S: [3]int{0, t}})
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

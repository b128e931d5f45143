package armsched

import (
	"fmt"
	"math/bits"

	"github.com/keccakroot/keccakroot/fastkeccak/_asm/internal/fips202"
)

// MaxStates is the number of states a 128-bit vector register holds, one
// 64-bit lane of each.
const MaxStates = 2

// Eval returns what the instruction writes to its destination lane, given
// the lanes of its sources and the round constant an OpLDRC loads: the
// semantics the Op comments state, which Asm's operand orders must keep.
func (in Instr) Eval(s [3]uint64, rc uint64) uint64 {
	switch in.Op {
	case OpEOR3:
		return s[0] ^ s[1] ^ s[2]
	case OpRAX1:
		return s[0] ^ bits.RotateLeft64(s[1], 1)
	case OpXAR:
		return bits.RotateLeft64(s[0]^s[1], in.Rot)
	case OpBCAX:
		return s[0] ^ (s[2] &^ s[1])
	case OpEOR:
		return s[0] ^ s[1]
	case OpLDRC:
		return rc
	}
	panic("unknown opcode")
}

// interpret runs the round fips202.Rounds times on a register file whose registers
// hold one lane of each state: lane i of states[j] in half j of Vi. An
// OpLDRC fills every half with the round constant, as the 2-way kernel's
// LD1R does; the single-state kernel reads only the low half.
func interpret(round []Instr, states [][25]uint64) {
	var v [32][MaxStates]uint64
	for j := range states {
		for i := range 25 {
			v[i][j] = states[j][i]
		}
	}
	rc := 0
	for range fips202.Rounds {
		for _, in := range round {
			var c uint64
			if in.Op == OpLDRC {
				c = fips202.RoundConstants[rc]
				rc++
			}
			var r [MaxStates]uint64
			for j := range states {
				r[j] = in.Eval([3]uint64{v[in.S[0]][j], v[in.S[1]][j], v[in.S[2]][j]}, c)
			}
			v[in.D] = r
		}
	}
	for j := range states {
		for i := range 25 {
			states[j][i] = v[i][j]
		}
	}
}

// Check runs round on an interpreter, for nstates states a register at a
// time, and compares the result with the textbook permutation
// (fips202.Permute, which checks itself against a known answer), on the
// zero state and 99 pseudo-random ones, so that a scheduling mistake stops
// generation instead of producing a wrong kernel.
func Check(round []Instr, nstates int) error {
	if nstates < 1 || nstates > MaxStates {
		return fmt.Errorf("a register holds 1 to %d states, not %d", MaxStates, nstates)
	}
	seed := uint64(0x9E3779B97F4A7C15)
	for i := range 100 {
		var got [MaxStates][25]uint64
		for j := range nstates {
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
		interpret(round, got[:nstates])
		for j := range nstates {
			fips202.Permute(&want[j])
			if got[j] != want[j] {
				return fmt.Errorf("generated round disagrees with the textbook permutation (input %d, state %d)", i, j)
			}
		}
	}
	return nil
}

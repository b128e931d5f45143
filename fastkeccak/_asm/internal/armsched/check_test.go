package armsched

import (
	"slices"
	"testing"
)

func TestCheckAcceptsTheRound(t *testing.T) {
	round := Round()
	for n := 1; n <= MaxStates; n++ {
		if err := Check(round, n); err != nil {
			t.Errorf("%d states: %v", n, err)
		}
	}
}

// TestCheckCatchesAWrongRound breaks the round in ways a scheduling or
// operand-order mistake would, and wants Check to refuse each.
func TestCheckCatchesAWrongRound(t *testing.T) {
	breaks := map[string]func(round []Instr){
		"a rotation off by one": func(round []Instr) {
			i := slices.IndexFunc(round, func(in Instr) bool { return in.Op == OpXAR })
			round[i].Rot = (round[i].Rot + 1) % 64
		},
		"BCAX operands swapped": func(round []Instr) {
			i := slices.IndexFunc(round, func(in Instr) bool { return in.Op == OpBCAX })
			round[i].S[1], round[i].S[2] = round[i].S[2], round[i].S[1]
		},
		"a result in the wrong register": func(round []Instr) {
			i := slices.IndexFunc(round, func(in Instr) bool { return in.Op == OpEOR3 })
			round[i].D = (round[i].D + 1) % 32
		},
		"ι on the wrong lane": func(round []Instr) {
			load := slices.IndexFunc(round, func(in Instr) bool { return in.Op == OpLDRC })
			rc := round[load].D
			i := load + slices.IndexFunc(round[load:], func(in Instr) bool { return in.Op == OpEOR && in.S[1] == rc })
			round[i].D, round[i].S[0] = 1, 1
		},
	}
	for name, breakIt := range breaks {
		for n := 1; n <= MaxStates; n++ {
			round := Round()
			breakIt(round)
			if err := Check(round, n); err == nil {
				t.Errorf("%s, %d states: Check accepted it", name, n)
			}
		}
	}
}

func TestCheckRefusesStateCounts(t *testing.T) {
	for _, n := range []int{0, MaxStates + 1} {
		if err := Check(Round(), n); err == nil {
			t.Errorf("%d states: no error", n)
		}
	}
}

// Package armsched builds one round of Keccak-f[1600] for the arm64
// SHA3-extension kernels (Round), in an order that needs no register moves
// (Find). Both arm64 generators, single-state and 2-way, emit it; only the
// lane arrangement of their loads and stores differs.
//
// After θ, D[0..4] occupy five of the seven scratch registers. ρπ turns
// lane p into B[PiDest[p]] = (A[p] ^ D[x]) <<< ρ, and χ then needs every B of
// a row at once. Writing B[q] straight into Vq ("home") is possible only
// once A[q] has been consumed, and π is a single 24-cycle, so at least one B
// must go to a scratch register. χ itself, written in place, needs two
// extra registers per row: if B[a] and B[a+1] (positions in the row, mod 5)
// are in scratch registers and Va, Va+1 are free, the outputs in the order
// a, a+1, a+2, a+3, a+4 each overwrite only a B that is no longer read.
//
// So each row picks one adjacent pair of positions ("breaks") whose B goes
// to a scratch register; every other B goes home. What remains is an order
// of the 25 ρπ steps and 5 χ rows such that a home is free when written and
// no more than seven scratch registers are ever live (D[x] is live until
// column x is consumed, a break's B until its row's χ). Scratch registers
// are interchangeable, so feasibility depends only on which steps are done,
// and a depth-first search with a memo of failed states finds an order in
// milliseconds. Everything iterates in a fixed order (the memo map is only
// looked up, never ranged over), so the result, and the generated file, are
// the same on every run.
package armsched

import "github.com/keccakroot/keccakroot/fastkeccak/_asm/internal/fips202"

// Scratch is the number of scratch registers (V25..V31) a round may use.
const Scratch = 7

// Step is one step of a round after θ: the ρπ of source lane Lane, or, if
// Chi, the χ of row Lane.
type Step struct {
	Chi  bool
	Lane int // ρπ: source lane p; χ: row y
}

// Schedule is a move-free order of a round's ρπ and χ steps.
type Schedule struct {
	Breaks [25]bool // B[q] goes to a scratch register
	Pair   [5]int   // row y's breaks are positions Pair[y], Pair[y]+1
	Path   []Step
	fail   map[[2]uint32]bool
}

func (s *Schedule) scratchLive(done, rows uint32) int {
	n := 0
	for x := range 5 {
		for y := range 5 {
			if done&(1<<(x+5*y)) == 0 {
				n++ // D[x] still needed
				break
			}
		}
	}
	for q := range 25 {
		if s.Breaks[q] && done&(1<<fips202.PiSource[q]) != 0 && rows&(1<<(q/5)) == 0 {
			n++
		}
	}
	return n
}

func (s *Schedule) search(done, rows uint32) bool {
	if rows == 1<<5-1 {
		return true
	}
	key := [2]uint32{done, rows}
	if s.fail[key] {
		return false
	}
	// A row whose B are all computed and whose break homes are free is
	// always worth finishing at once: it only frees registers.
	for y := range 5 {
		if rows&(1<<y) != 0 {
			continue
		}
		ready := true
		for q := 5 * y; q < 5*y+5; q++ {
			if done&(1<<fips202.PiSource[q]) == 0 || (s.Breaks[q] && done&(1<<q) == 0) {
				ready = false
			}
		}
		if ready {
			s.Path = append(s.Path, Step{Chi: true, Lane: y})
			if s.search(done, rows|1<<y) {
				return true
			}
			s.Path = s.Path[:len(s.Path)-1]
			s.fail[key] = true
			return false
		}
	}
	free := Scratch - s.scratchLive(done, rows)
	for p := range 25 {
		if done&(1<<p) != 0 {
			continue
		}
		q := fips202.PiDest[p]
		if s.Breaks[q] {
			if free == 0 {
				continue
			}
		} else if q != p && done&(1<<q) == 0 {
			continue // home still holds A[q]
		}
		s.Path = append(s.Path, Step{Lane: p})
		if s.search(done|1<<p, rows) {
			return true
		}
		s.Path = s.Path[:len(s.Path)-1]
	}
	s.fail[key] = true
	return false
}

// Find returns the first move-free order, trying the 5^5 choices of break
// pairs in a fixed order, so the generated code never changes.
func Find() *Schedule {
	for combo := range 5 * 5 * 5 * 5 * 5 {
		s := &Schedule{fail: map[[2]uint32]bool{}}
		c := combo
		for y := range 5 {
			a := c % 5
			c /= 5
			s.Pair[y] = a
			s.Breaks[5*y+a] = true
			s.Breaks[5*y+(a+1)%5] = true
		}
		if s.search(0, 0) {
			return s
		}
	}
	panic("armsched: no move-free schedule exists")
}

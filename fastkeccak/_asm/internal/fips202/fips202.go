// Package fips202 derives the constants of Keccak-f[1600] from their
// definitions in FIPS 202, for the generators of fastkeccak's permutations:
// nothing is typed in, so no generator can carry a mistyped table, and
// every generator uses the same one.
//
// Lane (x, y) of the state is index x+5*y.
package fips202

import (
	"fmt"
	"math/bits"
)

// Rounds is the number of rounds of Keccak-f[1600].
const Rounds = 24

var (
	// RoundConstants are the ι constants of the 24 rounds, from the LFSR
	// rc(t) of algorithm 5, assembled as algorithm 6 does.
	RoundConstants [Rounds]uint64
	// Rho is the left rotation ρ applies to each lane (algorithm 2).
	Rho [25]int
	// PiDest is where π moves each lane: (x, y) goes to (y, 2x+3y).
	PiDest [25]int
	// PiSource is its inverse: π fills lane (x, y) from lane (x+3y, x).
	PiSource [25]int
)

func init() {
	for x := range 5 {
		for y := range 5 {
			p := x + 5*y
			PiDest[p] = y + 5*((2*x+3*y)%5)
			PiSource[PiDest[p]] = p
		}
	}
	x, y := 1, 0
	for t := range 24 {
		Rho[x+5*y] = ((t + 1) * (t + 2) / 2) % 64
		x, y = y, (2*x+3*y)%5
	}
	lfsr := uint8(1) // x^8 + x^6 + x^5 + x^4 + 1, one step per output bit
	next := func() uint64 {
		b := uint64(lfsr & 1)
		if lfsr&0x80 != 0 {
			lfsr = lfsr<<1 ^ 0x71
		} else {
			lfsr <<= 1
		}
		return b
	}
	for i := range RoundConstants {
		for j := range 7 {
			RoundConstants[i] |= next() << (1<<j - 1)
		}
	}
	// Spot checks against the values FIPS 202 lists.
	if RoundConstants[1] != 0x8082 || RoundConstants[23] != 0x8000000080008008 ||
		Rho[1] != 1 || Rho[24] != 14 || PiSource[1] != 6 {
		panic(fmt.Sprintf("fips202: bad tables: %#x %#x %d %d %d",
			RoundConstants[1], RoundConstants[23], Rho[1], Rho[24], PiSource[1]))
	}
	// Known answer for Permute: the permutation of the zero state (Keccak
	// team's KeccakF-1600-IntermediateValues.txt), first and last lane.
	var z [25]uint64
	Permute(&z)
	if z[0] != 0xF1258F7940E1DDE7 || z[24] != 0xEAF1FF7B5CECA249 {
		panic(fmt.Sprintf("fips202: Permute fails its known answer: %#x %#x", z[0], z[24]))
	}
}

// Permute is Keccak-f[1600] as section 3.2 writes it, for generators that
// check the code they emit before writing it.
func Permute(a *[25]uint64) {
	for r := range Rounds {
		var c [5]uint64
		for x := range 5 {
			c[x] = a[x] ^ a[x+5] ^ a[x+10] ^ a[x+15] ^ a[x+20]
		}
		for p := range 25 {
			a[p] ^= c[(p+4)%5] ^ bits.RotateLeft64(c[(p+1)%5], 1)
		}
		var b [25]uint64
		for p := range 25 {
			b[PiDest[p]] = bits.RotateLeft64(a[p], Rho[p])
		}
		for p := range 25 {
			y := p / 5 * 5
			a[p] = b[p] ^ (^b[y+(p+1)%5] & b[y+(p+2)%5])
		}
		a[0] ^= RoundConstants[r]
	}
}

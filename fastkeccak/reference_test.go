package fastkeccak

import "math/bits"

// referenceRoundConstants are the ι constants of Keccak-f[1600], from the
// Keccak reference (FIPS 202, section 3.2.5), listed rather than derived so
// that the reference shares no code with the kernels it checks.
var referenceRoundConstants = [24]uint64{
	0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
	0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
	0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
	0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
	0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
	0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
}

// referenceKeccakF1600 is the textbook Keccak-f[1600]: the five step
// mappings written as loops over the 5x5 lane grid, exactly as FIPS 202
// section 3.2 states them. It is slow and obviously right, and every fast
// permutation in the package is tested against it. Lane (x, y) is a[x+5*y].
func referenceKeccakF1600(a *[25]uint64) {
	for round := range 24 {
		// θ: XOR each lane with the parities of two neighbouring columns.
		var c [5]uint64
		for x := range 5 {
			c[x] = a[x] ^ a[x+5] ^ a[x+10] ^ a[x+15] ^ a[x+20]
		}
		for x := range 5 {
			d := c[(x+4)%5] ^ bits.RotateLeft64(c[(x+1)%5], 1)
			for y := range 5 {
				a[x+5*y] ^= d
			}
		}
		// ρ and π: rotate each lane by its offset and move it to (y, 2x+3y).
		var b [25]uint64
		for x := range 5 {
			for y := range 5 {
				src := x + 5*y
				b[y+5*((2*x+3*y)%5)] = bits.RotateLeft64(a[src], referenceRho(x, y))
			}
		}
		// χ: the only non-linear step, along each row.
		for y := range 5 {
			for x := range 5 {
				a[x+5*y] = b[x+5*y] ^ (^b[(x+1)%5+5*y] & b[(x+2)%5+5*y])
			}
		}
		// ι: break the symmetry between rounds.
		a[0] ^= referenceRoundConstants[round]
	}
}

// referenceRho returns the ρ rotation offset of lane (x, y), computed by the
// walk of FIPS 202 algorithm 2.
func referenceRho(x, y int) int {
	if x == 0 && y == 0 {
		return 0
	}
	cx, cy := 1, 0
	for t := range 24 {
		if cx == x && cy == y {
			return ((t + 1) * (t + 2) / 2) % 64
		}
		cx, cy = cy, (2*cx+3*cy)%5
	}
	panic("unreachable")
}

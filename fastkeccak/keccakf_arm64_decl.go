//go:build arm64 && !purego

package fastkeccak

// keccakF1600SHA3 applies Keccak-f[1600] to a in place. Lane (x, y) is
// a[x+5*y]. It is written with the ARMv8.2 SHA3 extension instructions
// (EOR3, RAX1, XAR, BCAX) and keeps the state in V0..V24, so it must only be
// called when cpu.ARM64.HasSHA3 is true; otherwise it raises SIGILL.
//
//go:noescape
func keccakF1600SHA3(a *[25]uint64)

// absorbBlocksSHA3 absorbs p into the Keccak-256 sponge state a: for each
// 136-byte block of p it XORs the block's 17 little-endian lanes into
// a[0..16] and applies Keccak-f[1600]. len(p) must be a multiple of 136
// (zero is allowed and leaves a unchanged); p may be unaligned and is only
// read. The block loop runs in assembly with the state held in registers
// between blocks. Like keccakF1600SHA3, it needs cpu.ARM64.HasSHA3.
//
//go:noescape
func absorbBlocksSHA3(a *[25]uint64, p []byte)

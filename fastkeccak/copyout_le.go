//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package fastkeccak

import "unsafe"

// copyOut copies output bytes of the state, starting at byte offset off of
// the rate part, into out, and returns how many it copied: up to the end of
// out or of the rate, whichever comes first.
//
// On a little-endian CPU the state's memory already is its byte string in
// FIPS 202 order, so this is one copy; lane by lane (copyOutLanes) it takes
// several times longer, a large part of a Read that squeezes a whole block.
func copyOut(out []byte, a *[25]uint64, off int) int {
	// G103: [25]uint64 and [200]byte have the same size, and a byte array
	// has no alignment to break.
	state := (*[200]byte)(unsafe.Pointer(a)) //nolint:gosec
	return copy(out, state[off:rate])
}

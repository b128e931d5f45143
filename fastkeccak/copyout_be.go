//go:build !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package fastkeccak

// copyOut copies output bytes of the state, starting at byte offset off of
// the rate part, into out, and returns how many it copied: up to the end of
// out or of the rate, whichever comes first. On a big-endian CPU the lanes
// are turned into bytes one by one.
func copyOut(out []byte, a *[25]uint64, off int) int {
	return copyOutLanes(out, a, off)
}

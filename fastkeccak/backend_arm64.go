//go:build arm64 && !purego

package fastkeccak

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// builtBackends lists the kernels of this build, the CPU's or not.
func builtBackends() []backendID { return []backendID{backendARM64SHA3, backendGeneric} }

// availableBackends lists the kernels this CPU can run, the default first.
//
// The SHA3 extension (EOR3, RAX1, XAR, BCAX) is the default only on Apple
// cores, where it is faster than scalar code. On Arm's Neoverse and Cortex-X
// designs it is slower: those cores issue the SHA3 instructions on a fraction
// of their vector pipes (Arm's own note in libaegis PR #23: one EOR3 per cycle
// on Neoverse V1/V2 against four EORs), AWS-LC routes Neoverse V1/V2 to its
// scalar Keccak for that reason (crypto/fipsmodule/sha/keccak1600.c), and a
// published measurement on Graviton4 (Neoverse V2, keccak-asm issue #15)
// found the SHA3-extension Keccak-256 twice as slow as scalar at every size.
// Go's own crypto/sha3 makes the same choice (enabled on darwin only). Off
// Apple platforms the kernel stays reachable through
// KECCAKROOT_BACKEND=arm64-sha3, for measurement.
func availableBackends() []backendID {
	if !cpu.ARM64.HasSHA3 {
		return []backendID{backendGeneric}
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return []backendID{backendARM64SHA3, backendGeneric}
	}
	return []backendID{backendGeneric, backendARM64SHA3}
}

// permute applies Keccak-f[1600] to a. A switch of direct calls, not a
// function value, so that a stays on the caller's stack.
func permute(a *[25]uint64) {
	switch active {
	case backendARM64SHA3:
		keccakF1600SHA3(a)
	default:
		keccakF1600Generic(a)
	}
}

// absorb XORs each 136-byte block of p into a and permutes after each.
// len(p) must be a multiple of 136.
func absorb(a *[25]uint64, p []byte) {
	switch active {
	case backendARM64SHA3:
		for len(p) > maxAssemblyAbsorb {
			absorbBlocksSHA3(a, p[:maxAssemblyAbsorb])
			p = p[maxAssemblyAbsorb:]
		}
		absorbBlocksSHA3(a, p)
	default:
		absorbGeneric(a, p)
	}
}

//go:build (!amd64 && !arm64) || purego

package fastkeccak

// builtBackends lists the kernels of this build: the portable one.
func builtBackends() []backendID { return []backendID{backendGeneric} }

// availableBackends lists the kernels this build and CPU can run, the
// default first. Without assembly there is only the portable one.
func availableBackends() []backendID { return []backendID{backendGeneric} }

// permute applies Keccak-f[1600] to a.
func permute(a *[25]uint64) { keccakF1600Generic(a) }

// absorb XORs each 136-byte block of p into a and permutes after each.
// len(p) must be a multiple of 136.
func absorb(a *[25]uint64, p []byte) { absorbGeneric(a, p) }

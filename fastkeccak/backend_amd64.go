//go:build amd64 && !purego

package fastkeccak

import "golang.org/x/sys/cpu"

// builtBackends lists the kernels of this build, the CPU's or not.
func builtBackends() []backendID {
	return []backendID{backendAMD64AVX512VL, backendAMD64BMI2, backendGeneric}
}

// availableBackends lists the kernels this CPU can run, the default first.
//
// The AVX-512VL kernel keeps the whole state in 25 xmm registers and uses
// VPTERNLOGQ for θ and χ, one instruction where the scalar kernels need
// several: they are held at the integer units' limit, and it absorbs
// faster on every AVX-512 CPU measured (BenchmarkKernelTurns;
// docs/performance.md has the figures). It touches no zmm register, so it does not trigger the
// frequency drop of heavy 512-bit code on Intel cores.
// BMI2's RORX and BMI1's ANDN make the scalar kernel shorter; CPUs before
// Haswell lack them and get the portable Go permutation.
func availableBackends() []backendID {
	var ids []backendID
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL {
		ids = append(ids, backendAMD64AVX512VL)
	}
	if cpu.X86.HasBMI1 && cpu.X86.HasBMI2 {
		ids = append(ids, backendAMD64BMI2)
	}
	return append(ids, backendGeneric)
}

// permute applies Keccak-f[1600] to a. A switch of direct calls, not a
// function value, so that a stays on the caller's stack: an indirect call
// would make every Hasher escape.
func permute(a *[25]uint64) {
	switch active {
	case backendAMD64AVX512VL:
		keccakF1600AVX512VL(a)
	case backendAMD64BMI2:
		keccakF1600BMI2(a)
	default:
		keccakF1600Generic(a)
	}
}

// absorb XORs each 136-byte block of p into a and permutes after each.
// len(p) must be a multiple of 136.
func absorb(a *[25]uint64, p []byte) {
	switch active {
	case backendAMD64AVX512VL:
		for len(p) > maxAssemblyAbsorb {
			absorbBlocksAVX512VL(a, p[:maxAssemblyAbsorb])
			p = p[maxAssemblyAbsorb:]
		}
		absorbBlocksAVX512VL(a, p)
	case backendAMD64BMI2:
		for len(p) > maxAssemblyAbsorb {
			absorbBlocksBMI2(a, p[:maxAssemblyAbsorb])
			p = p[maxAssemblyAbsorb:]
		}
		absorbBlocksBMI2(a, p)
	default:
		absorbGeneric(a, p)
	}
}

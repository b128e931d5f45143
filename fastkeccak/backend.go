package fastkeccak

import "encoding/binary"

// backendID names a permutation kernel. Every platform has backendGeneric;
// the others exist where their assembly is built.
type backendID uint8

const (
	backendGeneric backendID = iota
	backendAMD64BMI2
	backendAMD64AVX512VL
	backendARM64SHA3
)

// String returns the name Backend reports and KECCAKROOT_BACKEND accepts.
func (id backendID) String() string {
	switch id {
	case backendAMD64BMI2:
		return "amd64-bmi2"
	case backendAMD64AVX512VL:
		return "amd64-avx512vl"
	case backendARM64SHA3:
		return "arm64-sha3"
	default:
		return "generic"
	}
}

// active is the kernel every hash in the process uses. It is set once at
// start-up; tests swap it to run every kernel the CPU has.
var active = kernelFromEnvironment(backendVariable, availableBackends())

// backendVariable names the environment variable that picks the kernel.
const backendVariable = "KECCAKROOT_BACKEND"

// chooseBackend returns the kernel named by override if the CPU can run it,
// and otherwise the platform's default, the first of availableBackends,
// with an error if override names none of them.
func chooseBackend(override string) (backendID, error) {
	return pickKernel(backendVariable, override, availableBackends())
}

// Backend names the permutation kernel in use: "generic", "amd64-bmi2",
// "amd64-avx512vl" or "arm64-sha3".
func Backend() string { return active.String() }

// maxAssemblyAbsorb bounds the input of one call to an assembly absorb
// loop to 64 blocks. The goroutine can only be preempted at the stack check
// in the prologue of a call, never inside the assembly, so a 32 MiB message
// in one call would hold up every stop-the-world pause for the whole hash.
const maxAssemblyAbsorb = 64 * rate

// absorbGeneric XORs each 136-byte block of p into the state and permutes,
// in portable Go. len(p) must be a multiple of rate.
func absorbGeneric(a *[25]uint64, p []byte) {
	for len(p) >= rate {
		block := (*[rate]byte)(p)
		for i := range rate / 8 {
			a[i] ^= binary.LittleEndian.Uint64(block[8*i:])
		}
		keccakF1600Generic(a)
		p = p[rate:]
	}
}

//go:build (!amd64 && !arm64) || purego

package fastkeccak

// builtBatchKernels lists the batch kernels of this build: the loop.
func builtBatchKernels() []batchKernelID { return []batchKernelID{batchLoop} }

// availableBatchKernels lists the batch kernels of this build: without
// assembly, only Sum256 in a loop.
func availableBatchKernels() []batchKernelID { return []batchKernelID{batchLoop} }

// batchAbsorb is never called in this build: the loop kernel does not
// absorb lanes.
func batchAbsorb(id batchKernelID, _ *batchLanes, _ uint64, _ int) {
	panic("fastkeccak: no batch kernel " + id.String())
}

// sumShort8 is the one-block kernel of batchAMD64AVX512BW, which this build
// does not have.
func sumShort8(*[8]*[32]byte, *[8][]byte) { panic("fastkeccak: no one-block batch kernel") }

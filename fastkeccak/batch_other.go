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

// sumShortGroup is the one-block kernel of an amd64 batch kernel, which
// this build does not have.
func sumShortGroup(id batchKernelID, _ *[maxBatchWidth]*[32]byte, _ *[maxBatchWidth][]byte) {
	panic("fastkeccak: no one-block kernel in " + id.String())
}

// sumAnyGroup is the any-length kernel of an amd64 batch kernel, which
// this build does not have.
func sumAnyGroup(id batchKernelID, _ *[maxBatchWidth]*[32]byte, _ *[maxBatchWidth][]byte, _ int) {
	panic("fastkeccak: no any-length kernel in " + id.String())
}

// sumAnyWideGroup is the wider any-length kernel of an amd64 batch kernel,
// which this build does not have.
func sumAnyWideGroup(id batchKernelID, _ *[maxBatchWidth]*[32]byte, _ *[maxBatchWidth][]byte, _ int) {
	panic("fastkeccak: no any-length kernel in " + id.String())
}

// sumShortWideGroup is the wider one-block kernel of an amd64 batch
// kernel, which this build does not have.
func sumShortWideGroup(id batchKernelID, _ *[maxBatchWidth]*[32]byte, _ *[maxBatchWidth][]byte) {
	panic("fastkeccak: no one-block kernel in " + id.String())
}

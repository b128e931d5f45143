package fastkeccak

import "github.com/keccakroot/keccakroot/internal/kernels"

// init tells this module's tests, through an internal package, which kernels
// there are and which one is in use, so that they can run each one and name
// those this CPU cannot run.
func init() {
	kernels.Single = kernels.Family{
		Built:     names(builtBackends()),
		Available: names(availableBackends()),
		Active:    active.String(),
	}
	kernels.Batch = kernels.Family{
		Built:     names(builtBatchKernels()),
		Available: names(availableBatchKernels()),
		Active:    activeBatch.String(),
	}
}

// names returns the names of ids.
func names[ID interface{ String() string }](ids []ID) []string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return s
}

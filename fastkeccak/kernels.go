package fastkeccak

import (
	"fmt"
	"os"
	"strings"

	"github.com/keccakroot/keccakroot/internal/kernels"
)

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

// kernelFromEnvironment returns the kernel of available that the
// environment variable names, the platform's default (the first) if it is
// unset. A name that is no kernel this CPU runs, mistyped or meant for
// another CPU, gets the default too, and a line on standard error that
// says so: a measurement or test run asked for a kernel, and must not
// silently time or check another.
func kernelFromEnvironment[ID interface{ String() string }](variable string, available []ID) ID {
	id, err := pickKernel(variable, os.Getenv(variable), available)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fastkeccak:", err)
	}
	return id
}

// pickKernel returns the kernel of available named override, or the first
// if override is empty; for a name not in available it returns the first
// and an error naming variable, override and the kernels there are.
func pickKernel[ID interface{ String() string }](variable, override string, available []ID) (ID, error) {
	for _, id := range available {
		if override != "" && id.String() == override {
			return id, nil
		}
	}
	if override == "" {
		return available[0], nil
	}
	return available[0], fmt.Errorf("%s=%q is not a kernel this CPU runs (it runs %s); using %s",
		variable, override, strings.Join(names(available), ", "), available[0])
}

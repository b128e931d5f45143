package fastkeccak

import (
	"slices"
	"testing"

	"github.com/keccakroot/keccakroot/internal/kernels"
)

// TestKernelCoverage checks what fastkeccak tells the module's tests about
// its kernels, and records for the run which kernels of this build the
// other tests ran and which they skipped because the CPU lacks them: CI's
// summary collects its "verified" and "not run" lines (go test -v).
func TestKernelCoverage(t *testing.T) {
	for _, c := range []struct {
		family              string
		got                 kernels.Family
		built, avail        []string
		active              string
		defaultKernel, what string
	}{
		{"single-state", kernels.Single, names(builtBackends()), names(availableBackends()), active.String(), Backend(), "backend"},
		{"batch", kernels.Batch, names(builtBatchKernels()), names(availableBatchKernels()), activeBatch.String(), activeBatch.String(), "batch kernel"},
	} {
		if !slices.Equal(c.got.Built, c.built) || !slices.Equal(c.got.Available, c.avail) || c.got.Active != c.active {
			t.Errorf("%s kernels registered as %+v, want built %v, available %v, active %s", c.family, c.got, c.built, c.avail, c.active)
		}
		if len(c.avail) == 0 || c.got.Active != c.defaultKernel {
			t.Errorf("%s: active %s, reported as %s", c.family, c.got.Active, c.defaultKernel)
		}
		for _, name := range c.got.Built {
			if c.got.Runs(name) {
				t.Logf("%s %s: verified", c.what, name)
			} else {
				t.Logf("%s %s: not run, this CPU lacks its instructions", c.what, name)
			}
		}
		for _, name := range c.got.Missing() {
			if c.got.Runs(name) || !slices.Contains(c.got.Built, name) {
				t.Errorf("%s: Missing() lists %s", c.family, name)
			}
		}
	}
}

// requireKernel skips the test if this CPU cannot run the kernel of family f
// called name, naming it; what is the family's word for its kernels in the
// message ("kernel", "batch kernel").
func requireKernel(tb testing.TB, f kernels.Family, what, name string) {
	tb.Helper()
	if !f.Runs(name) {
		tb.Skipf("%s %s not run: this CPU lacks its instructions", what, name)
	}
}

// logMissingKernels names the kernels of family f that this CPU cannot run,
// for a test that loops over the others without subtests (a fuzz target, or
// a test that starts a subprocess per kernel).
func logMissingKernels(tb testing.TB, f kernels.Family, what string) {
	tb.Helper()
	for _, name := range f.Missing() {
		tb.Logf("%s %s not run: this CPU lacks its instructions", what, name)
	}
}

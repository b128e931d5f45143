package fastkeccak

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/keccakroot/keccakroot/internal/kernels"
)

// useBackend makes id the active kernel for the rest of the test.
func useBackend(tb testing.TB, id backendID) {
	tb.Helper()
	prev := active
	active = id
	tb.Cleanup(func() { active = prev })
}

// forEachBackend runs f once per kernel of this build, each forced in turn
// in its own subtest, so every test covers every backend the machine has;
// the subtest of a kernel this CPU cannot run is skipped with its name.
func forEachBackend(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, id := range builtBackends() {
		t.Run("backend="+id.String(), func(t *testing.T) {
			requireBackend(t, id)
			useBackend(t, id)
			f(t)
		})
	}
}

// requireBackend skips the test, naming the kernel, if this CPU cannot run
// id.
func requireBackend(tb testing.TB, id backendID) {
	tb.Helper()
	requireKernel(tb, kernels.Single, "kernel", id.String())
}

func TestBackendNames(t *testing.T) {
	available := availableBackends()
	if !slices.Contains(available, backendGeneric) {
		t.Fatalf("generic kernel missing from %v", available)
	}
	for _, id := range available {
		if !slices.Contains(builtBackends(), id) {
			t.Errorf("kernel %s is available but not listed as built", id)
		}
	}
	t.Logf("Backend() = %s; available: %v", Backend(), available)
	for _, id := range available {
		if got, err := chooseBackend(id.String()); got != id || err != nil {
			t.Errorf("chooseBackend(%q) = %v, %v", id.String(), got, err)
		}
	}
	got, err := chooseBackend("no-such-kernel")
	if got != available[0] {
		t.Errorf("unknown override chose %v, want the default %v", got, available[0])
	}
	if err == nil || !strings.Contains(err.Error(), `"no-such-kernel"`) || !strings.Contains(err.Error(), available[0].String()) {
		t.Errorf("unknown override: error %v, want one naming it and the default %v", err, available[0])
	}
	if got, err := chooseBackend(""); got != available[0] || err != nil {
		t.Errorf("empty override chose %v, %v; want the default %v", got, err, available[0])
	}
}

// TestBackendEnvironment checks that KECCAKROOT_BACKEND is honoured at
// start-up, by running this test binary again with it set.
func TestBackendEnvironment(t *testing.T) {
	if want := os.Getenv("FASTKECCAK_WANT_BACKEND"); want != "" {
		if Backend() != want {
			t.Fatalf("KECCAKROOT_BACKEND=%s gave Backend() = %s", os.Getenv("KECCAKROOT_BACKEND"), Backend())
		}
		return
	}
	if testing.Short() {
		t.Skip("starts a subprocess per backend")
	}
	logMissingKernels(t, kernels.Single, "kernel")
	for _, id := range availableBackends() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBackendEnvironment$")
		cmd.Env = append(os.Environ(), "KECCAKROOT_BACKEND="+id.String(), "FASTKECCAK_WANT_BACKEND="+id.String())
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS") || strings.Contains(string(out), "fastkeccak:") {
			t.Errorf("backend %s: %v\n%s", id, err, out)
		}
	}
	// A name the CPU cannot run keeps the default, and says so.
	cmd := exec.Command(os.Args[0], "-test.run=^TestBackendEnvironment$")
	cmd.Env = append(os.Environ(), "KECCAKROOT_BACKEND=no-such-kernel", "FASTKECCAK_WANT_BACKEND="+availableBackends()[0].String())
	out, err := cmd.CombinedOutput()
	if warning := `fastkeccak: KECCAKROOT_BACKEND="no-such-kernel" is not a kernel this CPU runs`; err != nil || !strings.Contains(string(out), "PASS") || !strings.Contains(string(out), warning) {
		t.Errorf("KECCAKROOT_BACKEND=no-such-kernel: %v, want the default and the warning\n%s", err, out)
	}
}

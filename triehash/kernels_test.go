package triehash

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/keccakroot/keccakroot/internal/kernels"
)

// TestUnderEveryBatchKernel runs the differential tests of the builders,
// the mutable Trie and its proofs again, in a child process per batch
// kernel the CPU has (fastkeccak reads KECCAKROOT_BATCH once, at start-up):
// the roots, node streams and node sets must not depend on the kernel that
// hashed the nodes. A kernel of this build that the CPU lacks
// is named in the log as not run.
func TestUnderEveryBatchKernel(t *testing.T) {
	if want := os.Getenv("TRIEHASH_WANT_BATCH"); want != "" {
		if got := kernels.Batch.Active; got != want {
			t.Fatalf("KECCAKROOT_BATCH=%s gave kernel %s", want, got)
		}
		return
	}
	if testing.Short() {
		t.Skip("starts a child process per batch kernel")
	}
	for _, kernel := range kernels.Batch.Missing() {
		t.Logf("batch kernel %s: not run, this CPU lacks its instructions", kernel)
	}
	for _, kernel := range kernels.Batch.Available {
		cmd := exec.Command(os.Args[0], "-test.short",
			"-test.run=^(TestUnderEveryBatchKernel|TestBuilderMatchesStackTrie|TestParallelMatchesSequential|TestEthereumTrieVectors|TestStateHelpers|TestTrieMatchesGeth|TestTrieMissingNodes|TestProveMatchesGeth|TestVerifyProofMatchesGeth|TestTrieFromProofs)$")
		cmd.Env = append(os.Environ(), "KECCAKROOT_BATCH="+kernel, "TRIEHASH_WANT_BATCH="+kernel)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "PASS") {
			t.Errorf("batch kernel %s: %v\n%s", kernel, err, out)
		} else {
			t.Logf("batch kernel %s: pass", kernel)
		}
	}
}

// Package examples holds runnable examples of keccakroot, one folder each;
// its test builds and runs every one of them and checks what they print.
package examples

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// examples are the example programs, with lines each must print.
var examples = map[string][]string{
	"derivesha":   {"types.DeriveSha(txs, adapter.NewStackTrie(nil))", "adapter.TransactionsRoot(txs)", "all roots match go-ethereum"},
	"hashes":      {"header (Cancun)", "legacy transaction", "access-list transaction", "dynamic-fee transaction", "blob transaction", "set-code transaction", "all hashes match go-ethereum"},
	"stateroot":   {"storage root of 0x", "state root of 1000 accounts", "all roots match go-ethereum"},
	"verifychain": {"generated a chain of 33 blocks", "block #32 ", "verified 33 blocks", "every parent link holds"},
	"batchhash":   {"batch width", "hashed 100000 messages with fastkeccak.Sum256Batch", "all digests match go-ethereum"},
	"replay":      {"generated a chain of 64 blocks", "store slot 7 = 64  ok", "replayed 64 blocks on keccakroot's tries", "keccakroot replay --geth --genesis"},
	"blockstate":  {"opened the state of mainnet's genesis", "applied 2000 account changes", "go-ethereum read all 2000 changed accounts back", "all roots match go-ethereum"},
}

// TestExamples builds every example program and checks what it prints.
// Under the race detector it is skipped: the programs it builds are not
// built with -race, so the run would be the test leg's again.
func TestExamples(t *testing.T) {
	if raceEnabled {
		t.Skip("the example programs are built without -race: nothing for the race detector to see")
	}
	bin := t.TempDir()
	var pkgs []string
	for name := range examples {
		pkgs = append(pkgs, "./"+name)
	}
	// One build for all of them: go build -o DIR/ writes one binary each.
	build := exec.Command("go", append([]string{"build", "-o", bin + string(filepath.Separator)}, pkgs...)...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for name, want := range examples {
		t.Run(name, func(t *testing.T) {
			out, code := runExample(t, filepath.Join(bin, name))
			if code != 0 {
				t.Fatalf("exit code %d:\n%s", code, out)
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "MISMATCH") {
				t.Errorf("a mismatch:\n%s", out)
			}
		})
	}

	// verifychain on a file that is not a chain fails, with a message.
	bad := filepath.Join(t.TempDir(), "bad.rlp")
	if err := os.WriteFile(bad, []byte{0xc3, 0x01, 0x02}, 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := runExample(t, filepath.Join(bin, "verifychain"), bad)
	if code == 0 || !strings.Contains(out, "verifychain: block 1 of "+bad) {
		t.Fatalf("want a failure naming block 1, got exit code %d:\n%s", code, out)
	}
}

// runExample runs a built example and returns its combined output and exit
// code.
func runExample(t *testing.T, path string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(path, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err == nil {
		return out.String(), 0
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("%s: %v", path, err)
	}
	return out.String(), exit.ExitCode()
}

package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestBenchQuick runs the bench command's quick cases twice, as JSON and as
// text, and checks that every case was measured and matched go-ethereum.
// Under the race detector it is skipped: the command starts no goroutine of
// its own, the library calls it times are raced in their packages' tests,
// and its two runs there took a minute, the most of any test in the leg.
func TestBenchQuick(t *testing.T) {
	if raceEnabled {
		t.Skip("the bench command has no concurrency of its own; its library calls are raced in their packages")
	}
	r := keccakroot(t, nil, "bench", "--quick", "--json")
	wantCode(t, r, exitOK)
	var res benchResult
	decodeJSON(t, r, &res)
	if !res.OK || !res.Quick || res.Backend == "" || res.BatchWidth < 1 || res.CPU == "" {
		t.Fatalf("want a quick run naming the CPU and backend:\n%v", r)
	}
	want := []string{"Sum256, 32 B", "Sum256, 1,024 B", "Sum256Batch, 1,024 x 32 B",
		"state root, 10,000 accounts", "state root, 10,000 accounts",
		"sorted trie, 100,000 keys, one buffer", "sorted trie, 100,000 keys, scattered",
		"DeriveSha, 200 transactions", "mainnet genesis state root, 8,893 accounts"}
	if len(res.Rows) != len(want) {
		t.Fatalf("want %d rows:\n%v", len(want), r)
	}
	for i, row := range res.Rows {
		if row.Name != want[i] || !row.Match || row.KeccakRoot.NsPerOp <= 0 || row.GoEthereum.NsPerOp <= 0 || row.Speedup <= 0 {
			t.Errorf("row %d: want %q measured and matching, got %+v", i, want[i], row)
		}
	}

	r = keccakroot(t, nil, "bench", "--quick", "--benchtime", "1ms")
	wantCode(t, r, exitOK)
	wantOutput(t, r.stdout, "CPU: ", "fastkeccak backend "+res.Backend, "speed-up", "crypto.Keccak256Hash",
		"trie.StackTrie", "types.DeriveSha", "genesis.ToBlock()", "every result matched go-ethereum's",
		"the sides taking turns", "rounds of at least 250 µs")
	// Every duration printed has at most three significant digits.
	for _, m := range durationText.FindAllStringSubmatch(r.stdout, -1) {
		if digits := strings.TrimLeft(strings.ReplaceAll(m[1], ".", ""), "0"); len(digits) > 3 {
			t.Errorf("bench prints the duration %q with more than three significant digits:\n%s", m[0], r.stdout)
		}
	}
}

// durationText matches a duration as the command prints it ("337 ns",
// "6.67 ms") or as time.Duration prints it ("6.666666ms"), the number first.
var durationText = regexp.MustCompile(`(\d+(?:\.\d+)?) ?(?:ns|µs|ms|s)\b`)

// TestNoTestingPackage checks that the shipped command does not link the
// testing package, whose flags and init a tool has no use for.
func TestNoTestingPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "testing" {
			t.Fatal("keccakroot links the testing package")
		}
	}
}

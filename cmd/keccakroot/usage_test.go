package main

import (
	"strings"
	"testing"
)

func TestHelp(t *testing.T) {
	r := keccakroot(t, nil, "--help")
	wantCode(t, r, exitOK)
	wantOutput(t, r.stdout, "Examples:", "keccakroot genesis devnet.json", "keccakroot verify-chain chain.rlp.gz",
		"keccakroot root", "keccakroot proof --state-root", "keccakroot bench --quick", "Exit codes:",
		"genesis", "verify-chain", "proof", "bench")
	for _, cmd := range []string{"genesis", "verify-chain", "root", "proof", "bench"} {
		r := keccakroot(t, nil, cmd, "--help")
		wantCode(t, r, exitOK)
		wantOutput(t, r.stdout, "Examples:", "keccakroot "+cmd, "Exit codes:", "--json")
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"--frobnicate"}, "flag provided but not defined"},
		{[]string{"genesis", "--frobnicate"}, "genesis: flag provided but not defined: -frobnicate (see keccakroot genesis --help)"},
		{[]string{"genesis"}, "genesis: missing argument"},
		{[]string{"genesis", "a.json", "b.json"}, "too many arguments"},
		{[]string{"genesis", "a.json", "--json"}, "flag --json after the arguments"},
		{[]string{"genesis", "--network", "mainnet", "a.json"}, "either --network or a FILE"},
		{[]string{"genesis", "--runs", "0", "--network", "mainnet"}, "--runs 0"},
		{[]string{"genesis", "--workers", "-1", "--network", "mainnet"}, "--workers -1"},
		{[]string{"verify-chain"}, "verify-chain: missing argument"},
		{[]string{"verify-chain", "--workers", "-2", "x"}, "--workers -2"},
		{[]string{"root", "a", "b"}, "too many arguments"},
		{[]string{"bench", "extra"}, "too many arguments"},
	}
	for _, tt := range tests {
		r := keccakroot(t, nil, tt.args...)
		wantCode(t, r, exitUsage)
		wantOutput(t, r.stderr, tt.want)
		if len(r.stderr) > 300 || strings.Contains(r.stderr, "USAGE:") {
			t.Errorf("%v: want a short error, not the help:\n%s", tt.args, r.stderr)
		}
	}
	// --json before the command works too.
	r := keccakroot(t, nil, "--json", "genesis", "--runs", "1", "--geth=false", "--network", "sepolia")
	wantCode(t, r, exitOK)
	var gres genesisResult
	decodeJSON(t, r, &gres)
	if !gres.OK || gres.Network != "sepolia" {
		t.Fatalf("want sepolia as JSON:\n%v", r)
	}

	// --json reports usage errors as JSON too.
	r = keccakroot(t, nil, "--json", "frobnicate")
	wantCode(t, r, exitUsage)
	var res errorResult
	decodeJSON(t, r, &res)
	if res.OK || res.ExitCode != exitUsage || !strings.Contains(res.Error, "frobnicate") {
		t.Fatalf("want a JSON error:\n%v", r)
	}
}

// TestGlobalFlags: flags given before a command are applied to it where it
// takes them, and refused where it does not; never accepted and ignored.
func TestGlobalFlags(t *testing.T) {
	r := keccakroot(t, nil, "--runs", "1", "--geth=false", "genesis", "--json", "--network", "sepolia")
	wantCode(t, r, exitOK)
	var gres genesisResult
	decodeJSON(t, r, &gres)
	if gres.Runs != 1 || gres.GoEthereum != nil || gres.Network != "sepolia" {
		t.Fatalf("want --runs 1 and --geth=false applied to genesis:\n%v", r)
	}
	r = keccakroot(t, nil, "--workers", "1", "--json", "root", "-")
	wantCode(t, r, exitOK)
	var rres rootResult
	decodeJSON(t, r, &rres)
	if rres.Workers != 1 {
		t.Fatalf("want --workers 1 applied to root:\n%v", r)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--runs", "1", "verify-chain", "x.rlp"}, "--runs given before verify-chain, which has no such flag"},
		{[]string{"--geth=false", "bench"}, "--geth given before bench"},
		{[]string{"--runs", "2", "genesis", "--runs", "1", "--network", "sepolia"}, "--runs given both before and after genesis"},
	} {
		r := keccakroot(t, nil, tt.args...)
		wantCode(t, r, exitUsage)
		wantOutput(t, r.stderr, tt.want)
	}
}

// TestCommandLineEdges: --json with a value turns JSON on for an error
// before the command's own flags are read, too; an unknown command's
// message lists every command; a flag of the default job given before a
// command that lacks it names the commands that take it; root --secure
// takes keys longer than a trie key may be (they are hashed first), as
// SecureRoot and go-ethereum do.
func TestCommandLineEdges(t *testing.T) {
	r := keccakroot(t, nil, "--json=1", "nosuchcommand")
	wantCode(t, r, exitUsage)
	var res errorResult
	decodeJSON(t, r, &res)
	if res.OK || res.ExitCode != exitUsage {
		t.Fatalf("want a JSON error object:\n%v", r)
	}
	r = keccakroot(t, nil, "nosuchcommand")
	wantOutput(t, r.stderr, "genesis", "verify-chain", "replay", "stateless", "root", "bench", "proof")
	r = keccakroot(t, nil, "--workers", "2", "proof", "--state-root", "0x00", "x")
	wantCode(t, r, exitUsage)
	wantOutput(t, r.stderr, "genesis", "root")

	dir := t.TempDir()
	long := writeFile(t, dir, "pairs", []byte("0x"+strings.Repeat("ab", 1025)+" 0x01\n"))
	wantCode(t, keccakroot(t, nil, "root", "--secure", "--check", long), exitOK)
	wantCode(t, keccakroot(t, nil, "root", long), exitUsage)
}

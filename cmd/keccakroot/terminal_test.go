//go:build linux

package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestRootTerminalHint: a bare "keccakroot root" on a terminal says on
// standard error that it reads pairs from standard input; from a pipe it
// says nothing.
func TestRootTerminalHint(t *testing.T) {
	term := openTerminal(t, 80)
	stdout, onTerminal, code := term.run(t, true, "0x01 0xaa\n\x04", "root")
	if code != exitOK || !strings.Contains(onTerminal, "reading KEY VALUE pairs from standard input") {
		t.Fatalf("want the hint on the terminal; exit %d, terminal:\n%q\nstdout:\n%s", code, onTerminal, stdout)
	}
	r := keccakroot(t, []byte("0x01 0xaa\n"), "root")
	wantCode(t, r, exitOK)
	if r.stderr != "" || strings.TrimSpace(r.stdout) != strings.TrimSpace(stdout) {
		t.Fatalf("want the same root and no hint from a pipe, got:\n%v\n(terminal run: %s)", r, stdout)
	}
}

// ansiEscape matches the terminal control sequences the progress bar writes.
var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]")

// TestVerifyChainProgressWidth: on a wide terminal the progress bar's every
// update fits in a line, and its rate is in bytes of RLP; on a narrow one
// there is no bar, only whole progress lines.
func TestVerifyChainProgressWidth(t *testing.T) {
	chain := mustChain(t)
	path := writeFile(t, t.TempDir(), "chain.rlp.gz", gzipBytes(t, chain.export))
	for _, cols := range []int{40, 80, 120} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			term := openTerminal(t, cols)
			stdout, onTerminal, code := term.run(t, false, "", "verify-chain", "--workers", "1", "--progress-interval", "1ns", path)
			if code != exitOK {
				t.Fatalf("exit %d:\n%s\nterminal:\n%q", code, stdout, onTerminal)
			}
			// The terminal turns each newline into "\r\n"; a bar update is a
			// carriage return alone.
			bar := strings.Contains(strings.ReplaceAll(onTerminal, "\r\n", "\n"), "\r")
			switch {
			case cols < minTerminalWidth && bar:
				t.Fatalf("a bar on a %d-column terminal:\n%q", cols, onTerminal)
			case cols < minTerminalWidth && !strings.Contains(onTerminal, "verify-chain: "):
				t.Fatalf("no progress lines on a %d-column terminal:\n%q", cols, onTerminal)
			case cols >= minTerminalWidth && !bar:
				t.Fatalf("no bar on a %d-column terminal:\n%q", cols, onTerminal)
			}
			if !bar {
				return
			}
			// Every update starts with a carriage return and must fit.
			for _, seg := range strings.FieldsFunc(ansiEscape.ReplaceAllString(onTerminal, ""), func(r rune) bool { return r == '\r' || r == '\n' }) {
				if n := len([]rune(seg)); n > cols {
					t.Fatalf("a %d-column update on a %d-column terminal: %q", n, cols, seg)
				}
			}
			if !strings.Contains(onTerminal, "MB/s") {
				t.Fatalf("no rate in the bar:\n%q", onTerminal)
			}
		})
	}
}

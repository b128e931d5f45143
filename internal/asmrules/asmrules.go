// Package asmrules checks the rules every assembly file of this module
// keeps, for the tests of the packages that have assembly.
package asmrules

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// MinFrameBytes is the smallest frame a function may declare: below it
// the assembler may leave out the stack check.
const MinFrameBytes = 128

// textDirective matches a Go assembler TEXT line: name, optional flags, and
// the frame size.
var textDirective = regexp.MustCompile(`^TEXT\s+·(\w+)\(SB\),\s*(?:([^$]*),\s*)?\$(-?\d+)`)

// KeepsStackCheck reads every .s file in dir and fails t for a function
// that is NOSPLIT or has a frame under MinFrameBytes. Either would drop
// the stack check from the prologue, which is the only point where the
// scheduler can preempt a long loop in assembly; without it one long call
// stalls every stop-the-world pause. It fails t too if the files hold no
// function, which means the directive went unread.
func KeepsStackCheck(t testing.TB, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.s"))
	if err != nil {
		t.Fatal(err)
	}
	texts := 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if !strings.HasPrefix(line, "TEXT") {
				continue
			}
			texts++
			m := textDirective.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("%s:%d: cannot parse %q", file, i+1, line)
				continue
			}
			name, flags := m[1], m[2]
			frame, _ := strconv.Atoi(m[3])
			if strings.Contains(flags, "NOSPLIT") || strings.Contains(flags, "|4") || flags == "4" {
				t.Errorf("%s:%d: %s is NOSPLIT", file, i+1, name)
			}
			if frame < MinFrameBytes {
				t.Errorf("%s:%d: %s has a %d-byte frame, want at least %d", file, i+1, name, frame, MinFrameBytes)
			}
		}
	}
	if len(files) > 0 && texts == 0 {
		t.Error("assembly files hold no TEXT directive")
	}
	t.Logf("%d functions in %d files", texts, len(files))
}

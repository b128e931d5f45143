package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// commandBuild is the keccakroot command, built for the tests the first
// time one runs it (binary): the tests run it as a user would. Built on
// demand rather than in TestMain, so that the unit tests run alone, and
// each fuzzing worker process, skip a build of go-ethereum's packages.
var commandBuild struct {
	once sync.Once
	dir  string // the build's directory, removed by TestMain
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if commandBuild.dir != "" {
		os.RemoveAll(commandBuild.dir)
	}
	os.Exit(code)
}

// binary returns the path of the keccakroot command, building it once.
func binary(t testing.TB) string {
	t.Helper()
	commandBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "keccakroot-test-")
		if err != nil {
			commandBuild.err = err
			return
		}
		commandBuild.dir = dir
		path := filepath.Join(dir, "keccakroot")
		args := []string{"build", "-o", path}
		if raceEnabled {
			// The command's goroutines are checked too.
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			commandBuild.err = fmt.Errorf("building keccakroot: %w\n%s", err, out)
			return
		}
		commandBuild.path = path
	})
	if commandBuild.err != nil {
		t.Fatal(commandBuild.err)
	}
	return commandBuild.path
}

// result is what one run of the command printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// String describes the run for failure messages.
func (r result) String() string {
	return fmt.Sprintf("exit code %d\n--- stdout:\n%s--- stderr:\n%s", r.code, r.stdout, r.stderr)
}

// keccakroot runs the built command with args and stdin.
func keccakroot(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = t.TempDir()
	if raceEnabled {
		// The race detector waits a second at exit for stray goroutines;
		// a short wait is enough for the command's own goroutines.
		cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=20")
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("keccakroot %s: %v", strings.Join(args, " "), err)
		}
		res.code = exit.ExitCode()
	}
	t.Logf("keccakroot %s: exit %d in %v", strings.Join(args, " "), res.code, time.Since(start).Round(time.Millisecond))
	if strings.Contains(res.stderr, "panic") || strings.Contains(res.stderr, "DATA RACE") {
		t.Fatalf("keccakroot %s crashed:\n%v", strings.Join(args, " "), res)
	}
	return res
}

// wantCode fails the test unless the run exited with code.
func wantCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit code %d, got:\n%v", code, r)
	}
}

// wantOutput fails the test unless every one of subs is in s.
func wantOutput(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("output lacks %q:\n%s", sub, s)
		}
	}
}

// decodeJSON parses a --json output into v, failing the test if it is not
// one JSON value.
func decodeJSON(t *testing.T, r result, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("--json output does not parse: %v\n%v", err, r)
	}
	if dec.More() {
		t.Fatalf("--json output holds more than one value:\n%v", r)
	}
}

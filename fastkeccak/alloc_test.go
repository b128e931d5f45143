package fastkeccak

import (
	"os/exec"
	"strings"
	"sync"
	"testing"
)

func TestZeroAllocations(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("instrumented builds allocate")
	}
	msg := make([]byte, 3*rate+5)
	forEachBackend(t, func(t *testing.T) {
		cases := map[string]func(){
			"Sum256": func() { _ = Sum256(msg) },
			"stack Hasher": func() {
				var h Hasher
				h.Write(msg)
				h.WriteByte(1)
				h.WriteString("string")
				_ = h.Sum256()
				h.Reset()
				h.Write(msg[:10])
				var out [32]byte
				h.Read(out[:])
				h.Read(out[:])
			},
			"Sum into room": func() {
				var h Hasher
				var room [64]byte
				_ = h.Sum(room[:0])
			},
			"Sum256Batch": func() {
				var out [4][32]byte
				msgs := [4][]byte{msg, msg[:1], nil, msg[:200]}
				Sum256Batch(out[:], msgs[:])
			},
		}
		for name, f := range cases {
			if n := testing.AllocsPerRun(20, f); n != 0 {
				t.Errorf("%s: %v allocations, want 0", name, n)
			}
		}
	})
}

// TestHasherStaysOnStack asks the compiler's escape analysis directly: a
// Hasher declared in a function and used through its methods must not be
// moved to the heap.
func TestHasherStaysOnStack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(goTool, "build", "-gcflags=-m", "-o", "/dev/null", "./internal/escapecheck").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "moved to heap: h") {
		t.Fatalf("a local Hasher escapes:\n%s", out)
	}
	if !strings.Contains(string(out), "escapecheck") {
		t.Fatalf("no escape analysis output:\n%s", out)
	}
}

// TestConcurrentSum256 runs Sum256 on one Hasher from many goroutines; under
// -race it proves that Sum256 never writes through its receiver.
func TestConcurrentSum256(t *testing.T) {
	var h Hasher
	h.Write([]byte("shared state, read by many"))
	want := h.Sum256()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if got := h.Sum256(); got != want {
					t.Errorf("concurrent Sum256 = %x, want %x", got, want)
					return
				}
				var room [32]byte
				_ = h.Sum(room[:0])
			}
		})
	}
	wg.Wait()
}

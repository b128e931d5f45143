package fastkeccak

import (
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/keccakroot/keccakroot/internal/asmrules"
)

// TestAssemblyKeepsStackCheck checks every .s file of the package: no
// kernel may be NOSPLIT or have a frame under 128 bytes, so that a long
// absorb loop stays preemptible.
func TestAssemblyKeepsStackCheck(t *testing.T) { asmrules.KeepsStackCheck(t, ".") }

// TestLongHashDoesNotStallGC hashes 32 MiB in one Sum256 call on one
// goroutine while another forces garbage collections, and checks that most
// stop-the-world pauses stay short: the absorb loop must be preemptible.
func TestLongHashDoesNotStallGC(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes 32 MiB per backend")
	}
	msg := make([]byte, 32<<20)
	forEachBackend(t, func(t *testing.T) {
		start := time.Now()
		_ = Sum256(msg[:4<<20])
		checkGCPauses(t, "32 MiB Sum256", 8*time.Since(start), func() { _ = Sum256(msg) })
	})
	debug.FreeOSMemory()
}

// checkGCPauses calls hash in a loop on a goroutine of its own, forces
// garbage collections beside it, and fails t if most of their
// stop-the-world pauses are long. Each pause includes the time spent
// waiting for running goroutines to stop: a kernel that cannot be
// preempted holds nearly every pause for a good part of a whole hash
// (whole, about), a preemptible one for microseconds. A majority of long
// pauses tells them apart, where the longest one alone could be a host that
// took the core away for a moment.
func checkGCPauses(t *testing.T, what string, whole time.Duration, hash func()) {
	t.Helper()
	if raceEnabled {
		t.Skip("the race detector's instrumentation distorts the timing")
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs two Ps to run the hash beside the collector")
	}
	var done atomic.Bool
	hashing, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		close(hashing)
		for !done.Load() {
			hash()
		}
	}()
	<-hashing
	time.Sleep(2 * time.Millisecond)
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	const collections = 9
	for range collections {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	done.Store(true)
	<-stopped // the caller may switch kernels once the hashing has stopped
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	// Beside a busy core (go test runs packages at once) a preemptible
	// kernel's pauses reach a few milliseconds.
	bound := max(whole/4, 10*time.Millisecond)
	var worst time.Duration
	long := 0
	for gc := before.NumGC + 1; gc <= after.NumGC; gc++ {
		pause := time.Duration(after.PauseNs[(gc+255)%256]) // a ring of the latest pauses
		worst = max(worst, pause)
		if pause > bound {
			long++
		}
	}
	count := after.NumGC - before.NumGC
	t.Logf("%s takes about %v; longest GC pause %v; %d of %d pauses over %v", what, whole, worst, long, count, bound)
	if long > collections/2 {
		t.Errorf("%d of %d GC pauses took over %v (the longest %v) while %s ran: the kernel is not preemptible", long, count, bound, worst, what)
	}
}

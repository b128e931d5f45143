package benchturns

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// ThreadClock measures the CPU time of the thread of the goroutine that
// started it, which stays locked to that thread until Stop: on a shared
// host the time another process takes the core does not count against the
// work measured. `openssl speed` divides by its own user CPU time too, so
// a benchmark set beside it must use this clock.
type ThreadClock struct{}

// StartThreadClock locks the calling goroutine to its thread and returns
// that thread's clock.
func StartThreadClock() ThreadClock {
	runtime.LockOSThread()
	return ThreadClock{}
}

// Now returns the thread's CPU time so far; pass it to MeasureBy.
func (ThreadClock) Now() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic("clock_gettime(CLOCK_THREAD_CPUTIME_ID): " + err.Error())
	}
	return time.Duration(ts.Nano())
}

// Stop unlocks the goroutine from its thread.
func (ThreadClock) Stop() { runtime.UnlockOSThread() }

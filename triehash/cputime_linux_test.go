package triehash

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// cpuClock measures the CPU time of the calling goroutine's thread, which
// it locks until stop is called: on a shared host, time another process
// takes the core from a build does not count against the build.
type cpuClock struct{}

func startCPUClock() cpuClock {
	runtime.LockOSThread()
	return cpuClock{}
}

// now returns the thread's CPU time so far.
func (cpuClock) now() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic("clock_gettime(CLOCK_THREAD_CPUTIME_ID): " + err.Error())
	}
	return time.Duration(ts.Nano())
}

func (cpuClock) stop() { runtime.UnlockOSThread() }

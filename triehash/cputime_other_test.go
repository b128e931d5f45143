//go:build !linux

package triehash

import "time"

// cpuClock falls back to wall time where the thread's CPU clock is not
// wired up: the ratios are then only right on an idle machine.
type cpuClock struct{ start time.Time }

func startCPUClock() cpuClock { return cpuClock{time.Now()} }

func (c cpuClock) now() time.Duration { return time.Since(c.start) }

func (cpuClock) stop() {}

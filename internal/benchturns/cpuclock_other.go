//go:build !linux

package benchturns

import "time"

// ThreadClock falls back to wall time where the thread's CPU clock is not
// wired up: ratios taken with it then hold only on an idle machine.
type ThreadClock struct{ start time.Time }

// StartThreadClock returns a clock started now.
func StartThreadClock() ThreadClock { return ThreadClock{time.Now()} }

// Now returns the wall time since the clock started.
func (c ThreadClock) Now() time.Duration { return time.Since(c.start) }

// Stop does nothing.
func (ThreadClock) Stop() {}

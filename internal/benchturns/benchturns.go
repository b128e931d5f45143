// Package benchturns times several implementations of one operation taking
// turns inside a single benchmark, for the Interleaved benchmarks of
// fastkeccak, triehash and adapter.
//
// Benchmarks that run one implementation after another see different
// moments of the machine; on a shared host, whose load comes in bursts of
// milliseconds or more, that moves their ratios by ±15%. Turns of tens of
// microseconds to a few seconds let every burst land on all the
// implementations alike, so their ratios hold still.
package benchturns

import (
	"testing"
	"time"
)

// Turn is one implementation's share of every round.
type Turn struct {
	// Prepare, if not nil, runs before each of the turn's runs, untimed:
	// for state the calls use up, such as go-ethereum's cached hashes.
	Prepare func()
	// Call is the i-th call of a run.
	Call func(i int)
}

// Measure runs rounds while b.Loop asks for them; in each round every turn,
// in order, makes calls calls. It returns each turn's wall time per call in
// nanoseconds, in the order of turns.
func Measure(b *testing.B, calls int, turns []Turn) []float64 {
	start := time.Now()
	return MeasureBy(b, calls, turns, func() time.Duration { return time.Since(start) })
}

// MeasureBy is Measure timed by clock, which returns the time since some
// fixed moment: for a benchmark that needs another clock than the wall's,
// such as its thread's CPU time.
func MeasureBy(b *testing.B, calls int, turns []Turn, clock func() time.Duration) []float64 {
	total := make([]time.Duration, len(turns))
	rounds := 0
	for b.Loop() {
		for i, t := range turns {
			if t.Prepare != nil {
				t.Prepare()
			}
			start := clock()
			for j := range calls {
				t.Call(j)
			}
			total[i] += clock() - start
		}
		rounds++
	}
	perCall := make([]float64, len(turns))
	for i, d := range total {
		perCall[i] = float64(d.Nanoseconds()) / float64(rounds*calls)
	}
	return perCall
}

package main

import (
	"runtime"
	"time"
)

// measurement is the cost of one call of a measured function, from the
// fastest of the rounds it was timed in.
type measurement struct {
	perCall     time.Duration
	calls       int    // calls in the fastest round
	allocsPerOp uint64 // heap allocations per call
	bytesPerOp  uint64 // heap bytes allocated per call
}

// measure times f, the one timing helper of the command: rounds rounds,
// each of as many calls as make it last at least minRound (one call when
// minRound is 0), with the garbage collected before each round, and returns
// the fastest round's cost per call. The fastest round is the one least
// disturbed by the rest of the machine. It stops at f's first error.
func measure(rounds int, minRound time.Duration, f func() error) (measurement, error) {
	var best measurement
	calls := 1
	for done := 0; done < rounds; {
		m, elapsed, err := timeRound(calls, f)
		if err != nil {
			return measurement{}, err
		}
		if elapsed < minRound && calls < 1e9 {
			// Too short to time well: aim at minRound with some margin, at
			// most a hundred times more calls than this round.
			perCall := max(elapsed/time.Duration(calls), 1)
			calls = min(calls*100, max(calls+1, int(minRound*6/5/perCall)))
			continue
		}
		done++
		if best.calls == 0 || m.perCall < best.perCall {
			best = m
		}
	}
	return best, nil
}

// timeRound calls f calls times and returns the cost per call and the
// round's time.
func timeRound(calls int, f func() error) (measurement, time.Duration, error) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	for range calls {
		if err := f(); err != nil {
			return measurement{}, 0, err
		}
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	n := uint64(calls)
	return measurement{
		perCall:     elapsed / time.Duration(calls),
		calls:       calls,
		allocsPerOp: (after.Mallocs - before.Mallocs) / n,
		bytesPerOp:  (after.TotalAlloc - before.TotalAlloc) / n,
	}, elapsed, nil
}

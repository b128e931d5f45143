package main

import (
	"runtime"
	"slices"
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

// measure times f alone: measureTurns with one side.
func measure(rounds int, minRound time.Duration, f func() error) (measurement, error) {
	ms, err := measureTurns(rounds, minRound, f)
	if err != nil {
		return measurement{}, err
	}
	return ms[0], nil
}

// measureTurns times the sides, the one timing helper of the command:
// rounds rounds of each, each round as many calls as make it last at least
// minRound (one call when minRound is 0), with the garbage collected before
// each round, and returns each side's fastest round's cost per call, in the
// order of sides. The fastest round is the one least disturbed by the rest
// of the machine. A round shorter than minRound does not count: the side's
// next round gets more calls. The sides take turns round by round, the order
// reversed every other round, so that a burst of load on a shared host, or
// caches another side left, meet every side alike: timed one after the
// other, a side's rounds all fall in one stretch of the host's state. It
// stops at the first error of any side.
func measureTurns(rounds int, minRound time.Duration, sides ...func() error) ([]measurement, error) {
	if len(sides) == 0 {
		return nil, nil
	}
	calls := make([]int, len(sides))
	done := make([]int, len(sides))
	best := make([]measurement, len(sides))
	for i := range sides {
		calls[i] = 1
	}
	for round := 0; slices.Min(done) < rounds; round++ {
		for k := range sides {
			i := k
			if round%2 == 1 {
				i = len(sides) - 1 - k
			}
			if done[i] == rounds {
				continue
			}
			m, elapsed, err := timeRound(calls[i], sides[i])
			if err != nil {
				return nil, err
			}
			if elapsed < minRound && calls[i] < 1e9 {
				// Too short to time well: aim at minRound with some margin,
				// at most a hundred times more calls than this round.
				perCall := max(elapsed/time.Duration(calls[i]), 1)
				calls[i] = min(calls[i]*100, max(calls[i]+1, int(minRound*6/5/perCall)))
				continue
			}
			done[i]++
			if best[i].calls == 0 || m.perCall < best[i].perCall {
				best[i] = m
			}
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

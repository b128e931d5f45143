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
// order of sides; the round that found the number of calls counts among
// them. The fastest round is the one least disturbed by the rest of the
// machine. The sides take turns round by round, the order reversed every
// other round, so that a burst of load on a shared host, or caches another
// side left, meet every side alike: timed one after the other, a side's
// rounds all fall in one stretch of the host's state. It stops at the first
// error of any side.
func measureTurns(rounds int, minRound time.Duration, sides ...func() error) ([]measurement, error) {
	calls := make([]int, len(sides))
	best := make([]measurement, len(sides))
	for i, f := range sides {
		n, last, err := callsPerRound(minRound, f)
		if err != nil {
			return nil, err
		}
		calls[i], best[i] = n, last
	}
	for round := range rounds {
		for k := range sides {
			i := k
			if round%2 == 1 {
				i = len(sides) - 1 - k
			}
			m, _, err := timeRound(calls[i], sides[i])
			if err != nil {
				return nil, err
			}
			if best[i].calls == 0 || m.perCall < best[i].perCall {
				best[i] = m
			}
		}
	}
	return best, nil
}

// callsPerRound returns how many calls of f make a round of at least
// minRound: one when minRound is 0, else found by timing rounds of more and
// more calls, which also warms f up. The last of those rounds, as long as
// the timed ones, is returned too, to count among them: for a call of a
// second or more it is a round the turns need not repeat.
func callsPerRound(minRound time.Duration, f func() error) (int, measurement, error) {
	calls := 1
	for minRound > 0 && calls < 1e9 {
		m, elapsed, err := timeRound(calls, f)
		if err != nil {
			return 0, measurement{}, err
		}
		if elapsed >= minRound {
			return calls, m, nil
		}
		// Too short to time well: aim at minRound with some margin, at
		// most a hundred times more calls than this round.
		perCall := max(elapsed/time.Duration(calls), 1)
		calls = min(calls*100, max(calls+1, int(minRound*6/5/perCall)))
	}
	return calls, measurement{}, nil
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

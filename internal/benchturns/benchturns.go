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
	"context"
	"runtime/pprof"
	"strconv"
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

// Measure runs rounds while b.Loop asks for them; in each round every turn
// makes calls calls, the turns in order in even rounds and in reverse order
// in odd ones (see MeasureRounds). It returns each turn's wall time per call
// in nanoseconds, in the order of turns.
func Measure(b *testing.B, calls int, turns []Turn) []float64 {
	return MeasureRounds(b, calls, nil, turns)
}

// MeasureRounds is Measure with newRound, if not nil, called untimed at the
// start of every round, before any turn's Prepare: for benchmarks that give
// each round fresh input, such as a new block.
//
// The order of the turns alternates from round to round so that no turn is
// always the first to touch what a round reads. The first pays for bringing
// it into the caches (the CPU's for input in memory; pebble's block cache
// and the operating system's page cache for a store on disk), and those
// after it find it there: with a fixed order, the later turns' figures come
// out better than their own work.
func MeasureRounds(b *testing.B, calls int, newRound func(), turns []Turn) []float64 {
	start := time.Now()
	return measure(b, calls, newRound, turns, func() time.Duration { return time.Since(start) })
}

// MeasureBy is Measure timed by clock, which returns the time since some
// fixed moment: for a benchmark that needs another clock than the wall's,
// such as its thread's CPU time.
//
// Each turn's Prepare and calls carry the profiler labels turn=tI (I the
// turn's index in turns: t0, t1, ...; not a bare number, which pprof's
// -tagfocus would read as a range) and phase=prepare or phase=call; the
// goroutines they start inherit them, so that a CPU profile of a benchmark
// splits by implementation, background work included (go tool pprof
// -tagfocus turn=t1). Work a goroutine started in Prepare does during the
// calls counts as phase=prepare. A round's newRound carries turn=round.
func MeasureBy(b *testing.B, calls int, turns []Turn, clock func() time.Duration) []float64 {
	return measure(b, calls, nil, turns, clock)
}

func measure(b *testing.B, calls int, newRound func(), turns []Turn, clock func() time.Duration) []float64 {
	total := make([]time.Duration, len(turns))
	preparing := make([]context.Context, len(turns))
	calling := make([]context.Context, len(turns))
	for i := range turns {
		turn := "t" + strconv.Itoa(i)
		preparing[i] = pprof.WithLabels(context.Background(), pprof.Labels("turn", turn, "phase", "prepare"))
		calling[i] = pprof.WithLabels(context.Background(), pprof.Labels("turn", turn, "phase", "call"))
	}
	roundStart := pprof.WithLabels(context.Background(), pprof.Labels("turn", "round", "phase", "prepare"))
	defer pprof.SetGoroutineLabels(context.Background())
	rounds := 0
	for b.Loop() {
		if newRound != nil {
			pprof.SetGoroutineLabels(roundStart)
			newRound()
		}
		for k := range turns {
			i := turnAt(k, rounds, len(turns))
			t := turns[i]
			if t.Prepare != nil {
				pprof.SetGoroutineLabels(preparing[i])
				t.Prepare()
			}
			pprof.SetGoroutineLabels(calling[i])
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

// turnAt returns the index of the turn that goes k-th in round: k in even
// rounds, n-1-k in odd ones.
func turnAt(k, round, n int) int {
	if round%2 == 1 {
		return n - 1 - k
	}
	return k
}

package main

import (
	"errors"
	"testing"
	"time"
)

func TestMeasure(t *testing.T) {
	// Without a round time: one call a round, the fastest round kept.
	calls := 0
	m, err := measure(4, 0, func() error { calls++; return nil })
	if err != nil || calls != 4 || m.calls != 1 {
		t.Fatalf("measure(4, 0) = %+v, %v after %d calls; want 4 rounds of one call", m, err, calls)
	}

	// With a round time: enough calls to fill it.
	var sink []byte
	m, err = measure(2, 5*time.Millisecond, func() error {
		sink = make([]byte, 64)
		time.Sleep(100 * time.Microsecond)
		return nil
	})
	_ = sink
	if err != nil || m.calls < 2 || time.Duration(m.calls)*m.perCall < 5*time.Millisecond {
		t.Fatalf("measure(2, 5ms) = %+v, %v; want rounds of at least 5ms", m, err)
	}
	if m.allocsPerOp < 1 || m.bytesPerOp < 64 {
		t.Fatalf("measure counted %d allocations and %d bytes a call, want at least 1 and 64", m.allocsPerOp, m.bytesPerOp)
	}

	// The first error stops it.
	boom := errors.New("boom")
	calls = 0
	if _, err := measure(3, 0, func() error { calls++; return boom }); !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("measure returned %v after %d calls, want boom after 1", err, calls)
	}
}

func TestMeasureTurns(t *testing.T) {
	// One call a round: the sides take turns, the order reversed every
	// other round.
	var order []byte
	side := func(name byte) func() error {
		return func() error { order = append(order, name); return nil }
	}
	ms, err := measureTurns(4, 0, side('k'), side('g'))
	if err != nil || len(ms) != 2 || ms[0].calls != 1 || ms[1].calls != 1 {
		t.Fatalf("measureTurns(4, 0) = %+v, %v; want one call a round for each side", ms, err)
	}
	if got, want := string(order), "kggkkggk"; got != want {
		t.Fatalf("measureTurns called the sides in the order %s, want %s", got, want)
	}

	// Sides of different speeds each get their own number of calls a
	// round, and each its own fastest round.
	fast := func() error { return nil }
	slow := func() error { time.Sleep(time.Millisecond); return nil }
	ms, err = measureTurns(2, 4*time.Millisecond, fast, slow)
	if err != nil || ms[0].calls <= ms[1].calls || ms[1].perCall < time.Millisecond || ms[0].perCall >= ms[1].perCall {
		t.Fatalf("measureTurns(2, 4ms) = %+v, %v; want more and shorter calls for the fast side", ms, err)
	}

	// The first error of either side stops it.
	boom := errors.New("boom")
	calls := 0
	fails := func() error { calls++; return boom }
	if _, err := measureTurns(3, 0, func() error { return nil }, fails); !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("measureTurns returned %v after %d calls of the failing side, want boom after 1", err, calls)
	}
}

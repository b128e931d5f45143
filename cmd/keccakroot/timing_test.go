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

package main

import (
	"testing"
	"time"
)

func TestFormatDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0 ns"},
		{7, "7.00 ns"},
		{812, "812 ns"},
		{999, "999 ns"},
		{1000, "1.00 µs"},
		{1234, "1.23 µs"},
		{999_600, "1.00 ms"}, // rounded before the unit is chosen
		{6_666_666, "6.67 ms"},
		{12_345_678, "12.3 ms"},
		{123_456_789, "123 ms"},
		{1_250_000_000, "1.25 s"},
		{61 * time.Second, "61.0 s"},
		{-1500, "-1.50 µs"},
	} {
		if got := formatDuration(c.d); got != c.want {
			t.Errorf("formatDuration(%d) = %q, want %q", int64(c.d), got, c.want)
		}
	}
}

func TestFormatNanos(t *testing.T) {
	for _, c := range []struct {
		ns   float64
		want string
	}{
		{0.5, "0.5 ns"},
		{8.734, "8.73 ns"},
		{45.25, "45.3 ns"},
		{337.4, "337 ns"},
		{999.6, "1.00 µs"},
		{1_234_567.8, "1.23 ms"},
	} {
		if got := formatNanos(c.ns); got != c.want {
			t.Errorf("formatNanos(%v) = %q, want %q", c.ns, got, c.want)
		}
	}
}

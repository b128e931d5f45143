package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"
)

// errorResult is the JSON printed for an error that stops a command before it
// has a result of its own.
type errorResult struct {
	OK       bool   `json:"ok"`
	Error    string `json:"error"`
	ExitCode int    `json:"exitCode"`
}

// textResult is a result that prints itself for people.
type textResult interface {
	writeText(w io.Writer)
}

// report prints a command's result, as JSON with --json and as text
// otherwise, and turns err, the command's failure if any, into a
// reportedError so that it is not printed twice. The text form prints the
// error on stderr after the result.
func report(c *cli.Context, result textResult, err error) error {
	if jsonMode(c) {
		writeJSON(c.App.Writer, result)
	} else {
		result.writeText(c.App.Writer)
	}
	if err == nil {
		return nil
	}
	fmt.Fprintf(c.App.ErrWriter, "keccakroot: %v\n", err)
	return &reportedError{code: exitCode(err), err: err}
}

// jsonMode reports whether --json was given, before the command or after
// it.
func jsonMode(c *cli.Context) bool {
	for _, ctx := range c.Lineage() {
		if ctx.Bool("json") {
			return true
		}
	}
	return false
}

// writeJSON writes v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(w, "{\"ok\": false, \"error\": %q}\n", "encoding the result: "+err.Error())
	}
}

// seconds is a duration that is a number of seconds in JSON.
type seconds time.Duration

// MarshalJSON writes the duration as a number of seconds.
func (s seconds) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, time.Duration(s).Seconds(), 'g', 6, 64), nil
}

// UnmarshalJSON reads a number of seconds.
func (s *seconds) UnmarshalJSON(b []byte) error {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("seconds: %w", err)
	}
	*s = seconds(f * float64(time.Second))
	return nil
}

// formatDuration prints d with at most three significant digits, in a unit
// that suits it: "812 µs", "12.3 ms", "6.67 ms", "1.25 s". Every duration the
// command prints goes through it (or formatNanos): a measurement is not
// known to more digits than that.
func formatDuration(d time.Duration) string {
	return formatNanos(float64(d))
}

// formatNanos is formatDuration for a time in nanoseconds that may have a
// fraction, such as a benchmark's time per operation: "8.73 ns". The time
// is rounded before its unit is chosen, so 999.96 µs prints as "1.00 ms".
func formatNanos(ns float64) string {
	if ns < 0 {
		return "-" + formatNanos(-ns)
	}
	r := roundSignificant(ns, 3)
	switch {
	case r < 1e3:
		return sig3(r) + " ns"
	case r < 1e6:
		return sig3(r/1e3) + " µs"
	case r < 1e9:
		return sig3(r/1e6) + " ms"
	default:
		return sig3(r/1e9) + " s"
	}
}

// roundSignificant rounds x to n significant digits.
func roundSignificant(x float64, n int) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	p := math.Pow(10, float64(n-1)-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// sig3 formats x, already rounded to three significant digits, with three
// significant digits ("812", "12.3", "6.67"), or as few as it has below one
// ("0.5").
func sig3(x float64) string {
	switch {
	case x >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case x >= 1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	default:
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
}

// formatCount prints n with thousands separators: 12,345.
func formatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// formatBytes prints a byte count in B, kB, MB or GB (powers of 1000, as
// MB/s is).
func formatBytes(n int64) string {
	f := float64(n)
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", f/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", f/1e6)
	default:
		return fmt.Sprintf("%.2f GB", f/1e9)
	}
}

// ratio returns a/b, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// round rounds x to digits decimals, for JSON.
func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// plural prints a count and a noun: "1 worker", "2 workers".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return formatCount(int64(n)) + " " + noun + "s"
}

// okWord prints a check's outcome.
func okWord(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISMATCH"
}

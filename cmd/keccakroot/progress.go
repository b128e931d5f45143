package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress reports how far verify-chain has got.
type progress interface {
	// update reports the blocks verified so far, the number of the last
	// one, and the bytes read from the file and of RLP.
	update(blocks int, number uint64, fileBytes, rlpBytes int64)
	// finish ends the report before the result is printed.
	finish()
}

// newProgress returns a progress bar on w when w is a terminal, plain
// progress lines every interval otherwise, and nothing when disabled.
// fileSize is the size of the file, or -1 when unknown (standard input).
func newProgress(w io.Writer, fileSize int64, interval time.Duration, disabled bool) progress {
	if disabled {
		return noProgress{}
	}
	if isTerminal(w) {
		bar := progressbar.NewOptions64(fileSize,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("verifying"),
			progressbar.OptionShowBytes(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetPredictTime(true),
		)
		return &barProgress{bar: bar}
	}
	return &lineProgress{w: w, interval: interval, start: time.Now(), last: time.Now()}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// noProgress reports nothing.
type noProgress struct{}

func (noProgress) update(int, uint64, int64, int64) {} // nothing to report
func (noProgress) finish()                          {} // nothing to clear

// barProgress draws a progress bar over the bytes of the file.
type barProgress struct {
	bar *progressbar.ProgressBar
}

// update moves the bar to the bytes read from the file.
func (p *barProgress) update(blocks int, number uint64, fileBytes, _ int64) {
	p.bar.Describe(fmt.Sprintf("block #%d, %s blocks", number, formatCount(int64(blocks))))
	_ = p.bar.Set64(fileBytes)
}

// finish clears the bar, so that the result starts on a clean line.
func (p *barProgress) finish() {
	_ = p.bar.Clear()
}

// lineProgress prints a line every interval, for logs and pipes.
type lineProgress struct {
	w        io.Writer
	interval time.Duration
	start    time.Time
	last     time.Time
}

// update prints a line if interval has passed since the last one.
func (p *lineProgress) update(blocks int, number uint64, _, rlpBytes int64) {
	now := time.Now()
	if now.Sub(p.last) < p.interval {
		return
	}
	p.last = now
	secs := now.Sub(p.start).Seconds()
	fmt.Fprintf(p.w, "verify-chain: %s blocks, at #%d, %s, %s blocks/s, %.1f MB/s\n",
		formatCount(int64(blocks)), number, formatBytes(rlpBytes),
		formatCount(int64(ratio(float64(blocks), secs))), ratio(float64(rlpBytes)/1e6, secs))
}

// finish does nothing: each line is complete.
func (p *lineProgress) finish() {}

// countingReader counts the bytes read through it; the count may be read
// from another goroutine.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

// Read reads from the underlying reader and counts the bytes.
func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

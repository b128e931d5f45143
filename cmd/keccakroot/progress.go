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

// Widths of the progress bar on a terminal: the bar itself at most, and the
// narrowest terminal that still has room for the bar's text (the block, the
// blocks so far, the rate, the percentage and the times) and a bar of some
// use. On a narrower one each update would wrap and leave lines behind, so
// progress comes as plain lines instead.
const (
	barWidth         = 30
	minTerminalWidth = 80
)

// newProgress returns a progress bar on w when w is a terminal wide enough
// for it, plain progress lines every interval otherwise, and nothing when
// disabled. fileSize is the size of the file, or -1 when unknown (standard
// input).
func newProgress(w io.Writer, fileSize int64, interval time.Duration, disabled bool) progress {
	if disabled {
		return noProgress{}
	}
	if width, ok := terminalWidth(w); ok && width >= minTerminalWidth {
		// The bar shows how much of the file has been read; its text shows
		// the rate in bytes of RLP, the measure of the summary, rather than
		// the library's rate of file bytes, which for gzip are compressed.
		bar := progressbar.NewOptions64(fileSize,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("verifying"),
			progressbar.OptionSetWidth(min(barWidth, width-minTerminalWidth+10)),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetPredictTime(true),
		)
		return &barProgress{bar: bar, start: time.Now()}
	}
	return &lineProgress{w: w, interval: interval, start: time.Now(), last: time.Now()}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	_, ok := terminalWidth(w)
	return ok
}

// terminalWidth returns the width of w in columns, if w is a terminal.
func terminalWidth(w io.Writer) (int, bool) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width <= 0 {
		return 0, true // a terminal of unknown width: no bar
	}
	return width, true
}

// noProgress reports nothing.
type noProgress struct{}

func (noProgress) update(int, uint64, int64, int64) {} // nothing to report
func (noProgress) finish()                          {} // nothing to clear

// barProgress draws a progress bar over the bytes of the file.
type barProgress struct {
	bar   *progressbar.ProgressBar
	start time.Time
}

// update moves the bar to the bytes read from the file.
func (p *barProgress) update(blocks int, number uint64, fileBytes, rlpBytes int64) {
	secs := time.Since(p.start).Seconds()
	p.bar.Describe(fmt.Sprintf("#%d, %s blocks, %.1f MB/s", number, formatCount(int64(blocks)), ratio(float64(rlpBytes)/1e6, secs)))
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

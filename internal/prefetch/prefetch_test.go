package prefetch

import (
	"bytes"
	"testing"

	"github.com/keccakroot/keccakroot/internal/asmrules"
)

// spansOf returns spans of buf of many lengths at many offsets, nil and
// empty ones among them: every way a span can start and end against the
// lines.
func spansOf(buf []byte) [][]byte {
	spans := [][]byte{nil, buf[:0], buf[len(buf):]}
	for _, start := range []int{0, 1, 31, 63, 64, 65, 4095} {
		for _, size := range []int{1, 2, 32, 63, 64, 65, 127, 128, 129, 532, 4096} {
			if start+size <= len(buf) {
				spans = append(spans, buf[start:start+size])
			}
		}
	}
	return append(spans, buf, buf[len(buf)-1:])
}

// TestLinesChangesNothing runs Lines over spans of every shape and checks
// that the memory and the list of spans are as they were: Lines only asks
// for lines.
func TestLinesChangesNothing(t *testing.T) {
	buf := make([]byte, 3*4096+17)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	want := bytes.Clone(buf)
	spans := spansOf(buf)
	lengths := make([]int, len(spans))
	for i, s := range spans {
		lengths[i] = len(s)
	}
	Lines(spans)
	Lines(nil)
	Lines(spans[:0])
	if !bytes.Equal(buf, want) {
		t.Fatal("Lines changed the memory of its spans")
	}
	for i, s := range spans {
		if len(s) != lengths[i] {
			t.Fatalf("span %d: length %d after Lines, want %d", i, len(s), lengths[i])
		}
	}
}

// TestLinesAllocatesNothing checks that a call allocates nothing: Hash
// calls it for every few dozen nodes.
func TestLinesAllocatesNothing(t *testing.T) {
	spans := spansOf(make([]byte, 8192))
	if allocs := testing.AllocsPerRun(100, func() { Lines(spans) }); allocs != 0 {
		t.Fatalf("Lines allocates %v times a call, want 0", allocs)
	}
}

// TestAssemblyKeepsStackCheck checks the package's assembly against the
// module's rules: no NOSPLIT, a frame of 128 bytes at least.
func TestAssemblyKeepsStackCheck(t *testing.T) { asmrules.KeepsStackCheck(t, ".") }

// BenchmarkLines times Lines over the spans of one chunk of Hash: 64
// branches' stored encodings of 532 bytes, here already in the caches.
func BenchmarkLines(b *testing.B) {
	buf := make([]byte, 64*532)
	spans := make([][]byte, 64)
	for i := range spans {
		spans[i] = buf[i*532 : (i+1)*532]
	}
	for b.Loop() {
		Lines(spans)
	}
}

// TestReadTakesEveryLine checks that Read's result holds the first byte of
// every line of its span and the span's last byte, and no other: a byte it
// skipped would be a line it did not read.
func TestReadTakesEveryLine(t *testing.T) {
	if got := Read(nil); got != 0 {
		t.Fatalf("Read(nil) = %#x, want 0", got)
	}
	buf := make([]byte, 5*lineBytes+7)
	for i := range buf {
		var want byte
		if i%lineBytes == 0 || i == len(buf)-1 {
			want = 0x5a
		}
		buf[i] = 0x5a
		if got := Read(buf); got != want {
			t.Fatalf("byte %d of %d set: Read = %#x, want %#x", i, len(buf), got, want)
		}
		buf[i] = 0
	}
}

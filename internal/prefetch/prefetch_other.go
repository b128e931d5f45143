//go:build !amd64 || purego

package prefetch

import "sync/atomic"

// lineBytes is the cache line size assumed: the common one, and a
// multiple of the others' halves.
const lineBytes = 64

// sink keeps the bytes lines reads, so that the compiler keeps the loads.
var sink atomic.Uint32

// lines is Lines without a prefetch instruction: it reads a byte of each
// line, all of them before anything uses them.
func lines(spans [][]byte) {
	var x byte
	for _, s := range spans {
		for at := 0; at < len(s); at += lineBytes {
			x ^= s[at]
		}
		if len(s) > 0 {
			x ^= s[len(s)-1]
		}
	}
	sink.Add(uint32(x))
}

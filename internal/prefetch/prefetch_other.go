//go:build !amd64 || purego

package prefetch

import "sync/atomic"

// sink keeps the bytes lines reads, so that the compiler keeps the loads.
var sink atomic.Uint32

// lines is Lines without a prefetch instruction: it reads a byte of each
// line, all of them before anything uses them.
func lines(spans [][]byte) {
	var x byte
	for _, s := range spans {
		x ^= Read(s)
	}
	sink.Add(uint32(x))
}

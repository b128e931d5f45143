package fastkeccak

import (
	"bytes"
	"testing"
)

// TestCopyOut checks copyOut, which on little-endian CPUs copies the
// state's memory, against copyOutLanes, which reads the lanes as FIPS 202
// defines them, for every offset in the rate and every length up to past
// its end. Big-endian CPUs use copyOutLanes itself.
func TestCopyOut(t *testing.T) {
	var a [25]uint64
	for i := range a {
		a[i] = 0x0102030405060708*uint64(i+1) ^ 0xf0e1d2c3b4a59687
	}
	for off := 0; off < rate; off++ {
		for n := 0; n <= rate-off+2; n++ {
			got := bytes.Repeat([]byte{0xaa}, n)
			want := bytes.Repeat([]byte{0xaa}, n)
			k := copyOut(got, &a, off)
			wantK := copyOutLanes(want, &a, off)
			if k != wantK || !bytes.Equal(got, want) {
				t.Fatalf("off %d, %d bytes: copyOut = %d, %x; copyOutLanes = %d, %x", off, n, k, got, wantK, want)
			}
		}
	}
}

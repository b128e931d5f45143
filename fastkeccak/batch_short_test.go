package fastkeccak

import (
	"bytes"
	"testing"
)

// TestSumShortGroupDirect calls each one-block kernel (sumShortGroup, of
// id.width() messages, and sumShortWideGroup, of id.inPlaceWidth()) with
// every length from 0 to 135 in every lane, the lanes' lengths differing,
// each message at an offset of its own in a buffer of its own, the digests
// written through pointers in the reverse order of the lanes; it checks
// every digest against Sum256 and that no message is written.
func TestSumShortGroupDirect(t *testing.T) {
	for _, id := range builtBatchKernels() {
		if !id.inPlace() {
			continue
		}
		t.Run(id.String(), func(t *testing.T) {
			requireBatch(t, id)
			for _, group := range []struct {
				name  string
				width int
				call  func(to *[maxBatchWidth]*[32]byte, from *[maxBatchWidth][]byte)
			}{
				{"sumShortGroup", id.width(), func(to *[maxBatchWidth]*[32]byte, from *[maxBatchWidth][]byte) {
					sumShortGroup(id, to, from)
				}},
				{"sumShortWideGroup", id.inPlaceWidth(), func(to *[maxBatchWidth]*[32]byte, from *[maxBatchWidth][]byte) {
					sumShortWideGroup(id, to, from)
				}},
			} {
				w := group.width
				for size := range rate {
					var (
						to    [maxBatchWidth]*[32]byte
						from  [maxBatchWidth][]byte
						out   [maxBatchWidth][32]byte
						saved [maxBatchWidth][]byte
					)
					for j := range w {
						n := (size + 37*j) % rate // every lane its own length
						off := (size + j) % 16
						buf := make([]byte, off+n)
						for k := range buf {
							buf[k] = byte(k*31 + 7*j + size)
						}
						from[j], saved[j] = buf[off:], bytes.Clone(buf[off:])
						to[j] = &out[w-1-j]
					}
					group.call(&to, &from)
					for j := range w {
						if want := Sum256(from[j]); out[w-1-j] != want {
							t.Fatalf("%s, lane %d of %d (%d bytes): %x, want %x", group.name, j, w, len(from[j]), out[w-1-j], want)
						}
						if !bytes.Equal(from[j], saved[j]) {
							t.Fatalf("%s: the kernel wrote to message %d", group.name, j)
						}
					}
				}
			}
		})
	}
}

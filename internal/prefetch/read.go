package prefetch

// lineBytes is the cache line size assumed: the common one, and a
// multiple of the others' halves.
const lineBytes = 64

// Read reads a byte of every cache line of b, the last byte included, and
// returns them XORed together, for the caller to keep so that the reads
// are not optimised away. Nothing waits on one read before the next, so
// the core asks for all the lines at once; unlike Lines, the caller then
// waits for them, where it is about to read b anyway.
func Read(b []byte) (sink byte) {
	for at := 0; at < len(b); at += lineBytes {
		sink ^= b[at]
	}
	if len(b) > 0 {
		sink ^= b[len(b)-1]
	}
	return sink
}

// Package prefetch asks the core for memory ahead of the code that needs
// it, for the Trie's Hash, whose nodes and stored encodings lie scattered
// over a heap far larger than the caches.
//
// A load that misses the caches holds up everything after it once the
// core's window of instructions in flight is full, so loads issued to warm
// the caches run only a few dozen lines ahead. A prefetch instruction
// retires at once: the core keeps fetching while the code goes on, and a
// caller can ask for the lines of the next piece of work while it does
// this one.
package prefetch

//go:generate sh -c "cd ../../fastkeccak/_asm && go run ./prefetch -out ../../internal/prefetch/prefetch_amd64.s"

// Lines asks the core to bring every cache line of each span of spans into
// its caches. It writes nothing through the spans; a span may be nil, and
// may start and end anywhere.
//
// On amd64 it issues PREFETCHT0 for each line, reads nothing and returns
// without waiting for the lines. Elsewhere (and with the purego tag) it
// reads a byte of each line instead, which waits for the lines but asks
// for them all before anything needs them.
func Lines(spans [][]byte) { lines(spans) }

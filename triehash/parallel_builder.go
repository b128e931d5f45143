package triehash

import (
	"bytes"
	"fmt"
	"runtime"
)

// ParallelBuilder is a Builder for keys in ascending order that spreads the
// work over several goroutines: the keys that Update receives are cut into
// chunks, workers encode and batch-hash each chunk's leaves (each leaf
// depends only on its key's two neighbours), and one goroutine places the
// chunks in order, closing and hashing the branches as a Builder does. The
// root and the onNode stream, in order, are the same as a Builder's; onNode
// is called from that one goroutine. Memory stays bounded: a fixed number of
// chunks are in flight, and Update waits when all are.
//
// The goroutines start with the first Update and end with Hash or Reset:
// call one of them before dropping a ParallelBuilder.
type ParallelBuilder struct {
	onNode    NodeFunc
	workers   int
	chunkSize int // keys per chunk; parallelChunk but in tests

	// chunks are all the chunks, reused from one trie to the next.
	chunks []*chunk

	// The producer side, on the caller's goroutine.
	cur     *chunk // being filled
	prev    []byte // the last key accepted, in cur
	free    chan *chunk
	work    chan *chunk // to the leaf workers
	ordered chan *chunk // to the placer, in key order
	result  chan [32]byte
	running bool

	hashed bool
	root   [32]byte
}

// parallelChunk is the number of keys in a chunk of a ParallelBuilder.
// Measured with 1M accounts on two cores: 256 keys give 4.5 times
// StackTrie, 1,024 give 5, 4,096 give 5.2 to 6.3; with 2·workers+2 chunks
// in flight that is a few megabytes (about 6 MB of live heap with two
// workers, BenchmarkSortedAccountsMemory), however many keys there are.
const parallelChunk = 4096

// chunk is a run of consecutive keys. Its first item repeats the last of
// the chunk before, whose leaf could not be encoded until this chunk's first
// key was known.
type chunk struct {
	leaves leafBatch // the keys, then their leaves
	values [][]byte  // values[i] is the value of key i, in arena
	arena  []byte
	before int  // prefix the first item shares with the key before it
	final  bool // the last chunk: its last item is placed too
	ready  chan struct{}
}

// placed is the number of the chunk's items its leaves are encoded for.
func (c *chunk) placed() int {
	if c.final {
		return len(c.values)
	}
	return len(c.values) - 1
}

func (c *chunk) add(key, value []byte) {
	c.leaves.addKey(key)
	start := len(c.arena)
	c.arena = append(c.arena, value...)
	c.values = append(c.values, c.arena[start:len(c.arena):len(c.arena)])
}

// recycle empties the chunk for the next keys.
func (c *chunk) recycle() {
	c.leaves.reset()
	c.values, c.arena, c.final = c.values[:0], c.arena[:0], false
}

// NewParallelBuilder returns an empty ParallelBuilder that encodes leaves on
// workers goroutines (0 means GOMAXPROCS). onNode may be nil.
func NewParallelBuilder(onNode NodeFunc, workers int) *ParallelBuilder {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &ParallelBuilder{onNode: onNode, workers: workers, chunkSize: parallelChunk}
}

// start launches the workers and the placer for a new trie.
func (p *ParallelBuilder) start() {
	inFlight := 2*p.workers + 2
	for len(p.chunks) < inFlight {
		p.chunks = append(p.chunks, &chunk{
			values: make([][]byte, 0, p.chunkSize+1),
			arena:  make([]byte, 0, (p.chunkSize+1)*96),
			ready:  make(chan struct{}, 1),
		})
	}
	p.free = make(chan *chunk, inFlight)
	for _, c := range p.chunks {
		c.recycle()
		c.leaves.keepEncodings = p.onNode != nil
		p.free <- c
	}
	p.work = make(chan *chunk, inFlight)
	p.ordered = make(chan *chunk, inFlight)
	p.result = make(chan [32]byte, 1)
	for range p.workers {
		go func(work <-chan *chunk) {
			for c := range work {
				c.leaves.encodeChunk(c.values, c.placed(), c.before)
				c.ready <- struct{}{}
			}
		}(p.work)
	}
	go p.place(p.ordered, p.free, p.result)
	p.cur = <-p.free
	p.cur.before = -1
	p.running = true
}

// place is the placer: it takes the chunks in order, waits for their
// leaves, and builds the trie with a Builder.
func (p *ParallelBuilder) place(ordered <-chan *chunk, free chan<- *chunk, result chan<- [32]byte) {
	core := streamCore{sink: nodeSink{onNode: p.onNode}}
	any := false
	for c := range ordered {
		<-c.ready
		if len(c.values) > 0 {
			any = true
			c.leaves.feed(&core, c.placed(), c.final)
		}
		if c.final {
			if any {
				result <- core.finish().data
			} else {
				result <- EmptyRoot
			}
			continue
		}
		c.recycle()
		free <- c
	}
}

// dispatch hands the filled chunk to a worker and the placer.
func (p *ParallelBuilder) dispatch(final bool) {
	c := p.cur
	c.final = final
	p.ordered <- c
	p.work <- c
}

// Update adds a key and its value, as Builder.Update does, with the same
// rules and errors; both slices are copied.
func (p *ParallelBuilder) Update(key, value []byte) error {
	switch {
	case p.hashed:
		return fmt.Errorf("%w: Update(%x) after Hash; call Reset first", ErrHashed, key)
	case len(value) == 0:
		return fmt.Errorf("%w: key %x (a trie cannot store an empty value)", ErrEmptyValue, key)
	case len(key) > MaxKeyLength:
		return fmt.Errorf("%w: key of %d bytes, at most %d: %x", ErrKeyTooLong, len(key), MaxKeyLength, key)
	}
	if !p.running {
		p.start()
	} else {
		switch cmp := bytes.Compare(p.prev, key); {
		case cmp == 0:
			return fmt.Errorf("%w: %x", ErrDuplicateKey, key)
		case cmp > 0:
			return fmt.Errorf("%w: key %x after %x (keys must ascend)", ErrUnsorted, key, p.prev)
		}
	}
	p.cur.add(key, value)
	p.prev = p.cur.leaves.key(len(p.cur.values) - 1)
	if len(p.cur.values) > p.chunkSize {
		// The chunk's last key moves on to the next chunk, where the key
		// after it decides its leaf.
		// Copy it before the full chunk is handed over: from then on the
		// placer may recycle it.
		full := p.cur
		n := len(full.values)
		next := <-p.free
		next.before = commonPrefixNibbles(full.leaves.key(n-2), full.leaves.key(n-1))
		next.add(full.leaves.key(n-1), full.values[n-1])
		p.dispatch(false)
		p.cur = next
		p.prev = next.leaves.key(0)
	}
	return nil
}

// Hash finishes the trie and returns its root, as Builder.Hash does.
func (p *ParallelBuilder) Hash() [32]byte {
	if p.hashed {
		return p.root
	}
	p.hashed = true
	if !p.running {
		p.root = EmptyRoot
		return p.root
	}
	p.dispatch(true)
	p.root = <-p.result
	p.stop()
	return p.root
}

// stop ends the goroutines of the current trie.
func (p *ParallelBuilder) stop() {
	close(p.work)
	close(p.ordered)
	p.running = false
	p.cur, p.prev = nil, nil
}

// Reset empties the ParallelBuilder for a new trie. A trie left unfinished
// is finished and dropped first, so no goroutine outlives it.
func (p *ParallelBuilder) Reset() {
	if p.running {
		p.dispatch(true)
		<-p.result
		p.stop()
	}
	p.hashed = false
}

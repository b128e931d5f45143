package triehash

import (
	"runtime"
	"sync/atomic"
)

// ParallelBuilder is a Builder for keys in ascending order that spreads the
// work over several goroutines: the keys that Update receives are cut into
// chunks, workers run the batch stage on each chunk (encode and batch-hash
// its leaves and bottom branches; each leaf depends only on its key's two
// neighbours), and one goroutine feeds the chunks in order to a streaming
// core, which closes and hashes the other branches as a Builder's does. The
// root and the onNode stream, in order, are the same as a Builder's; onNode
// is called from that one goroutine. Memory stays bounded: a fixed number of
// chunks are in flight, and Update waits when all are.
//
// The goroutines start with the first Update and end with Hash or Reset. A
// ParallelBuilder dropped in the middle of a trie ends them once the garbage
// collector finds it unreachable (unless its onNode function refers to it),
// without finishing the trie or calling onNode again.
//
// Like a Builder, a ParallelBuilder is not safe for concurrent use: Update,
// Hash and Reset are called from one goroutine at a time; its own goroutines
// are internal. Its zero value is an empty ParallelBuilder without onNode on
// GOMAXPROCS goroutines, as NewParallelBuilder(nil, 0) returns.
type ParallelBuilder struct {
	onNode    NodeFunc
	workers   int
	chunkSize int // keys per chunk; parallelChunk but in tests

	// chunks are all the chunks, reused from one trie to the next.
	chunks []*chunk

	// The producer side, on the caller's goroutine.
	cur  *chunk // being filled
	prev []byte // the last key accepted, in cur
	// run is the pipeline of the trie being built, nil between tries;
	// stopWhenDropped ends it if the ParallelBuilder is collected first.
	run             *pipeline
	stopWhenDropped runtime.Cleanup

	hashed bool
	root   [32]byte
}

// pipeline is what the goroutines of one trie share. It refers to nothing
// of the ParallelBuilder, so that a ParallelBuilder dropped in the middle of
// a trie can be collected and its cleanup can stop them.
type pipeline struct {
	free    chan *chunk
	work    chan *chunk // to the workers
	ordered chan *chunk // to the placer, in key order
	result  chan [32]byte
	// dropped tells the goroutines that nobody waits for the trie any
	// more: they hand the chunks in flight back untouched.
	dropped atomic.Bool
}

// stop ends the goroutines once they have taken the chunks handed to them.
func (r *pipeline) stop() {
	close(r.work)
	close(r.ordered)
}

// drop is stop for a ParallelBuilder that was collected.
func (r *pipeline) drop() {
	r.dropped.Store(true)
	r.stop()
}

// parallelChunk is the number of keys in a chunk of a ParallelBuilder: many,
// so that handing a chunk over costs little per key, but few enough that the
// chunks in flight hold a few megabytes however many keys there are (see
// docs/performance.md for the measurements).
const parallelChunk = 4096

// chunksInFlight is the number of chunks a ParallelBuilder with workers
// workers keeps: one being filled, one being placed, and the rest being
// encoded, at least one. The producer and the placer are one goroutine each,
// so more chunks would not make them faster; they would only make a chunk
// take longer to come back to the producer, whose copies into it then miss
// the caches (see docs/performance.md).
func chunksInFlight(workers int) int { return max(3, workers+1) }

// chunk is a run of consecutive keys. Its first item repeats the last of
// the chunk before, whose leaf could not be encoded until this chunk's first
// key was known.
type chunk struct {
	leaves leafBatch // the keys and values, then their leaves
	before int       // prefix the first item shares with the key before it
	final  bool      // the last chunk: its last item is placed too
	ready  chan struct{}
}

// placed is the number of the chunk's items its leaves are encoded for.
func (c *chunk) placed() int {
	if c.final {
		return c.len()
	}
	return c.len() - 1
}

// add appends a key and its value to a chunk of chunkSize keys; shared is
// the number of nibbles the key shares with the chunk's key before it,
// unless it is the chunk's first.
// The producer finds it anyway, checking the order of the keys, so the
// worker need not compare them again.
func (c *chunk) add(key, value []byte, shared, chunkSize int) {
	if cap(c.leaves.encodings) == 0 {
		// Sized from the first key and value, as a Builder's chunk is:
		// keys and values of the same sizes fill it without growing it.
		// A long first value says little of the values after it, so the
		// size it gives is capped; longer ones grow the buffer.
		leaf := min(leafRoom(len(key), len(value))+len(value), maxPresizedLeaf)
		c.leaves.encodings = make([]byte, 0, (chunkSize+1)*leaf)
	}
	if n := len(c.leaves.slots); n > 0 {
		c.leaves.slots[n-1].sharedWithNext = int16(shared)
	}
	c.leaves.addKey(key)
	c.leaves.addValue(value)
}

// len is the number of the chunk's items.
func (c *chunk) len() int { return len(c.leaves.slots) }

// recycle empties the chunk for the next keys.
func (c *chunk) recycle() {
	c.leaves.reset()
	c.final = false
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
	// A zero ParallelBuilder gets NewParallelBuilder's defaults: with no
	// workers nothing would encode its chunks and Update would wait for
	// ever, and with a chunk size of 0 Update would cut a chunk before its
	// first key, indexing the key before it.
	if p.workers <= 0 {
		p.workers = runtime.GOMAXPROCS(0)
	}
	if p.chunkSize <= 0 {
		p.chunkSize = parallelChunk
	}
	inFlight := chunksInFlight(p.workers)
	for len(p.chunks) < inFlight {
		p.chunks = append(p.chunks, &chunk{ready: make(chan struct{}, 1)})
	}
	run := &pipeline{
		free:    make(chan *chunk, inFlight),
		work:    make(chan *chunk, inFlight),
		ordered: make(chan *chunk, inFlight),
		result:  make(chan [32]byte, 1),
	}
	for _, c := range p.chunks {
		c.recycle()
		c.leaves.keepEncodings = p.onNode != nil
		run.free <- c
	}
	for range p.workers {
		go encodeChunks(run)
	}
	go placeChunks(run, p.onNode)
	p.run = run
	p.stopWhenDropped = runtime.AddCleanup(p, (*pipeline).drop, run)
	p.cur = <-run.free
	p.cur.before = -1
}

// encodeChunks is a worker: it runs the batch stage on each chunk it is
// handed.
func encodeChunks(run *pipeline) {
	for c := range run.work {
		if !run.dropped.Load() {
			c.leaves.encodeChunk(c.placed(), c.before)
		}
		c.ready <- struct{}{}
	}
}

// placeChunks is the placer: it takes the chunks in order, waits for the
// batch stage to finish each, and feeds them to a streaming core.
func placeChunks(run *pipeline, onNode NodeFunc) {
	core := streamCore{sink: nodeSink{onNode: onNode}}
	sawKeys := false
	for c := range run.ordered {
		<-c.ready
		if run.dropped.Load() {
			continue
		}
		if c.len() > 0 {
			sawKeys = true
			c.leaves.feed(&core, c.placed(), c.final)
		}
		if c.final {
			if sawKeys {
				run.result <- core.finish().data
			} else {
				run.result <- EmptyRoot
			}
			continue
		}
		c.recycle()
		run.free <- c
	}
}

// dispatch hands the filled chunk to a worker and the placer.
func (p *ParallelBuilder) dispatch(final bool) {
	c := p.cur
	c.final = final
	p.run.ordered <- c
	p.run.work <- c
}

// Update adds a key and its value, as Builder.Update does, with the same
// rules and errors; both slices are copied.
func (p *ParallelBuilder) Update(key, value []byte) error {
	if err := checkUpdate(p.hashed, key, value); err != nil {
		return err
	}
	shared := -1
	if p.run == nil {
		p.start()
	} else {
		var ascending bool
		if shared, ascending = compareKeys(p.prev, key); !ascending {
			return orderError(p.prev, key)
		}
	}
	p.cur.add(key, value, shared, p.chunkSize)
	p.prev = p.cur.leaves.key(p.cur.len() - 1)
	if p.cur.len() > p.chunkSize {
		// The chunk's last key moves on to the next chunk, where the key
		// after it decides its leaf.
		// Copy it before the full chunk is handed over: from then on the
		// placer may recycle it.
		full := p.cur
		n := full.len()
		next := <-p.run.free
		next.before = int(full.leaves.slots[n-2].sharedWithNext)
		next.add(full.leaves.key(n-1), full.leaves.value(n-1), -1, p.chunkSize)
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
	if p.run == nil {
		p.root = EmptyRoot
		return p.root
	}
	p.dispatch(true)
	p.root = <-p.run.result
	p.stop()
	return p.root
}

// stop ends the goroutines of the current trie, once it is finished.
func (p *ParallelBuilder) stop() {
	p.stopWhenDropped.Stop()
	p.run.stop()
	p.run = nil
	p.cur, p.prev = nil, nil
}

// Reset empties the ParallelBuilder for a new trie. A trie left unfinished
// is finished and dropped first, so no goroutine outlives it: onNode sees
// the rest of that trie's nodes, its root included, before Reset returns
// (a Builder's Reset reports nothing). A caller that stores nodes and
// abandons a trie should tell its onNode to drop them first.
func (p *ParallelBuilder) Reset() {
	if p.run != nil {
		p.dispatch(true)
		<-p.run.result
		p.stop()
	}
	p.hashed = false
}

package triehash

import (
	"fmt"
	"unsafe"

	"github.com/keccakroot/keccakroot/internal/prefetch"
)

// readAhead is how many keys ahead of the one being added UpdateBatch asks
// the core for a key's and a value's lines: far enough that a line from
// main memory (100 ns and more) arrives before the key is reached, at some
// tens of nanoseconds a key, and near enough that the lines asked for are
// still in the first-level cache when they are used.
const readAhead = 16

// UpdateBatch adds keys[i] and values[i] for every i in order, with the
// same result, rules and errors as a loop of Update, while asking the core
// for the memory of the keys and values a few ahead of the one being added:
// a caller whose keys and values are separate heap objects (decoded one by
// one, or the entries of a map sorted) otherwise makes every key and value a
// cache miss the build waits for. Slices of different lengths are an
// ErrLengthMismatch before anything is added; the error of keys[i] names i,
// and the keys before it stay added.
func (b *Builder) UpdateBatch(keys, values [][]byte) error {
	return updateBatch(keys, values, b)
}

// UpdateBatch adds keys[i] and values[i] for every i in order, as
// Builder.UpdateBatch does, with the same read-ahead.
func (p *ParallelBuilder) UpdateBatch(keys, values [][]byte) error {
	return updateBatch(keys, values, p)
}

// pairUpdater is what UpdateBatch feeds: a Builder or a ParallelBuilder.
// updateBatch and updateAhead take it as a type parameter, not as a
// function value: called through a method value, each pair went through
// a closure and a wrapper before Update, a few percent of a build from
// input already in the caches (see docs/performance.md).
type pairUpdater interface {
	Update(key, value []byte) error
}

// updateBatch calls u.Update for every pair in order, asking for the lines
// of the pair readAhead ahead first.
func updateBatch[U pairUpdater](keys, values [][]byte, u U) error {
	if len(keys) != len(values) {
		return fmt.Errorf("%w: UpdateBatch with %d keys and %d values", ErrLengthMismatch, len(keys), len(values))
	}
	if i, err := updateAhead(keys, values, nil, u); err != nil {
		return fmt.Errorf("triehash: UpdateBatch key %d: %w", i, err)
	}
	return nil
}

// updateAhead calls u.Update for keys[order[k]] and values[order[k]] for
// every k in order (keys and values in order when order is nil), asking for
// the lines of the pair readAhead ahead before each call. It returns the
// index into keys of the pair that failed and its error.
func updateAhead[U pairUpdater](keys, values [][]byte, order []int, u U) (int, error) {
	n := len(keys)
	if order != nil {
		n = len(order)
	}
	var ahead pairAhead
	for k := -readAhead; k < n; k++ {
		if j := k + readAhead; j < n {
			if order != nil {
				j = order[j]
			}
			ahead.ask(keys[j], values[j])
		}
		if k < 0 {
			continue // still asking for the first pairs
		}
		i := k
		if order != nil {
			i = order[k]
		}
		if err := u.Update(keys[i], values[i]); err != nil {
			return i, err
		}
	}
	return -1, nil
}

// pairAhead asks the core for the lines of a key and its value, without
// waiting for them. It keeps the spans it hands prefetch.Lines from one
// pair to the next (building them anew for each pair costs a few percent
// of a build), and where each pair was.
type pairAhead struct {
	spans              [2][]byte
	lastKey, lastValue uintptr
}

// nearAhead is how far after the pair asked for before a pair may begin
// for ask to leave it to the core: pairs that follow one another in one
// buffer, as a caller's sorted keys and values often do, are a stream the
// core's own prefetcher follows, and asking for them again only costs the
// call (about 4% of a Builder's build from such input).
const nearAhead = 512

// ask asks for the lines of key and value, unless both begin less than
// nearAhead bytes after the last pair's. The addresses are only compared,
// never followed: a stale one (memory freed, a stack moved) can only cost
// or save one request for lines.
func (p *pairAhead) ask(key, value []byte) {
	k, v := uintptr(unsafe.Pointer(unsafe.SliceData(key))), uintptr(unsafe.Pointer(unsafe.SliceData(value)))
	// Unsigned: a pair before the last one is far too.
	near := k-p.lastKey < nearAhead && v-p.lastValue < nearAhead
	p.lastKey, p.lastValue = k, v
	if near {
		return
	}
	p.spans[0], p.spans[1] = key, value
	prefetch.Lines(p.spans[:])
}

// askPair asks for the lines of keys[j] and values[j] as ask does, if
// there is a pair j; values may be nil (keys alone, as for Prefetch).
func (p *pairAhead) askPair(keys, values [][]byte, j int) {
	if j >= len(keys) {
		return
	}
	var value []byte
	if values != nil {
		value = values[j]
	}
	p.ask(keys[j], value)
}

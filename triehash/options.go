package triehash

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Options set how Root, SecureRoot, StorageRoot and StateRoot run. The zero
// value uses GOMAXPROCS goroutines and reports no nodes.
type Options struct {
	// Workers is the number of goroutines to build on: 0 means GOMAXPROCS,
	// 1 builds on the calling goroutine alone.
	Workers int
	// OnNode, if not nil, receives every node stored by hash, as for
	// NewBuilder. With several workers the calls come from several
	// goroutines but never at the same time, and nodes of different
	// subtrees may interleave; the set of nodes, and the root, are the same
	// for every number of workers. A build that fails (a repeated key, say)
	// may have reported nodes of the part it built before the error.
	OnNode NodeFunc
}

// parallelMinKeys is the number of keys below which one goroutine is
// faster than starting workers.
const parallelMinKeys = 4096

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// forChunks calls f on consecutive ranges of [0, n), one per worker, and
// waits for them.
func (o Options) forChunks(n int, f func(lo, hi int)) {
	w := o.workers()
	if w == 1 || n < parallelMinKeys {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for k := range w {
		lo, hi := n*k/w, n*(k+1)/w
		wg.Go(func() { f(lo, hi) })
	}
	wg.Wait()
}

// build returns the root of values[i] at keys[i], keys in any order.
// original(i) names key i in errors (the key before hashing, for the secure
// tries).
//
// Keys are dealt into 16 buckets by their first nibble; each bucket is a
// subtree under one child of the root branch, independent of the others,
// so workers sort and build whole buckets and the root branch is encoded
// from their 16 references at the end. The bucketing is the first pass of
// the sort, so sorting happens in parallel too.
func (o Options) build(keys, values [][]byte, original func(i int) []byte) ([32]byte, error) {
	workers := o.workers()
	if workers == 1 || len(keys) < parallelMinKeys {
		return o.buildSequential(keys, values, sortedOrder(keys, nil), original)
	}
	var counts [17]int // by first nibble, then keys too short to have one
	for _, k := range keys {
		counts[bucketOf(k)]++
	}
	if counts[16] > 0 || nonEmpty(counts[:16]) < 2 {
		// An empty key sits in the root branch itself, and keys that all
		// share their first nibble have no root branch to split: both are
		// rare enough to build on one goroutine.
		return o.buildSequential(keys, values, sortedOrder(keys, nil), original)
	}
	var starts [17]int
	for b := range 16 {
		starts[b+1] = starts[b] + counts[b]
	}
	grouped := make([]int, len(keys))
	next := starts
	for i, k := range keys {
		b := bucketOf(k)
		grouped[next[b]] = i
		next[b]++
	}

	onNode := o.OnNode
	if onNode != nil {
		var mu sync.Mutex
		onNode = func(path []byte, hash [32]byte, blob []byte) {
			mu.Lock()
			defer mu.Unlock()
			o.OnNode(path, hash, blob)
		}
	}
	var (
		root    branch
		errs    [16]error
		claimed atomic.Int32
		wg      sync.WaitGroup
	)
	for range min(workers, 16) {
		wg.Go(func() {
			b := newBuilder(onNode, 1)
			for {
				bucket := int(claimed.Add(1) - 1)
				if bucket >= 16 {
					return
				}
				order := grouped[starts[bucket]:starts[bucket+1]]
				if len(order) == 0 {
					continue
				}
				sortedOrder(keys, order)
				b.Reset()
				if i, err := updateAhead(keys, values, order, b); err != nil {
					errs[bucket] = withOriginalKey(err, keys[i], original(i))
				}
				if errs[bucket] == nil {
					root.children[bucket] = b.finish()
				}
			}
		})
	}
	wg.Wait()
	for bucket, err := range errs {
		if err != nil {
			return [32]byte{}, err
		}
		if counts[bucket] > 0 {
			root.childMask |= 1 << bucket
		}
	}
	top := nodeSink{onNode: onNode}
	var r ref
	top.commitNow(appendBranch(nil, &root), nil, 0, &r)
	return r.data, nil
}

// buildSequential builds on the calling goroutine from keys in the given
// ascending order.
func (o Options) buildSequential(keys, values [][]byte, order []int, original func(i int) []byte) ([32]byte, error) {
	b := Builder{core: streamCore{sink: nodeSink{onNode: o.OnNode}}}
	if i, err := updateAhead(keys, values, order, &b); err != nil {
		return [32]byte{}, withOriginalKey(err, keys[i], original(i))
	}
	return b.Hash(), nil
}

// bucketOf returns a key's first nibble, or 16 for the empty key.
func bucketOf(k []byte) int {
	if len(k) == 0 {
		return 16
	}
	return int(k[0] >> 4)
}

func nonEmpty(counts []int) int {
	n := 0
	for _, c := range counts {
		if c > 0 {
			n++
		}
	}
	return n
}

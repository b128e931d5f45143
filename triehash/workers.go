package triehash

import (
	"sync"
	"sync/atomic"
)

// onWorkers calls fn for each of a branch's 16 child nibbles, on workers
// goroutines that each take the next nibble when done with one, and
// returns when all are done; with one worker, on the calling goroutine.
func onWorkers(workers int, fn func(nib int)) {
	shareOut(workers, 16, func(next func() (int, bool)) {
		for nib, ok := next(); ok; nib, ok = next() {
			fn(nib)
		}
	})
}

// shareOut runs work on min(workers, items) goroutines (on the calling
// goroutine if that is one) and returns when all are done. Each work call
// takes the items 0 to items-1 that it does from next, one at a time, until
// next reports none left: a goroutine whose items take longer does fewer.
func shareOut(workers, items int, work func(next func() (int, bool))) {
	var taken atomic.Int32
	next := func() (int, bool) {
		i := int(taken.Add(1) - 1)
		return i, i < items
	}
	if workers = min(workers, items); workers <= 1 {
		work(next)
		return
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { work(next) })
	}
	wg.Wait()
}

package triehash

import (
	"runtime"
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

// shareOut runs work on min(workers, items) goroutines, the calling one
// among them, and returns when all are done. Each work call takes the
// items 0 to items-1 that it does from next, one at a time, until next
// reports none left: a goroutine whose items take longer does fewer, and
// one that starts late, as a goroutine woken on an idle core can, above
// all on a virtual machine, does fewer too, without holding up the others.
func shareOut(workers, items int, work func(next func() (int, bool))) {
	shareOutAfter(workers, items, nil, work)
}

// shareOutAfter is shareOut with a first step: it starts the other
// goroutines, runs first (if not nil) on the calling goroutine while they
// wake up, and only then lets any of them call work. A serial step that
// prepares the items thus hides the time it takes to wake idle cores.
//
// It waits only for the goroutines that began work before the calling one
// ran out of items: one that runs only after that, as a goroutine woken on
// an idle core of a virtual machine can, hundreds of microseconds later,
// finds nothing to do and returns without calling work, and the caller
// does not wait for it to wake.
func shareOutAfter(workers, items int, first func(), work func(next func() (int, bool))) {
	var taken atomic.Int32
	next := func() (int, bool) {
		i := int(taken.Add(1) - 1)
		return i, i < items
	}
	if workers = min(workers, items); workers <= 1 {
		if first != nil {
			first()
		}
		work(next)
		return
	}
	var gate atomic.Int32 // gateClosed until first is done, then gateOpen
	var (
		mu      sync.Mutex
		late    bool           // the caller ran out of items: no goroutine may begin
		working sync.WaitGroup // the goroutines that began work
	)
	for range workers - 1 {
		go func() {
			for gate.Load() == gateClosed {
				runtime.Gosched()
			}
			if gate.Load() != gateOpen {
				return
			}
			mu.Lock()
			begin := !late
			if begin {
				working.Add(1)
			}
			mu.Unlock()
			if begin {
				work(next)
				working.Done()
			}
		}()
	}
	func() {
		// A first that panics still releases the other goroutines, with
		// no work, before the panic goes on up.
		state := gateAborted
		defer func() { gate.Store(state) }()
		if first != nil {
			first()
		}
		state = gateOpen
	}()
	work(next)
	// No goroutine adds to working once late is set, so the wait cannot
	// race with an Add.
	mu.Lock()
	late = true
	mu.Unlock()
	working.Wait()
}

// The states of shareOutAfter's gate.
const (
	gateClosed int32 = iota
	gateOpen
	gateAborted
)

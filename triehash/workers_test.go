package triehash

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestShareOutAfter checks that every item is done exactly once, for any
// number of workers and items, and that no work starts before first ends.
func TestShareOutAfter(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		for _, items := range []int{0, 1, 2, 16, subtrees} {
			t.Run(fmt.Sprintf("workers=%d/items=%d", workers, items), func(t *testing.T) {
				done := make([]atomic.Int32, items)
				var firstDone, early atomic.Bool
				first := func() {
					time.Sleep(time.Millisecond) // let the other goroutines reach the gate
					firstDone.Store(true)
				}
				shareOutAfter(workers, items, first, func(next func() (int, bool)) {
					if !firstDone.Load() {
						early.Store(true)
					}
					for i, ok := next(); ok; i, ok = next() {
						done[i].Add(1)
					}
				})
				if early.Load() {
					t.Error("work began before first returned")
				}
				for i := range done {
					if n := done[i].Load(); n != 1 {
						t.Errorf("item %d done %d times", i, n)
					}
				}
			})
		}
	}
}

// TestShareOutAfterPanic checks that a first step that panics lets the
// panic through and releases the other goroutines without work.
func TestShareOutAfterPanic(t *testing.T) {
	before := runtime.NumGoroutine()
	var worked atomic.Bool
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic of first was lost")
			}
		}()
		shareOutAfter(4, 16, func() { panic("first failed") }, func(func() (int, bool)) { worked.Store(true) })
	}()
	if n := goroutinesAbove(before, false); n > 0 {
		t.Errorf("%d goroutines left running after the panic", n)
	}
	if worked.Load() {
		t.Error("work ran after first panicked")
	}
}

// TestGroupLimit checks the size of a worker's groups: hashGroupNodes for
// one worker, and for several a size that never grows as the subtrees are
// taken, never leaves [minHashGroupNodes, hashGroupNodes], and reaches the
// minimum by the last subtree.
func TestGroupLimit(t *testing.T) {
	starts := make([]int32, topBucket+3)
	for b := range starts {
		starts[b] = int32(b * 3) // three nodes a bucket: 13,056 in the subtrees
	}
	for s := range subtrees {
		if got := groupLimit(starts, s, 1); got != hashGroupNodes {
			t.Fatalf("one worker, subtree %d: limit %d, want %d", s, got, hashGroupNodes)
		}
	}
	for _, workers := range []int{2, 8} {
		prev := hashGroupNodes
		for s := range subtrees {
			got := groupLimit(starts, s, workers)
			if got > prev || got < minHashGroupNodes || got > hashGroupNodes {
				t.Fatalf("%d workers, subtree %d: limit %d after %d", workers, s, got, prev)
			}
			prev = got
		}
		if prev != minHashGroupNodes {
			t.Errorf("%d workers: last limit %d, want %d", workers, prev, minHashGroupNodes)
		}
	}
	if got := groupLimit(starts, 0, 2); got != hashGroupNodes {
		t.Errorf("2 workers, 13,005 nodes left: limit %d, want %d", got, hashGroupNodes)
	}
}

// TestShareOutAfterLeavesLateWorkers runs shareOutAfter where the other
// goroutines cannot run before the caller has done every item (one
// processor, work that never yields), and checks that it returns without
// waiting for them, and that they, when they run, do no work.
func TestShareOutAfterLeavesLateWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	before := runtime.NumGoroutine()
	var calls, items atomic.Int32
	shareOutAfter(4, 16, nil, func(next func() (int, bool)) {
		calls.Add(1)
		for _, ok := next(); ok; _, ok = next() {
			items.Add(1)
		}
	})
	if n := calls.Load(); n != 1 {
		t.Fatalf("work was called %d times before shareOutAfter returned, want once, by the caller", n)
	}
	if n := goroutinesAbove(before, false); n > 0 {
		t.Errorf("%d goroutines left running", n)
	}
	if n, done := calls.Load(), items.Load(); n != 1 || done != 16 {
		t.Errorf("work called %d times in all and %d items done, want once and 16", n, done)
	}
}

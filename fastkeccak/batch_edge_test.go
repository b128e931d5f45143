//go:build linux

package fastkeccak

import (
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// guardedPage returns a page of memory followed by one that faults on any
// access, for reads up to a buffer's end to be checked: a kernel that reads
// one byte past a message that ends at the page's end crashes the test.
func guardedPage(t *testing.T) []byte {
	t.Helper()
	size := unix.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 2*size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { _ = unix.Munmap(mem) })
	if err := unix.Mprotect(mem[size:], unix.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	return mem[:size:size]
}

// TestSum256BatchPageEdge hashes, with every batch kernel, batches of
// messages that each end at the last byte before an inaccessible page,
// every length from 0 to 3 blocks, along with empty and nil messages: a
// kernel that reads past a message (a whole block, a whole vector) faults.
func TestSum256BatchPageEdge(t *testing.T) {
	page := guardedPage(t)
	for i := range page {
		page[i] = byte(i*13 + 7)
	}
	forEachBatchKernel(t, func(t *testing.T, id batchKernelID) {
		for size := 0; size <= 3*rate; size++ {
			edge := page[len(page)-size:]
			for _, n := range []int{1, 3, 8, 9, 16, 19} {
				msgs := make([][]byte, n)
				for i := range msgs {
					switch i % 4 {
					case 1:
						msgs[i] = nil
					case 2:
						msgs[i] = page[len(page):]
					default:
						msgs[i] = edge
					}
				}
				out := make([][32]byte, n)
				Sum256Batch(out, msgs)
				checkBatch(t, fmt.Sprintf("%d messages of %d bytes at a page's end", n, size), out, msgs)
			}
		}
	})
}

// TestSum256BatchPageEdgeMixed hashes, with every batch kernel, batches in
// which one message of every length up to a page ends at the last byte
// before an inaccessible page while the messages beside it are longer (up
// to the most blocks one call of a kernel takes) or shorter: a kernel that
// goes on reading a message once it is done, or reads past its last
// block, faults.
func TestSum256BatchPageEdgeMixed(t *testing.T) {
	page := guardedPage(t)
	for i := range page {
		page[i] = byte(i*11 + 3)
	}
	other := make([]byte, maxBatchBlocks*rate)
	for i := range other {
		other[i] = byte(i*5 + 1)
	}
	step := 1
	if testing.Short() {
		step = 7
	}
	forEachBatchKernel(t, func(t *testing.T, id batchKernelID) {
		for size := 0; size <= len(page); size += step {
			edge := page[len(page)-size:]
			for _, n := range []int{3, 8, 11} {
				msgs := make([][]byte, n)
				for i := range msgs {
					switch i % 3 {
					case 0:
						msgs[i] = edge
					case 1:
						msgs[i] = other[:len(other)-1-i] // 32 blocks
					default:
						msgs[i] = other[:(size*3+i)%(4*rate)]
					}
				}
				out := make([][32]byte, n)
				Sum256Batch(out, msgs)
				checkBatch(t, fmt.Sprintf("%d messages, %d bytes at a page's end", n, size), out, msgs)
			}
		}
	})
}

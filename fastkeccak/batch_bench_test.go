package fastkeccak

import (
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// The batch benchmarks put Sum256Batch beside a loop of Sum256 and a loop
// of go-ethereum's crypto.Keccak256Hash in one run, with names benchstat
// can pair (BenchmarkSum256Batch/msgs=64/size=135/impl=batch and so on).
// MB/s counts message bytes; ns/op is for the whole batch. Every
// sub-benchmark checks all its digests against x/crypto's, computed before
// the timer starts.

// batchBenchInput returns count distinct messages of size bytes, cut at
// different offsets of one buffer, and their digests from x/crypto.
func batchBenchInput(count, size int) (msgs [][]byte, want [][32]byte) {
	buf := benchMessage(size + count)
	msgs = make([][]byte, count)
	want = make([][32]byte, count)
	for i := range msgs {
		msgs[i] = buf[i : i+size]
		copy(want[i][:], referenceDigest(msgs[i], 32))
	}
	return msgs, want
}

func checkBatchDigests(b *testing.B, got, want [][32]byte) {
	b.Helper()
	for i := range want {
		if got[i] != want[i] {
			b.Fatalf("message %d: digest %x, want %x", i, got[i], want[i])
		}
	}
}

func BenchmarkSum256Batch(b *testing.B) {
	for _, count := range []int{8, 64, 1024} {
		for _, size := range []int{32, 100, 135, 136, 532} {
			msgs, want := batchBenchInput(count, size)
			name := fmt.Sprintf("msgs=%d/size=%d/impl=", count, size)
			b.Run(name+"batch", func(b *testing.B) {
				b.SetBytes(int64(count * size))
				b.ReportAllocs()
				out := make([][32]byte, count)
				for b.Loop() {
					Sum256Batch(out, msgs)
				}
				checkBatchDigests(b, out, want)
			})
			b.Run(name+"sum256-loop", func(b *testing.B) {
				b.SetBytes(int64(count * size))
				b.ReportAllocs()
				out := make([][32]byte, count)
				for b.Loop() {
					for i, m := range msgs {
						out[i] = Sum256(m)
					}
				}
				checkBatchDigests(b, out, want)
			})
			b.Run(name+"go-ethereum", func(b *testing.B) {
				b.SetBytes(int64(count * size))
				b.ReportAllocs()
				out := make([][32]byte, count)
				for b.Loop() {
					for i, m := range msgs {
						out[i] = crypto.Keccak256Hash(m)
					}
				}
				checkBatchDigests(b, out, want)
			})
		}
	}
}

// BenchmarkSum256Short is the lower-level entry on the small batches
// triehash makes (a branch node's children, a few dozen nodes at most),
// next to Sum256Batch and the Sum256 loop: it shows from which batch size
// the kernel pays, idle lanes and all.
func BenchmarkSum256Short(b *testing.B) {
	const size = 100
	for _, count := range []int{1, 2, 3, 4, 5, 6, 8, 12, 16, 17, 20, 32, 40} {
		msgs, want := batchBenchInput(count, size)
		name := fmt.Sprintf("msgs=%d/size=%d/impl=", count, size)
		b.Run(name+"short", func(b *testing.B) {
			b.SetBytes(int64(count * size))
			b.ReportAllocs()
			out := make([][32]byte, count)
			for b.Loop() {
				sum256Short(out, msgs)
			}
			checkBatchDigests(b, out, want)
		})
		b.Run(name+"batch", func(b *testing.B) {
			b.SetBytes(int64(count * size))
			b.ReportAllocs()
			out := make([][32]byte, count)
			for b.Loop() {
				Sum256Batch(out, msgs)
			}
			checkBatchDigests(b, out, want)
		})
		b.Run(name+"sum256-loop", func(b *testing.B) {
			b.SetBytes(int64(count * size))
			b.ReportAllocs()
			out := make([][32]byte, count)
			for b.Loop() {
				for i, m := range msgs {
					out[i] = Sum256(m)
				}
			}
			checkBatchDigests(b, out, want)
		})
	}
}

// BenchmarkBatchKernels runs Sum256Batch with each batch kernel the CPU
// has, forced in turn, on 64 single-block messages (100 bytes, an account
// leaf's size, and 135, the most one block holds) and on 64 messages of
// four blocks: the measurement behind the choice of the default kernel.
// impl=loop is the Sum256 loop.
func BenchmarkBatchKernels(b *testing.B) {
	for _, size := range []int{100, 135, 532} {
		const count = 64
		msgs, want := batchBenchInput(count, size)
		for _, id := range builtBatchKernels() {
			b.Run(fmt.Sprintf("msgs=%d/size=%d/impl=%s", count, size, id), func(b *testing.B) {
				requireBatch(b, id)
				useBatch(b, id)
				b.SetBytes(int64(count * size))
				out := make([][32]byte, count)
				for b.Loop() {
					Sum256Batch(out, msgs)
				}
				checkBatchDigests(b, out, want)
			})
		}
	}
}

// BenchmarkBatchKernelCall times one call of each batch kernel absorbing
// one block into every lane (ns/op is per call, for width states), next
// to the single-state kernel in use absorbing one block (impl=single):
// their ratio sets batchSolo.
func BenchmarkBatchKernelCall(b *testing.B) {
	block := benchMessage(maxBatchBlocks * rate)
	for _, blocks := range []int{1, maxBatchBlocks} {
		for _, id := range assemblyBatchKernels() {
			b.Run(fmt.Sprintf("blocks=%d/impl=%s", blocks, id), func(b *testing.B) {
				requireBatch(b, id)
				var l batchLanes
				for j := range l.p {
					l.p[j] = &block[0]
				}
				b.SetBytes(int64(id.width() * blocks * rate))
				for b.Loop() {
					batchAbsorb(id, &l, 0, blocks)
				}
				// The check, outside the timed loop: one call from
				// cleared states.
				batchAbsorb(id, &l, 1<<id.width()-1, blocks)
				var want [25]uint64
				absorbGeneric(&want, block[:blocks*rate])
				for j := range id.width() {
					if got := l.a[j]; got != want[0] {
						b.Fatalf("state %d lane 0: %#x, want %#x", j, got, want[0])
					}
				}
			})
		}
		b.Run(fmt.Sprintf("blocks=%d/impl=single", blocks), func(b *testing.B) {
			var a [25]uint64
			b.SetBytes(int64(blocks * rate))
			for b.Loop() {
				absorb(&a, block[:blocks*rate])
			}
			var got, want [25]uint64
			absorb(&got, block[:blocks*rate])
			absorbGeneric(&want, block[:blocks*rate])
			checkState(b, &got, &want)
		})
	}
}

// BenchmarkSum256BatchMixed hashes batches that mix lengths as a trie's
// nodes of one depth do: branches of four blocks (532 bytes) among
// leaves and small branches of one (110 bytes), every long=1inN-th
// message a branch, in that order. It reports the time per absorbed
// block, to set against the kernel's own (BenchmarkBatchKernelCall): the
// difference is the lanes left idle while the lanes beside them finish
// longer messages.
func BenchmarkSum256BatchMixed(b *testing.B) {
	for _, count := range []int{16, 64} {
		for _, stride := range []int{2, 3, 5} {
			buf := benchMessage(532 + count)
			msgs := make([][]byte, count)
			want := make([][32]byte, count)
			blocks := 0
			for i := range msgs {
				size := 110
				if i%stride == 0 {
					size = 532
				}
				msgs[i] = buf[i : i+size]
				copy(want[i][:], referenceDigest(msgs[i], 32))
				blocks += size/rate + 1
			}
			b.Run(fmt.Sprintf("msgs=%d/long=1in%d", count, stride), func(b *testing.B) {
				out := make([][32]byte, count)
				for b.Loop() {
					Sum256Batch(out, msgs)
				}
				checkBatchDigests(b, out, want)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*blocks), "ns/block")
			})
		}
	}
}

// BenchmarkSum256BatchGroups hashes the small batches of trie nodes that a
// Builder's queue of branches hands to Sum256Batch, eight nodes or fewer
// of different lengths: branches of three and four blocks (400 and 532
// bytes) beside a short branch or an extension of one. Batches of eight
// or fewer messages, some of more than one block, are where the
// any-length kernel replaces the driver around the block kernel.
func BenchmarkSum256BatchGroups(b *testing.B) {
	for _, c := range []struct {
		name  string
		sizes []int
	}{
		{"branches-and-nodes", []int{532, 400, 400, 371, 110, 400, 532, 82}},
		{"three-blocks", []int{400, 400, 400, 400, 400, 400, 400, 400}},
		{"four-blocks", []int{532, 532, 532, 532, 532, 532, 532, 532}},
		{"six-messages", []int{532, 400, 110, 110, 110, 400}},
	} {
		buf := benchMessage(4096)
		msgs := make([][]byte, len(c.sizes))
		want := make([][32]byte, len(c.sizes))
		for i, size := range c.sizes {
			msgs[i] = buf[37*i : 37*i+size]
			copy(want[i][:], referenceDigest(msgs[i], 32))
		}
		b.Run(c.name, func(b *testing.B) {
			out := make([][32]byte, len(msgs))
			for b.Loop() {
				Sum256Batch(out, msgs)
			}
			checkBatchDigests(b, out, want)
		})
	}
}

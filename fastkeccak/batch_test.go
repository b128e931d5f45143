package fastkeccak

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keccakroot/keccakroot/internal/kernels"
)

// useBatch makes id the active batch kernel for the rest of the test.
func useBatch(tb testing.TB, id batchKernelID) {
	tb.Helper()
	prev := activeBatch
	activeBatch = id
	tb.Cleanup(func() { activeBatch = prev })
}

// forEachBatchKernel runs f once per batch kernel of this build, each forced
// in turn in its own subtest; the subtest of a kernel this CPU cannot run is
// skipped with its name.
func forEachBatchKernel(t *testing.T, f func(t *testing.T, id batchKernelID)) {
	t.Helper()
	for _, id := range builtBatchKernels() {
		t.Run("batch="+id.String(), func(t *testing.T) {
			requireBatch(t, id)
			useBatch(t, id)
			f(t, id)
		})
	}
}

// requireBatch skips the test, naming the kernel, if this CPU cannot run
// batch kernel id.
func requireBatch(tb testing.TB, id batchKernelID) {
	tb.Helper()
	requireKernel(tb, kernels.Batch, "batch kernel", id.String())
}

// assemblyBatchKernels are the batch kernels of this build that run lanes
// in assembly, every one but the loop, whether this CPU runs them or not:
// each caller skips, by name, those it cannot run (see requireBatch).
func assemblyBatchKernels() []batchKernelID {
	var ids []batchKernelID
	for _, id := range builtBatchKernels() {
		if id != batchLoop {
			ids = append(ids, id)
		}
	}
	return ids
}

func TestBatchKernelNames(t *testing.T) {
	available := availableBatchKernels()
	if !slices.Contains(available, batchLoop) {
		t.Fatalf("loop missing from %v", available)
	}
	t.Logf("batch kernel %s, width %d; available: %v", activeBatch, BatchWidth(), available)
	if BatchWidth() != activeBatch.inPlaceWidth() {
		t.Errorf("BatchWidth() = %d for %s", BatchWidth(), activeBatch)
	}
	for _, id := range available {
		if got, err := chooseBatch(id.String()); got != id || err != nil {
			t.Errorf("chooseBatch(%q) = %v, %v", id.String(), got, err)
		}
		if w := id.width(); w < 1 || w > maxBatchWidth {
			t.Errorf("%s has width %d", id, w)
		}
	}
	got, err := chooseBatch("no-such-kernel")
	if got != available[0] {
		t.Errorf("unknown override chose %v, want the default %v", got, available[0])
	}
	if err == nil || !strings.Contains(err.Error(), `"no-such-kernel"`) || !strings.Contains(err.Error(), available[0].String()) {
		t.Errorf("unknown override: error %v, want one naming it and the default %v", err, available[0])
	}
	if got, err := chooseBatch(""); got != available[0] || err != nil {
		t.Errorf("empty override chose %v, %v; want the default %v", got, err, available[0])
	}
}

// TestBatchEnvironment checks that KECCAKROOT_BATCH is honoured at start-up,
// by running this test binary again with it set.
func TestBatchEnvironment(t *testing.T) {
	if want := os.Getenv("FASTKECCAK_WANT_BATCH"); want != "" {
		if activeBatch.String() != want {
			t.Fatalf("KECCAKROOT_BATCH=%s gave %s", os.Getenv("KECCAKROOT_BATCH"), activeBatch)
		}
		return
	}
	if testing.Short() {
		t.Skip("starts a subprocess per batch kernel")
	}
	logMissingKernels(t, kernels.Batch, "batch kernel")
	for _, id := range availableBatchKernels() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBatchEnvironment$")
		cmd.Env = append(os.Environ(), "KECCAKROOT_BATCH="+id.String(), "FASTKECCAK_WANT_BATCH="+id.String())
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS") || strings.Contains(string(out), "fastkeccak:") {
			t.Errorf("batch kernel %s: %v\n%s", id, err, out)
		}
	}
	// A name the CPU cannot run keeps the default, and says so.
	cmd := exec.Command(os.Args[0], "-test.run=^TestBatchEnvironment$")
	cmd.Env = append(os.Environ(), "KECCAKROOT_BATCH=no-such-kernel", "FASTKECCAK_WANT_BATCH="+availableBatchKernels()[0].String())
	out, err := cmd.CombinedOutput()
	if warning := `fastkeccak: KECCAKROOT_BATCH="no-such-kernel" is not a kernel this CPU runs`; err != nil || !strings.Contains(string(out), "PASS") || !strings.Contains(string(out), warning) {
		t.Errorf("KECCAKROOT_BATCH=no-such-kernel: %v, want the default and the warning\n%s", err, out)
	}
}

// TestBatchKernelDirect calls each assembly batch kernel through
// batchAbsorb, from random states with random blocks at random (unaligned)
// addresses and random fresh masks, and checks every state against
// XOR-then-referenceKeccakF1600. It also checks that the kernel leaves its
// input and its pointer array alone.
func TestBatchKernelDirect(t *testing.T) {
	ids := assemblyBatchKernels()
	if len(ids) == 0 {
		t.Skip("this build has no assembly batch kernel")
	}
	for _, id := range ids {
		t.Run(id.String(), func(t *testing.T) {
			requireBatch(t, id)
			w := id.width()
			rng := rand.New(rand.NewPCG(7, uint64(id)))
			iterations := 300
			if testing.Short() {
				iterations = 40
			}
			for iter := range iterations {
				nblocks := rng.IntN(4)
				if iter%50 == 49 {
					nblocks = maxBatchBlocks
				}
				var l batchLanes
				var want [maxBatchWidth][25]uint64
				bufs := make([][]byte, w)
				for j := range w {
					want[j] = randomBatchState(rng)
					for i := range 25 {
						l.a[w*i+j] = want[j][i]
					}
					off := rng.IntN(16)
					buf := make([]byte, off+nblocks*rate+1)
					for k := range buf {
						buf[k] = byte(rng.Uint32())
					}
					bufs[j] = buf
					l.p[j] = &buf[off]
				}
				saved := make([][]byte, w)
				for j := range w {
					saved[j] = bytes.Clone(bufs[j])
				}
				var ptrs [maxBatchWidth]*byte
				copy(ptrs[:], l.p[:])
				fresh := rng.Uint64() & (1<<w - 1)
				if iter%7 == 0 {
					fresh = 0
				}
				batchAbsorb(id, &l, fresh, nblocks)

				for j := range w {
					if fresh&(1<<j) != 0 {
						want[j] = [25]uint64{}
					}
					off := len(bufs[j]) - nblocks*rate - 1
					for k := range nblocks {
						xorBatchBlock(&want[j], bufs[j][off+k*rate:])
						referenceKeccakF1600(&want[j])
					}
					var got [25]uint64
					for i := range 25 {
						got[i] = l.a[w*i+j]
					}
					if got != want[j] {
						t.Fatalf("iteration %d, state %d, %d blocks, fresh %#x:\n got %#x\nwant %#x",
							iter, j, nblocks, fresh, got, want[j])
					}
					if !bytes.Equal(bufs[j], saved[j]) {
						t.Fatalf("iteration %d: the kernel wrote to its input", iter)
					}
				}
				if l.p != ptrs {
					t.Fatalf("iteration %d: the kernel changed its pointers", iter)
				}
				for k := 25 * w; k < len(l.a); k++ {
					if l.a[k] != 0 {
						t.Fatalf("iteration %d: the kernel wrote past its %d states", iter, w)
					}
				}
			}
		})
	}
}

// TestBatchKernelSharedPointers gives every lane the same input, as an
// idle lane shares a busy one's, and checks that all states come out
// equal to the single-state permutation.
func TestBatchKernelSharedPointers(t *testing.T) {
	for _, id := range assemblyBatchKernels() {
		t.Run(id.String(), func(t *testing.T) {
			requireBatch(t, id)
			w := id.width()
			msg := make([]byte, 3*rate)
			for i := range msg {
				msg[i] = byte(i * 13)
			}
			var l batchLanes
			for j := range w {
				l.p[j] = &msg[0]
				for i := range 25 {
					l.a[w*i+j] = uint64(j+1) * 0x9E3779B97F4A7C15 // cleared by fresh
				}
			}
			batchAbsorb(id, &l, 1<<w-1, 3)
			var want [25]uint64
			absorbGeneric(&want, msg)
			for j := range w {
				for i := range 25 {
					if l.a[w*i+j] != want[i] {
						t.Fatalf("state %d lane %d: %#x, want %#x", j, i, l.a[w*i+j], want[i])
					}
				}
			}
		})
	}
}

func randomBatchState(rng *rand.Rand) (a [25]uint64) {
	for i := range a {
		a[i] = rng.Uint64()
	}
	return a
}

// xorBatchBlock XORs the 136-byte block b into the first 17 lanes of a,
// little-endian, byte by byte.
func xorBatchBlock(a *[25]uint64, b []byte) {
	for i := range rate {
		a[i/8] ^= uint64(b[i]) << (8 * (i % 8))
	}
}

// batchBoundaries are the message lengths where the padding changes shape.
var batchBoundaries = []int{0, 1, 7, 8, 31, 32, 33, 134, 135, 136, 137, 271, 272, 273, 407, 408, 543, 544, 680}

// randomBatch returns n messages of 0 to 5 blocks, many at a boundary,
// cut from buf; with alias set, some overlap or repeat others.
func randomBatch(rng *rand.Rand, buf []byte, n int, alias bool) [][]byte {
	msgs := make([][]byte, n)
	for i := range msgs {
		var size int
		if rng.IntN(2) == 0 {
			size = batchBoundaries[rng.IntN(len(batchBoundaries))]
		} else {
			size = rng.IntN(5*rate + 1)
		}
		switch {
		case alias && i > 0 && rng.IntN(4) == 0:
			msgs[i] = msgs[rng.IntN(i)] // the very same slice
		case alias && rng.IntN(3) == 0:
			off := rng.IntN(64) // overlapping windows of one buffer
			msgs[i] = buf[off : off+size]
		default:
			off := rng.IntN(len(buf) - size + 1)
			msgs[i] = buf[off : off+size : off+size]
		}
	}
	return msgs
}

func checkBatch(t *testing.T, what string, out [][32]byte, msgs [][]byte) {
	t.Helper()
	for i, m := range msgs {
		if want := Sum256(m); out[i] != want {
			lens := make([]int, len(msgs))
			for k := range msgs {
				lens[k] = len(msgs[k])
			}
			t.Fatalf("%s: message %d of %d (%d bytes): %x, want %x; lengths %v",
				what, i, len(msgs), len(m), out[i], want, lens)
		}
	}
}

// TestSum256Batch is the main check: every batch kernel, forced in turn,
// against Sum256 on random batches of 0 to 40 messages of 0 to 5 blocks,
// with every length boundary and aliasing messages.
func TestSum256Batch(t *testing.T) {
	buf := make([]byte, 6*rate+64)
	for i := range buf {
		buf[i] = byte(i*31 + 5)
	}
	forEachBatchKernel(t, func(t *testing.T, id batchKernelID) {
		rng := rand.New(rand.NewPCG(11, uint64(id)))
		iterations := 2000
		if testing.Short() {
			iterations = 200
		}
		for iter := range iterations {
			n := rng.IntN(41)
			msgs := randomBatch(rng, buf, n, iter%2 == 1)
			out := make([][32]byte, n)
			Sum256Batch(out, msgs)
			checkBatch(t, fmt.Sprintf("iteration %d", iter), out, msgs)
		}
	})
}

// TestSum256BatchUniform covers batches of one length, the benchmark and
// trie case: every count from 0 to 3 widths and every boundary length.
func TestSum256BatchUniform(t *testing.T) {
	buf := make([]byte, 6*rate)
	for i := range buf {
		buf[i] = byte(i*17 + 1)
	}
	forEachBatchKernel(t, func(t *testing.T, id batchKernelID) {
		for _, size := range batchBoundaries {
			for n := 0; n <= 3*maxBatchWidth+1; n++ {
				msgs := make([][]byte, n)
				for i := range msgs {
					msgs[i] = buf[i%5 : i%5+size]
				}
				out := make([][32]byte, n)
				Sum256Batch(out, msgs)
				checkBatch(t, fmt.Sprintf("%d messages of %d bytes", n, size), out, msgs)
				if size < rate {
					clear(out)
					sum256Short(out, msgs)
					checkBatch(t, fmt.Sprintf("sum256Short, %d messages of %d bytes", n, size), out, msgs)
				}
			}
		}
	})
}

// TestSum256BatchLong mixes messages longer than one kernel call
// (maxBatchBlocks blocks) with short ones, so that lanes are refilled while
// others are in the middle of a message, and the last long message is
// finished on its own.
func TestSum256BatchLong(t *testing.T) {
	long := make([]byte, 3*maxBatchBlocks*rate+77)
	for i := range long {
		long[i] = byte(i*7 + 3)
	}
	forEachBatchKernel(t, func(t *testing.T, id batchKernelID) {
		rng := rand.New(rand.NewPCG(13, uint64(id)))
		for iter := range 30 {
			n := 1 + rng.IntN(20)
			msgs := make([][]byte, n)
			for i := range msgs {
				size := rng.IntN(3 * rate)
				if rng.IntN(4) == 0 {
					size = rng.IntN(len(long) + 1)
				}
				msgs[i] = long[:size]
			}
			out := make([][32]byte, n)
			Sum256Batch(out, msgs)
			checkBatch(t, fmt.Sprintf("iteration %d", iter), out, msgs)
		}
	})
}

// TestSum256Short checks the lower-level entry on random batches of short
// messages, and that it rejects a long one.
func TestSum256Short(t *testing.T) {
	buf := make([]byte, 2*rate)
	for i := range buf {
		buf[i] = byte(i*29 + 11)
	}
	forEachBatchKernel(t, func(t *testing.T, id batchKernelID) {
		rng := rand.New(rand.NewPCG(17, uint64(id)))
		for iter := range 500 {
			n := rng.IntN(41)
			msgs := make([][]byte, n)
			for i := range msgs {
				size := rng.IntN(rate)
				off := rng.IntN(len(buf) - size + 1)
				msgs[i] = buf[off : off+size]
			}
			out := make([][32]byte, n)
			sum256Short(out, msgs)
			checkBatch(t, fmt.Sprintf("iteration %d", iter), out, msgs)
		}
	})
	expectPanic(t, "sum256Short with a 136-byte message", "longer than 135", func() {
		sum256Short(make([][32]byte, 2), [][]byte{nil, buf[:rate]})
	})
}

func expectPanic(t *testing.T, what, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Fatalf("%s did not panic", what)
		}
		if msg := fmt.Sprint(r); !strings.Contains(msg, want) {
			t.Fatalf("%s panicked with %q, want it to mention %q", what, msg, want)
		}
	}()
	f()
}

func TestSum256BatchLengthMismatch(t *testing.T) {
	forEachBatchKernel(t, func(t *testing.T, id batchKernelID) {
		msgs := make([][]byte, 9)
		expectPanic(t, "Sum256Batch", "8 outputs for 9 messages", func() {
			Sum256Batch(make([][32]byte, 8), msgs)
		})
		expectPanic(t, "sum256Short", "10 outputs for 9 messages", func() {
			sum256Short(make([][32]byte, 10), msgs)
		})
		Sum256Batch(nil, nil)
		sum256Short(nil, nil)
	})
}

// TestSum256BatchAllocations checks that a batch of up to the lane width
// (and more) with a caller-provided out allocates nothing.
func TestSum256BatchAllocations(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("instrumented builds allocate")
	}
	msg := make([]byte, 3*rate+5)
	forEachBatchKernel(t, func(t *testing.T, id batchKernelID) {
		for _, n := range []int{1, 2, id.width() - 1, id.width(), id.width() + 1, 3 * maxBatchWidth} {
			if n < 1 {
				continue
			}
			out := make([][32]byte, n)
			mixed := make([][]byte, n)
			short := make([][]byte, n)
			for i := range mixed {
				mixed[i] = msg[:(i*97)%len(msg)]
				short[i] = msg[:(i*31)%rate]
			}
			if a := testing.AllocsPerRun(20, func() { Sum256Batch(out, mixed) }); a != 0 {
				t.Errorf("Sum256Batch of %d mixed messages: %v allocations", n, a)
			}
			if a := testing.AllocsPerRun(20, func() { Sum256Batch(out, short) }); a != 0 {
				t.Errorf("Sum256Batch of %d short messages: %v allocations", n, a)
			}
			if a := testing.AllocsPerRun(20, func() { sum256Short(out, short) }); a != 0 {
				t.Errorf("sum256Short of %d messages: %v allocations", n, a)
			}
		}
	})
}

// FuzzSum256Batch splits the input into messages at lengths taken from its
// first bytes and checks every batch kernel against Sum256.
func FuzzSum256Batch(f *testing.F) {
	logMissingKernels(f, kernels.Batch, "batch kernel")
	f.Add([]byte{})
	f.Add([]byte{3, 0, 1, 2, 3, 4, 5})
	f.Add(append([]byte{8, 135, 0, 136, 0, 137, 0, 0, 0, 1, 0, 255, 1, 16, 1, 8, 2}, bytes.Repeat([]byte{0xA5}, 1200)...))
	f.Add(append([]byte{16}, bytes.Repeat([]byte{135, 0}, 16)...))
	// Twelve messages, seven of 300 to 602 bytes and then ever shorter
	// ones: full groups of multi-block messages, five a call with
	// amd64-avx2x5, and a narrower group after them.
	f.Add(append(append([]byte{12}, bytes.Repeat([]byte{44, 1}, 12)...), bytes.Repeat([]byte{0x5A}, 2400)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		n := int(data[0]) % 41
		data = data[1:]
		msgs := make([][]byte, n)
		for i := range msgs {
			size := 0
			if len(data) >= 2 {
				size = int(data[0]) | int(data[1]&3)<<8
				data = data[2:]
			}
			size = min(size, len(data))
			msgs[i] = data[:size]
			data = data[size/2:] // overlapping messages
		}
		want := make([][32]byte, n)
		for i, m := range msgs {
			want[i] = Sum256(m)
		}
		for _, id := range availableBatchKernels() {
			prev := activeBatch
			activeBatch = id
			out := make([][32]byte, n)
			Sum256Batch(out, msgs)
			activeBatch = prev
			for i := range out {
				if out[i] != want[i] {
					t.Fatalf("%s: message %d (%d bytes): %x, want %x", id, i, len(msgs[i]), out[i], want[i])
				}
			}
		}
	})
}

// TestLongBatchDoesNotStallGC hashes a batch of long messages on one
// goroutine while another forces garbage collections, and checks that most
// stop-the-world pauses stay short: the driver must split the work into
// kernel calls of bounded length, each entered through a stack check.
func TestLongBatchDoesNotStallGC(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes 64 MiB per batch kernel")
	}
	buf := make([]byte, 8<<20+maxBatchWidth)
	msgs := make([][]byte, maxBatchWidth)
	for i := range msgs {
		msgs[i] = buf[i : i+8<<20]
	}
	forEachBatchKernel(t, func(t *testing.T, id batchKernelID) {
		var out [maxBatchWidth][32]byte
		start := time.Now()
		Sum256Batch(out[:], msgs)
		checkGCPauses(t, "a batch of 8 MiB messages", time.Since(start), func() { Sum256Batch(out[:], msgs) })
	})
}

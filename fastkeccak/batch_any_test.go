package fastkeccak

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// anyLengthKernels are the batch kernels of this build that have an
// any-length kernel (see sumAnyGroup), the CPU's or not.
func anyLengthKernels() []batchKernelID {
	var ids []batchKernelID
	for _, id := range builtBatchKernels() {
		if id.anyLength() {
			ids = append(ids, id)
		}
	}
	return ids
}

// anyGroupCall is one of a kernel's any-length calls: sumAnyGroup, of
// id.width() messages, or sumAnyWideGroup, of id.inPlaceWidth().
type anyGroupCall struct {
	name  string
	width int
	call  func(to *[maxBatchWidth]*[32]byte, from *[maxBatchWidth][]byte, nblocks int)
}

// anyGroupCalls returns both any-length calls of id.
func anyGroupCalls(id batchKernelID) []anyGroupCall {
	return []anyGroupCall{
		{"sumAnyGroup", id.width(), func(to *[maxBatchWidth]*[32]byte, from *[maxBatchWidth][]byte, nblocks int) {
			sumAnyGroup(id, to, from, nblocks)
		}},
		{"sumAnyWideGroup", id.inPlaceWidth(), func(to *[maxBatchWidth]*[32]byte, from *[maxBatchWidth][]byte, nblocks int) {
			sumAnyWideGroup(id, to, from, nblocks)
		}},
	}
}

// TestSumAnyGroupDirect calls the any-length kernels with a group of
// messages whose lengths differ lane by lane, from empty to maxBatchBlocks
// blocks, each lane's message at an offset of its own in a buffer of its
// own, and checks every digest against Sum256, that each digest pointer
// gets its own message's digest and that no message is written.
func TestSumAnyGroupDirect(t *testing.T) {
	ids := anyLengthKernels()
	if len(ids) == 0 {
		t.Skip("this build has no any-length batch kernel")
	}
	for _, id := range ids {
		t.Run(id.String(), func(t *testing.T) {
			requireBatch(t, id)
			rng := rand.New(rand.NewPCG(31, uint64(id)))
			iterations := 400
			if testing.Short() {
				iterations = 60
			}
			calls := anyGroupCalls(id)
			for iter := range iterations {
				group := calls[iter%len(calls)]
				w := group.width
				// Most groups are of trie nodes (up to four blocks); some
				// reach the most blocks a call takes.
				most := 4 * rate
				if iter%10 == 9 {
					most = maxBatchBlocks*rate - 1
				}
				var (
					to    [maxBatchWidth]*[32]byte
					from  [maxBatchWidth][]byte
					out   [maxBatchWidth][32]byte
					saved [maxBatchWidth][]byte
				)
				blocks := 0
				for j := range w {
					size := rng.IntN(most)
					switch rng.IntN(8) {
					case 0:
						size = 0
					case 1:
						size = rate * (1 + rng.IntN(most/rate-1)) // a whole number of blocks
					}
					off := rng.IntN(16)
					buf := make([]byte, off+size)
					for k := range buf {
						buf[k] = byte(rng.Uint32())
					}
					from[j], saved[j] = buf[off:], bytes.Clone(buf[off:])
					to[j] = &out[j]
					blocks = max(blocks, size/rate+1)
				}
				group.call(&to, &from, blocks)
				for j := range w {
					if want := Sum256(from[j]); out[j] != want {
						t.Fatalf("%s, iteration %d, lane %d of %d (%d bytes, %d blocks in the call): %x, want %x",
							group.name, iter, j, w, len(from[j]), blocks, out[j], want)
					}
					if !bytes.Equal(from[j], saved[j]) {
						t.Fatalf("%s, iteration %d: the kernel wrote to message %d", group.name, iter, j)
					}
				}
			}
		})
	}
}

// TestSumAnyGroupEdgeLengths calls the any-length kernels with every
// length at the edges of a block's rows and blocks in every lane, beside
// others, with nblocks what the longest needs and one more (blocks after
// every message is done must change no digest).
func TestSumAnyGroupEdgeLengths(t *testing.T) {
	edges := []int{0, 1, 7, 8, 63, 64, 65, 127, 128, 129, 134, 135, 136, 137, 143, 144, 199, 200,
		263, 264, 271, 272, 273, 407, 408, 543, 544, 4215, 4216, 4217, 4343, 4344, 4350, 4351}
	buf := make([]byte, maxBatchBlocks*rate+8)
	for i := range buf {
		buf[i] = byte(i*53 + 19)
	}
	for _, id := range anyLengthKernels() {
		t.Run(id.String(), func(t *testing.T) {
			requireBatch(t, id)
			for _, group := range anyGroupCalls(id) {
				w := group.width
				for start := range edges {
					for _, extra := range []int{0, 1} {
						var (
							to   [maxBatchWidth]*[32]byte
							from [maxBatchWidth][]byte
							out  [maxBatchWidth][32]byte
						)
						blocks := 0
						for j := range w {
							size := edges[(start+7*j)%len(edges)]
							from[j], to[j] = buf[j:j+size], &out[j]
							blocks = max(blocks, size/rate+1)
						}
						blocks = min(blocks+extra, maxBatchBlocks)
						group.call(&to, &from, blocks)
						for j := range w {
							if want := Sum256(from[j]); out[j] != want {
								t.Fatalf("%s, lane %d of %d bytes, %d blocks in the call: %x, want %x", group.name, j, len(from[j]), blocks, out[j], want)
							}
						}
					}
				}
			}
		})
	}
}

// TestSum256BatchGrouping covers the ways Sum256Batch hands a batch with
// messages of more than one block to the any-length kernel: batches of
// every size up to a few windows (full groups, a last group with idle
// lanes, a last group small enough for Sum256), of one length, of lengths
// that group well and of lengths that make it fall back to sumMixed for a
// window, and a batch with a message longer than a call takes.
func TestSum256BatchGrouping(t *testing.T) {
	buf := make([]byte, (maxBatchBlocks+2)*rate)
	for i := range buf {
		buf[i] = byte(i*41 + 5)
	}
	shapes := map[string]func(rng *rand.Rand, i int) int{
		"random":        func(rng *rand.Rand, _ int) int { return rng.IntN(4 * rate) },
		"branches":      func(rng *rand.Rand, _ int) int { return 2*rate + rng.IntN(2*rate) },
		"one long in 5": func(_ *rand.Rand, i int) int { return []int{532, 110, 110, 110, 110}[i%5] },
		"one too long": func(_ *rand.Rand, i int) int {
			if i == 3 {
				return maxBatchBlocks * rate
			}
			return 300
		},
	}
	for _, id := range builtBatchKernels() {
		if !id.anyLength() {
			continue
		}
		t.Run(id.String(), func(t *testing.T) {
			requireBatch(t, id)
			useBatch(t, id)
			for name, size := range shapes {
				rng := rand.New(rand.NewPCG(3, uint64(len(name))))
				for _, n := range []int{3, 5, 8, 9, 10, 15, 16, 17, 63, 64, 65, 72, 130, 200} {
					msgs := make([][]byte, n)
					for i := range msgs {
						s := size(rng, i)
						off := rng.IntN(len(buf) - s + 1)
						msgs[i] = buf[off : off+s]
					}
					out := make([][32]byte, n)
					Sum256Batch(out, msgs)
					checkBatch(t, fmt.Sprintf("%s, %d messages", name, n), out, msgs)
				}
			}
		})
	}
}

// TestGroupWidth checks the widths sumGrouped gives its calls for a window
// of every size: each kernel's own width where it has one any-length
// kernel, and for amd64-avx2x5 a mix of fives and fours that never takes
// more kernel calls than either width alone, and takes fours where fives
// would save no call (eight messages: two calls of four).
func TestGroupWidth(t *testing.T) {
	for _, id := range builtBatchKernels() {
		solo := batchSolo(id)
		for r := 1; r <= groupWindow; r++ {
			var widths []int
			calls := 0
			for g := 0; g < r; {
				gw := groupWidth(id, r-g)
				if gw != id.width() && gw != id.inPlaceWidth() {
					t.Fatalf("%s, %d messages: a group of %d", id, r, gw)
				}
				k := min(gw, r-g)
				if k > solo {
					calls++
				}
				widths = append(widths, gw)
				g += k
			}
			if id.inPlaceWidth() == id.width() && slices.ContainsFunc(widths, func(w int) bool { return w != id.width() }) {
				t.Fatalf("%s, %d messages: widths %v, want %d each", id, r, widths, id.width())
			}
			if best := min(kernelCalls(r, id.width(), solo), kernelCalls(r, id.inPlaceWidth(), solo)); calls > best {
				t.Errorf("%s, %d messages: %d calls (widths %v), %d would do", id, r, calls, widths, best)
			}
		}
	}
	if got := fmt.Sprint(groupWidth(batchAMD64AVX2Scalar, 8), groupWidth(batchAMD64AVX2Scalar, 4)); got != "4 4" {
		t.Errorf("amd64-avx2x5, eight messages: widths %s, want 4 4", got)
	}
}

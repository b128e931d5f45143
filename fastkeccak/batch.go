package fastkeccak

import (
	"encoding/binary"
	"fmt"
)

// batchKernelID names a batch kernel: a permutation that runs several
// independent states at once, one state per SIMD lane. Every platform has
// batchLoop, which is Sum256 in a loop; the others exist where their
// assembly is built.
type batchKernelID uint8

const (
	batchLoop batchKernelID = iota
	batchAMD64AVX512
	batchAMD64AVX512BW
	batchAMD64AVX2
	batchARM64SHA3
	// batchAMD64AVX2Scalar is batchAMD64AVX2 with one-block and
	// any-length kernels of five states, the fifth in general-purpose
	// registers, chosen with KECCAKROOT_BATCH only (see batchCPU.kernels).
	batchAMD64AVX2Scalar
)

// String returns the name KECCAKROOT_BATCH accepts.
func (id batchKernelID) String() string {
	switch id {
	case batchAMD64AVX512:
		return "amd64-avx512x8"
	case batchAMD64AVX512BW:
		return "amd64-avx512x8-bw"
	case batchAMD64AVX2:
		return "amd64-avx2x4"
	case batchAMD64AVX2Scalar:
		return "amd64-avx2x5"
	case batchARM64SHA3:
		return "arm64-sha3x2"
	default:
		return "loop"
	}
}

// inPlace reports whether the kernel has a one-block kernel of its own
// (see sumShortGroup), which hashes a group of id.width() messages of at
// most 135 bytes reading them in place and writing each digest through its
// own pointer, where the others copy each message into a padded block
// first.
func (id batchKernelID) inPlace() bool {
	return id == batchAMD64AVX512BW || id == batchAMD64AVX2 || id == batchAMD64AVX2Scalar
}

// anyLength reports whether the kernel has a kernel of its own for a group
// of messages of any lengths (see sumAnyGroup and sumAnyWideGroup), which reads
// them in place, each block by block, and writes each digest through its
// own pointer once its last block is absorbed.
func (id batchKernelID) anyLength() bool {
	return id == batchAMD64AVX512BW || id == batchAMD64AVX2 || id == batchAMD64AVX2Scalar
}

// width is the number of states the kernel permutes at once, in its
// absorbing kernel and narrower in-place ones (see inPlaceWidth).
func (id batchKernelID) width() int {
	switch id {
	case batchAMD64AVX512, batchAMD64AVX512BW:
		return 8
	case batchAMD64AVX2, batchAMD64AVX2Scalar:
		return 4
	case batchARM64SHA3:
		return 2
	default:
		return 1
	}
}

// inPlaceWidth is the number of messages the kernel's wider in-place
// kernels hash a call (sumShortWideGroup, sumAnyWideGroup): the width, but
// for amd64-avx2x5 five, four in ymm registers and one in general-purpose
// ones. Its absorbing kernel (sumMixed's) keeps the width.
func (id batchKernelID) inPlaceWidth() int {
	if id == batchAMD64AVX2Scalar {
		return 5
	}
	return id.width()
}

// activeBatch is the batch kernel Sum256Batch uses, chosen
// once at start-up; tests swap it to run every kernel the CPU has.
var activeBatch = kernelFromEnvironment(batchVariable, availableBatchKernels())

// batchVariable names the environment variable that picks the batch kernel.
const batchVariable = "KECCAKROOT_BATCH"

// chooseBatch returns the kernel named by override if the CPU can run it,
// and otherwise the platform's default, the first of availableBatchKernels,
// with an error if override names none of them.
func chooseBatch(override string) (batchKernelID, error) {
	return pickKernel(batchVariable, override, availableBatchKernels())
}

// BatchWidth returns how many messages the batch kernel in use hashes at
// once: 8 with AVX-512, 4 on AVX2 cores (5 with KECCAKROOT_BATCH=amd64-avx2x5:
// four states in ymm registers and a fifth in general-purpose ones), 2 on
// Apple arm64 cores, and 1 where Sum256Batch runs the
// single-state permutation in a loop. It is a hint for callers that build
// batches: any batch length works, but a multiple of BatchWidth (or a
// batch of several times it) keeps every lane busy. For messages of up to
// 135 bytes, see ShortBatchWidth.
//
// The environment variable KECCAKROOT_BATCH, read once at start-up, picks
// another batch kernel by name where the CPU has it ("amd64-avx512x8-bw",
// "amd64-avx512x8", "amd64-avx2x5", "amd64-avx2x4", "arm64-sha3x2" or
// "loop"), for tests and measurements; for a name the CPU cannot run the
// default stays, and a line on standard error says so.
func BatchWidth() int { return activeBatch.inPlaceWidth() }

// ShortBatchWidth returns how many messages of up to 135 bytes (one
// permutation each, such as most trie nodes) the batch kernel in use
// hashes at once. It is BatchWidth with every kernel so far (amd64-avx2x5
// hashes five messages a call, one-block or longer); a batch of such
// messages is best a multiple of it.
func ShortBatchWidth() int { return activeBatch.inPlaceWidth() }

// maxBatchBlocks bounds the blocks per state of one call to a batch
// kernel: the goroutine can only be preempted at the stack check in the
// prologue of a call, never inside the assembly (see maxAssemblyAbsorb).
const maxBatchBlocks = 32

// maxBatchWidth is the widest batch kernel.
const maxBatchWidth = 8

// batchLanes is what a batch kernel works on: up to eight interleaved
// states, the address of each state's next input block, and for each state
// a buffer for its padded last block.
type batchLanes struct {
	// a holds the states lane-major: for a kernel of width w, lane i of
	// state j is a[w*i+j], so lane i of all the states is one vector.
	a [25 * maxBatchWidth]uint64
	// p[j] is where state j's next block starts. The kernel reads n
	// consecutive blocks from each p[j] and never writes p.
	p [maxBatchWidth]*byte
	// pad[j] is the last block of state j's message, padded.
	pad [maxBatchWidth][rate]byte
}

// digest writes the digest of state j of a width-w batch to d. Writing
// through a pointer, rather than returning the array, saves a copy of
// every digest.
func (l *batchLanes) digest(d *[32]byte, w, j int) {
	lanes := l.a[j : j+3*w+1]
	binary.LittleEndian.PutUint64(d[0:], lanes[0])
	binary.LittleEndian.PutUint64(d[8:], lanes[w])
	binary.LittleEndian.PutUint64(d[16:], lanes[2*w])
	binary.LittleEndian.PutUint64(d[24:], lanes[3*w])
}

// padTail fills state j's pad buffer with tail, a message's last partial
// block (0 to 135 bytes), followed by the padding.
func (l *batchLanes) padTail(j int, tail []byte) {
	b := &l.pad[j]
	n := copy(b[:], tail)
	clear(b[n:])
	pad(b, n, domainByte)
}

// batchSolo is the number of messages at or below which the batch drivers
// hash with Sum256 one at a time instead of calling the kernel with idle
// lanes. One call of the 8-way kernel costs about as much as two
// single-state permutations (BenchmarkBatchKernelCall; docs/performance.md
// has the figures), so it pays from three messages on (BenchmarkSum256Short). The
// narrower kernels cost less than two single permutations a call, so they
// pay from two messages on.
func batchSolo(id batchKernelID) int {
	if id.width() == 8 {
		return 2
	}
	return 1
}

// Sum256Batch sets out[i] to the Keccak-256 digest of msgs[i] for every i.
// The messages are independent, so the batch kernel (see BatchWidth) hashes
// several of them at once in SIMD lanes; each digest is the same as
// Sum256(msgs[i]). Messages may have any lengths, different from each
// other, and may alias each other; out must not overlap any message. With
// a caller-provided out it allocates nothing. It panics if len(out) !=
// len(msgs), a programming error. It hashes on the calling goroutine; calls
// from several goroutines at once are safe, as long as none writes to
// another's out.
//
// Messages shorter than 136 bytes, one permutation each, are the case the
// kernels are built for: the trie nodes that make up most of a
// Merkle-Patricia trie. Where the CPU has AVX-512 (with BW and BMI2) or
// AVX2, longer ones of up to 32 blocks (4,351 bytes), such as a trie's
// branches, are read in place too, a group of messages of similar lengths
// a kernel call; longer still, they are copied block by block.
func Sum256Batch(out [][32]byte, msgs [][]byte) {
	if len(out) != len(msgs) {
		panic(fmt.Sprintf("fastkeccak: Sum256Batch with %d outputs for %d messages", len(out), len(msgs)))
	}
	id := activeBatch
	if id == batchLoop || len(msgs) <= batchSolo(id) {
		for i, m := range msgs {
			out[i] = Sum256(m)
		}
		return
	}
	short := true
	for _, m := range msgs {
		if len(m) >= rate {
			short = false
			break
		}
	}
	if short {
		sumShort(id, out, msgs)
		return
	}
	if id.anyLength() {
		sumGrouped(id, out, msgs)
		return
	}
	sumMixed(id, out, msgs)
}

// groupWindow is how many messages sumGrouped orders by length at a time.
const groupWindow = 64

// groupedSlack returns, as num/den, how many times the fewest permutations
// a driver can make sumGrouped may make for a window: what the any-length
// kernel saves against sumMixed for the same blocks, its lanes all busy
// (BenchmarkSum256BatchGroups, BenchmarkSum256BatchMixed): about a fifth
// for the 8-way kernel, a twentieth for the 4-way one, whose permutations
// take a larger share of a call.
func groupedSlack(id batchKernelID) (num, den int) {
	if id.width() == 8 {
		return 6, 5
	}
	return 21, 20
}

// sumGrouped hashes msgs with id's any-length kernel, groupWidth messages
// a call. It takes up to groupWindow messages at a time and orders them by
// their number of blocks, the longest first, so that the messages of one
// call are of about one length and its lanes finish together. A last
// group of batchSolo messages or fewer is hashed with Sum256.
//
// A lane of the kernel holds one message for the whole call, where
// sumMixed gives a lane whose message is done the next one: when the
// groups would leave so many lanes idle that they take more permutations
// than sumMixed needs at the fewest (the longest message's blocks, or all
// blocks spread over its id.width() lanes) by a margin larger than what
// the kernel saves (see groupedSlack), the window goes to sumMixed
// instead; so does a window with a message of more blocks than one call of
// the kernel takes (maxBatchBlocks).
func sumGrouped(id batchKernelID, out [][32]byte, msgs [][]byte) {
	w, solo := id.width(), batchSolo(id)
	for len(msgs) > 0 {
		n := min(groupWindow, len(msgs))
		var (
			blocks [groupWindow]uint8
			order  [groupWindow]uint8
			next   [maxBatchBlocks + 1]uint8 // where the next message of b blocks goes in order
		)
		long := false
		for i, m := range msgs[:n] {
			b := len(m)/rate + 1
			if b > maxBatchBlocks {
				long = true
				break
			}
			blocks[i] = uint8(b)
			next[b]++
		}
		if long {
			sumMixed(id, out[:n], msgs[:n])
			out, msgs = out[n:], msgs[n:]
			continue
		}
		at := uint8(0)
		for b := maxBatchBlocks; b > 0; b-- {
			at, next[b] = at+next[b], at
		}
		total, grouped := 0, 0
		for i := range n {
			b := blocks[i]
			order[next[b]] = uint8(i)
			next[b]++
			total += int(b)
		}
		for g := 0; g+solo < n; g += groupWidth(id, n-g) {
			grouped += int(blocks[order[g]])
		}
		// The fewest permutations sumMixed needs: the longest message's
		// blocks, or all blocks spread over all its lanes.
		fewest := max(int(blocks[order[0]]), (total+w-1)/w)
		if num, den := groupedSlack(id); grouped*den > fewest*num {
			sumMixed(id, out[:n], msgs[:n])
			out, msgs = out[n:], msgs[n:]
			continue
		}
		var k int // the messages of a group
		for g := 0; g < n; g += k {
			gw := groupWidth(id, n-g)
			k = min(gw, n-g)
			if k <= solo {
				for _, i := range order[g : g+k] {
					out[i] = Sum256(msgs[i])
				}
				continue
			}
			var (
				to    [maxBatchWidth]*[32]byte
				from  [maxBatchWidth][]byte
				spare [32]byte
			)
			for j := range gw {
				// An idle lane hashes an empty message into a digest
				// nobody reads, at the address of that digest: a nil one
				// would make the kernel's masked loads, which read
				// nothing, point at memory the program has not mapped,
				// which costs a page walk each.
				to[j], from[j] = &spare, spare[:0]
				if j < k {
					i := order[g+j]
					to[j], from[j] = &out[i], msgs[i]
				}
			}
			switch nblocks := int(blocks[order[g]]); {
			case nblocks > 1 && gw > w:
				sumAnyWideGroup(id, &to, &from, nblocks)
			case nblocks > 1:
				sumAnyGroup(id, &to, &from, nblocks)
			case gw > w:
				sumShortWideGroup(id, &to, &from)
			default:
				sumShortGroup(id, &to, &from) // cheaper for one block
			}
		}
		out, msgs = out[n:], msgs[n:]
	}
}

// groupWidth returns how many messages sumGrouped hashes in its next call
// with r messages of the window left: id.inPlaceWidth(), but where the wider
// kernels (amd64-avx2x5's five states, which cost a little more a call
// than its four-state ones) would make no fewer calls for the r messages
// than the narrower ones, id.width().
func groupWidth(id batchKernelID, r int) int {
	wide, narrow, solo := id.inPlaceWidth(), id.width(), batchSolo(id)
	if wide > narrow && kernelCalls(r, wide, solo) >= kernelCalls(r, narrow, solo) {
		return narrow
	}
	return wide
}

// kernelCalls returns how many kernel calls n messages take in groups of
// w, a last group of solo messages or fewer going to Sum256.
func kernelCalls(n, w, solo int) int {
	calls := n / w
	if n%w > solo {
		calls++
	}
	return calls
}

// sum256Short is Sum256Batch for messages known to be at most 135 bytes,
// each hashed with a single permutation, without the scan for longer ones:
// the short-message driver alone, for the tests and benchmarks that
// measure it. It panics if len(out) != len(msgs) or if a message is 136
// bytes or longer; out must not overlap any message.
func sum256Short(out [][32]byte, msgs [][]byte) {
	if len(out) != len(msgs) {
		panic(fmt.Sprintf("fastkeccak: sum256Short with %d outputs for %d messages", len(out), len(msgs)))
	}
	for i, m := range msgs {
		if len(m) >= rate {
			panic(fmt.Sprintf("fastkeccak: sum256Short message %d is %d bytes, longer than 135", i, len(m)))
		}
	}
	id := activeBatch
	if id == batchLoop || len(msgs) <= batchSolo(id) {
		for i, m := range msgs {
			out[i] = Sum256(m)
		}
		return
	}
	sumShort(id, out, msgs)
}

// sumShort hashes messages of at most 135 bytes with kernel id, one
// permutation per group of id.inPlaceWidth() messages: read in place by the
// kernel's one-block kernel if it has one, copied into padded blocks
// otherwise (and for the last group, when it is not full).
func sumShort(id batchKernelID, out [][32]byte, msgs [][]byte) {
	if id.inPlace() {
		var (
			to   [maxBatchWidth]*[32]byte
			from [maxBatchWidth][]byte
		)
		sw, w := id.inPlaceWidth(), id.width()
		for len(msgs) >= sw {
			for j := range sw {
				to[j], from[j] = &out[j], msgs[j]
			}
			sumShortWideGroup(id, &to, &from)
			out, msgs = out[sw:], msgs[sw:]
		}
		if len(msgs) >= w {
			// amd64-avx2x5's last four: its four-state kernel.
			for j := range w {
				to[j], from[j] = &out[j], msgs[j]
			}
			sumShortGroup(id, &to, &from)
			out, msgs = out[w:], msgs[w:]
		}
		if len(msgs) <= batchSolo(id) {
			for i, m := range msgs {
				out[i] = Sum256(m)
			}
			return
		}
	}
	var l batchLanes
	w := id.width()
	all := uint64(1)<<w - 1
	for j := range w {
		// Every lane reads its own pad buffer. An idle lane of the last
		// group reads whatever its buffer holds; its state is not used.
		l.p[j] = &l.pad[j][0]
	}
	for len(msgs) > batchSolo(id) {
		n := min(w, len(msgs))
		for j, m := range msgs[:n] {
			l.padTail(j, m)
		}
		batchAbsorb(id, &l, all, 1)
		for j := range out[:n] {
			l.digest(&out[j], w, j)
		}
		out, msgs = out[n:], msgs[n:]
	}
	for i, m := range msgs {
		out[i] = Sum256(m)
	}
}

// sumShortInPlace hashes with id's one-block kernel the one-block messages
// of msgs, id.inPlaceWidth() at a time and in order, leaving the last few (fewer
// than a group), and returns how many it hashed.
func sumShortInPlace(id batchKernelID, out [][32]byte, msgs [][]byte) int {
	w := id.width()
	shorts, longBlocks, mostBlocks := 0, 0, 0
	for _, m := range msgs {
		if len(m) < rate {
			shorts++
			continue
		}
		blocks := len(m)/rate + 1
		longBlocks += blocks
		mostBlocks = max(mostBlocks, blocks)
	}
	// The lanes have room beside the long messages for this many one-block
	// messages, which cost no call of their own there.
	room := w*max(mostBlocks, (longBlocks+w-1)/w) - longBlocks
	// They go as many a call as the one-block kernel takes.
	sw := id.inPlaceWidth()
	todo := max(0, shorts-room)
	todo -= todo % sw
	var (
		to   [maxBatchWidth]*[32]byte
		from [maxBatchWidth][]byte
		lane int // the next lane of the group being filled
	)
	for i, done := 0, 0; done < todo; i++ {
		if len(msgs[i]) >= rate {
			continue
		}
		to[lane], from[lane] = &out[i], msgs[i]
		if lane++; lane == sw {
			sumShortWideGroup(id, &to, &from)
			lane, done = 0, done+sw
		}
	}
	return todo
}

// sumMixed is Sum256Batch's driver for messages of any lengths. Each lane
// of the kernel holds one message at a time: its whole blocks are read in
// place, its last block from the lane's pad buffer. Every call of the
// kernel absorbs the same number of blocks in every lane, as many as the
// lane with the fewest blocks left before a change of buffer (one, if a
// lane is at its padded block); a lane that has absorbed its padded block
// gives its digest and takes the next message. The messages of more than
// one block are handed out first, in order, then those of one: the short
// ones fill the lanes that the long ones free at different times, where
// a long message handed out last would keep one lane busy beside idle
// ones. When no messages are left to hand out and few lanes are busy, the
// rest is finished one state at a time.
//
// It is one function with local arrays, not methods on a struct, so that
// escape analysis keeps everything on the stack: the pointers the kernel
// reads are stored into local variables only.
func sumMixed(id batchKernelID, out [][32]byte, msgs [][]byte) {
	var (
		l     batchLanes
		msg   [maxBatchWidth]int    // the message in each lane, -1 if idle
		whole [maxBatchWidth][]byte // its whole blocks not yet absorbed
		fresh uint64                // lanes to clear before the next call
		busy  int                   // lanes holding a message
		left  = len(msgs)           // messages not yet in a lane
		// The next message to look at for one of more than one block,
		// and for one of one block.
		nextLong, nextShort int
	)
	if id.inPlace() {
		// The one-block messages for which the lanes have no room beside
		// the longer ones go to the one-block kernel first, a group at a
		// time and in order; the rest fill the lanes the longer ones leave
		// idle.
		done := sumShortInPlace(id, out, msgs)
		left -= done
		for ; done > 0; nextShort++ {
			if len(msgs[nextShort]) < rate {
				done--
			}
		}
	}
	w := id.width()
	solo := batchSolo(id)
	for j := range w {
		msg[j] = -1
	}
	for {
		// Hand out messages to idle lanes.
		for j := range w {
			if msg[j] >= 0 || left == 0 {
				continue
			}
			for nextLong < len(msgs) && len(msgs[nextLong]) < rate {
				nextLong++
			}
			i := nextLong
			if i < len(msgs) {
				nextLong++
			} else {
				// Only messages of one block are left, at nextShort
				// and after.
				for len(msgs[nextShort]) >= rate {
					nextShort++
				}
				i = nextShort
				nextShort++
			}
			m := msgs[i]
			n := len(m) - len(m)%rate
			msg[j] = i
			whole[j] = m[:n]
			l.padTail(j, m[n:])
			fresh |= 1 << j
			busy++
			left--
		}
		if busy == 0 {
			return
		}
		if left == 0 && busy <= solo {
			break
		}

		n := maxBatchBlocks
		var spare *byte
		for j := range w {
			if msg[j] < 0 {
				continue
			}
			if b := whole[j]; len(b) > 0 {
				n = min(n, len(b)/rate)
				l.p[j] = &b[0]
			} else {
				n = 1
				l.p[j] = &l.pad[j][0]
			}
			spare = l.p[j]
		}
		for j := range w {
			if msg[j] < 0 {
				l.p[j] = spare // readable for n blocks; the result is ignored
			}
		}
		batchAbsorb(id, &l, fresh, n)
		fresh = 0
		for j := range w {
			if msg[j] < 0 {
				continue
			}
			if b := whole[j]; len(b) > 0 {
				whole[j] = b[n*rate:]
				continue
			}
			l.digest(&out[msg[j]], w, j)
			msg[j] = -1
			busy--
		}
	}

	// Few lanes left: finish them with the single-state permutation.
	for j := range w {
		i := msg[j]
		if i < 0 {
			continue
		}
		if fresh&(1<<j) != 0 {
			out[i] = Sum256(msgs[i])
			continue
		}
		var a [25]uint64
		for k := range a {
			a[k] = l.a[w*k+j]
		}
		if len(whole[j]) > 0 {
			absorb(&a, whole[j])
		}
		absorb(&a, l.pad[j][:])
		out[i] = digest(&a)
	}
}

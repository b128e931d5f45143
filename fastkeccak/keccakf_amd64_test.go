//go:build amd64 && !purego

package fastkeccak

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"golang.org/x/sys/cpu"

	"github.com/keccakroot/keccakroot/internal/benchturns"
)

// These tests call the amd64 assembly kernels directly, each against the
// textbook referenceKeccakF1600, and skip a kernel the CPU cannot run.

// amd64Kernel is one pair of assembly kernels and whether this CPU has the
// instructions they need.
type amd64Kernel struct {
	name    string
	has     bool
	permute func(*[25]uint64)
	absorb  func(*[25]uint64, []byte)
}

var (
	kernelBMI2 = amd64Kernel{"bmi2", cpu.X86.HasBMI1 && cpu.X86.HasBMI2,
		keccakF1600BMI2, absorbBlocksBMI2}
	kernelAVX512VL = amd64Kernel{"avx512vl", cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL,
		keccakF1600AVX512VL, absorbBlocksAVX512VL}
	amd64Kernels = []amd64Kernel{kernelBMI2, kernelAVX512VL}
)

func (k amd64Kernel) need(tb testing.TB) {
	tb.Helper()
	if !k.has {
		tb.Skipf("the CPU lacks the instructions of the %s kernel", k.name)
	}
}

func randomState(rng *rand.Rand) (a [25]uint64) {
	for i := range a {
		a[i] = rng.Uint64()
	}
	return a
}

// xorBlock XORs the 136-byte block b into the first 17 lanes of a.
func xorBlock(a *[25]uint64, b []byte) {
	for i := range 17 {
		a[i] ^= binary.LittleEndian.Uint64(b[8*i:])
	}
}

func TestKeccakF1600BMI2(t *testing.T)     { testKeccakF1600(t, kernelBMI2) }
func TestKeccakF1600AVX512VL(t *testing.T) { testKeccakF1600(t, kernelAVX512VL) }

func testKeccakF1600(t *testing.T, k amd64Kernel) {
	k.need(t)

	var zero [25]uint64
	got, want := zero, zero
	k.permute(&got)
	referenceKeccakF1600(&want)
	if got != want {
		t.Fatalf("Keccak-f(0):\n got %#x\nwant %#x", got, want)
	}
	// Known answer, independent of the reference: the first lane of
	// Keccak-f[1600] applied to the zero state.
	if got[0] != 0xF1258F7940E1DDE7 {
		t.Fatalf("lane 0 of Keccak-f(0) = %#x, want 0xf1258f7940e1dde7", got[0])
	}

	var ones [25]uint64
	for i := range ones {
		ones[i] = ^uint64(0)
	}
	special := [][25]uint64{ones, {24: 1 << 63}, {12: 1}, {0: 1}}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 + len(special) {
		var in [25]uint64
		if i < len(special) {
			in = special[i]
		} else {
			in = randomState(rng)
		}
		got, want := in, in
		k.permute(&got)
		referenceKeccakF1600(&want)
		if got != want {
			t.Fatalf("state %d: Keccak-f(%#x)\n got %#x\nwant %#x", i, in, got, want)
		}
	}
}

func TestAbsorbBlocksBMI2(t *testing.T)     { testAbsorbBlocks(t, kernelBMI2) }
func TestAbsorbBlocksAVX512VL(t *testing.T) { testAbsorbBlocks(t, kernelAVX512VL) }

// testAbsorbBlocks checks absorb against XOR-then-reference block by block,
// from random states, with 0 to 5 blocks starting at every offset 0..15 of
// a larger buffer, and checks that the input is left as it was.
func testAbsorbBlocks(t *testing.T, k amd64Kernel) {
	k.need(t)
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 6*136+16)
	for i := range 2000 {
		blocks := rng.IntN(6)
		off := i % 16
		for j := range buf {
			buf[j] = byte(rng.Uint32())
		}
		saved := bytes.Clone(buf)
		p := buf[off : off+136*blocks]

		in := randomState(rng)
		got, want := in, in
		k.absorb(&got, p)
		for b := range blocks {
			xorBlock(&want, p[136*b:])
			referenceKeccakF1600(&want)
		}
		if got != want {
			t.Fatalf("case %d: %d blocks at offset %d:\n got %#x\nwant %#x", i, blocks, off, got, want)
		}
		if !bytes.Equal(buf, saved) {
			t.Fatalf("case %d: absorb modified its input", i)
		}
	}
}

func TestAbsorbBlocksEdgesBMI2(t *testing.T)     { testAbsorbBlocksEdges(t, kernelBMI2) }
func TestAbsorbBlocksEdgesAVX512VL(t *testing.T) { testAbsorbBlocksEdges(t, kernelAVX512VL) }

// testAbsorbBlocksEdges checks that nothing past len(p) is read into the
// state, that an empty or nil p leaves the state alone, and that whole-
// block messages padded by hand hash as go-ethereum's Keccak-256 does.
func testAbsorbBlocksEdges(t *testing.T, k amd64Kernel) {
	k.need(t)

	buf := bytes.Repeat([]byte{0xFF}, 3*136)
	var got, want [25]uint64
	k.absorb(&got, buf[:136])
	xorBlock(&want, buf)
	referenceKeccakF1600(&want)
	if got != want {
		t.Fatalf("one block with more data after it:\n got %#x\nwant %#x", got, want)
	}
	before := got
	k.absorb(&got, nil)
	k.absorb(&got, buf[:0])
	if got != before {
		t.Fatal("absorbing nothing changed the state")
	}

	// A tail shorter than a block is ignored, not absorbed from the bytes
	// past it.
	for _, blocks := range []int{0, 1, 2} {
		for _, tail := range []int{1, 8, 135} {
			var whole, withTail [25]uint64
			k.absorb(&whole, buf[:136*blocks])
			k.absorb(&withTail, buf[:136*blocks+tail])
			if withTail != whole {
				t.Fatalf("%d blocks and %d more bytes: the tail changed the state", blocks, tail)
			}
		}
	}

	rng := rand.New(rand.NewPCG(5, 6))
	for blocks := range 8 {
		msg := make([]byte, 136*blocks+rng.IntN(136))
		for i := range msg {
			msg[i] = byte(rng.Uint32())
		}
		var a [25]uint64
		full := len(msg) / 136 * 136
		k.absorb(&a, msg[:full])
		var last [136]byte
		copy(last[:], msg[full:])
		last[len(msg)-full] ^= 0x01
		last[135] ^= 0x80
		k.absorb(&a, last[:])
		var digest [32]byte
		for i := range 4 {
			binary.LittleEndian.PutUint64(digest[8*i:], a[i])
		}
		if want := crypto.Keccak256Hash(msg); digest != want {
			t.Fatalf("%d bytes: got %x, want %x", len(msg), digest, want)
		}
	}
}

// BenchmarkKernel compares each kernel's block loop with go-ethereum's
// Keccak-256 sponge absorbing the same 3764 blocks (512000 bytes rounded
// down to whole blocks): its Write XORs in Go and calls its amd64 assembly
// permutation once per block. ns/op ratios compare directly.
func BenchmarkKernel(b *testing.B) {
	data := make([]byte, 512000/136*136)
	for i := range data {
		data[i] = byte(i*7 + 3)
	}
	for _, k := range amd64Kernels {
		b.Run("impl="+k.name, func(b *testing.B) {
			k.need(b)
			b.SetBytes(int64(len(data)))
			var a [25]uint64
			for b.Loop() {
				k.absorb(&a, data)
			}
			var got, want [25]uint64
			k.absorb(&got, data)
			absorbGeneric(&want, data)
			checkState(b, &got, &want)
		})
	}
	b.Run("impl=geth", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		h := crypto.NewKeccakState()
		for b.Loop() {
			h.Reset()
			h.Write(data)
		}
		var got [32]byte
		h.Read(got[:])
		checkDigest(b, got[:], referenceDigest(data, 32))
	})
}

// BenchmarkPermute times one call of each permutation kernel.
func BenchmarkPermute(b *testing.B) {
	for _, k := range amd64Kernels {
		b.Run("impl="+k.name, func(b *testing.B) {
			k.need(b)
			b.SetBytes(136)
			var a [25]uint64
			for b.Loop() {
				k.permute(&a)
			}
			got, want := [25]uint64{0: 1}, [25]uint64{0: 1}
			k.permute(&got)
			keccakF1600Generic(&want)
			checkState(b, &got, &want)
		})
	}
}

// BenchmarkKernelTurns is BenchmarkKernel with the kernels this CPU runs
// and go-ethereum's sponge taking turns on 16 KiB (120 blocks; see
// benchturns), each turn timed by the thread's CPU time as
// BenchmarkOpenSSL is: on a shared host the wall-clock BenchmarkKernel
// moves by tens of percent, these ratios by a few. It reports each one's
// time per block and each one's time over the first kernel's
// (ratio-<impl>), and checks each kernel's state against the portable Go
// kernel and go-ethereum's digest after the timed loop.
func BenchmarkKernelTurns(b *testing.B) {
	data := make([]byte, 120*136)
	for i := range data {
		data[i] = byte(i*7 + 3)
	}
	var (
		kernels []amd64Kernel
		turns   []benchturns.Turn
	)
	states := make([][25]uint64, len(amd64Kernels))
	for _, k := range amd64Kernels {
		if k.has {
			i, absorb := len(kernels), k.absorb
			kernels = append(kernels, k)
			turns = append(turns, benchturns.Turn{Call: func(int) { absorb(&states[i], data) }})
		}
	}
	if len(kernels) == 0 {
		b.Skip("the CPU runs none of the amd64 kernels")
	}
	geth := crypto.NewKeccakState()
	turns = append(turns, benchturns.Turn{Call: func(int) {
		geth.Reset()
		geth.Write(data)
	}})

	clock := benchturns.StartThreadClock()
	perCall := benchturns.MeasureBy(b, 8, turns, clock.Now)
	clock.Stop()
	for i, t := range perCall {
		name := "geth"
		if i < len(kernels) {
			name = kernels[i].name
		}
		b.ReportMetric(t/120, "ns/block-"+name)
		if i > 0 {
			b.ReportMetric(t/perCall[0], "ratio-"+name)
		}
	}
	var want [25]uint64
	absorbGeneric(&want, data)
	for _, k := range kernels {
		var got [25]uint64
		k.absorb(&got, data)
		checkState(b, &got, &want)
	}
	var digest [32]byte
	geth.Read(digest[:])
	checkDigest(b, digest[:], referenceDigest(data, 32))
}

//go:build arm64 && !purego

package fastkeccak

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// These tests call the SHA3-extension kernels directly, bypassing the
// dispatcher, and compare them with referenceKeccakF1600. On a CPU without
// FEAT_SHA3 the kernels would raise SIGILL, so every test skips there.

func skipUnlessSHA3(t *testing.T) {
	t.Helper()
	if !cpu.ARM64.HasSHA3 {
		t.Skip("kernel arm64-sha3 not run: this CPU lacks the ARMv8.2 SHA3 extension")
	}
}

func randomState(r *rand.Rand) (a [25]uint64) {
	for i := range a {
		a[i] = r.Uint64()
	}
	return a
}

func TestKeccakF1600SHA3ZeroState(t *testing.T) {
	skipUnlessSHA3(t)
	var got, want [25]uint64
	keccakF1600SHA3(&got)
	referenceKeccakF1600(&want)
	if got != want {
		t.Fatalf("Keccak-f[1600](0):\n got %016x\nwant %016x", got, want)
	}
	// Known answer from the Keccak team's intermediate values, independent
	// of the reference.
	if got[0] != 0xF1258F7940E1DDE7 || got[24] != 0xEAF1FF7B5CECA249 {
		t.Fatalf("Keccak-f[1600](0) lanes 0 and 24 = %016x %016x", got[0], got[24])
	}
	// Twice, to cover the state left by a previous call.
	keccakF1600SHA3(&got)
	referenceKeccakF1600(&want)
	if got != want {
		t.Fatalf("Keccak-f[1600]^2(0):\n got %016x\nwant %016x", got, want)
	}
}

func TestKeccakF1600SHA3RandomStates(t *testing.T) {
	skipUnlessSHA3(t)
	r := rand.New(rand.NewPCG(1600, 3))
	n := 5000
	if testing.Short() {
		n = 500
	}
	for i := range n {
		a := randomState(r)
		got, want := a, a
		keccakF1600SHA3(&got)
		referenceKeccakF1600(&want)
		if got != want {
			t.Fatalf("state %d: Keccak-f[1600](%016x)\n got %016x\nwant %016x", i, a, got, want)
		}
	}
}

// TestKeccakF1600SHA3SingleBits permutes every one-bit state, so that a
// wrong rotation or lane mapping shows up as a specific lane and bit.
func TestKeccakF1600SHA3SingleBits(t *testing.T) {
	skipUnlessSHA3(t)
	for lane := range 25 {
		for bit := range 64 {
			var got, want [25]uint64
			got[lane] = 1 << bit
			want[lane] = 1 << bit
			keccakF1600SHA3(&got)
			referenceKeccakF1600(&want)
			if got != want {
				t.Fatalf("lane %d bit %d:\n got %016x\nwant %016x", lane, bit, got, want)
			}
		}
	}
}

// referenceAbsorb is the specification of absorbBlocksSHA3.
func referenceAbsorb(a *[25]uint64, p []byte) {
	for len(p) > 0 {
		for i := range 17 {
			a[i] ^= binary.LittleEndian.Uint64(p[8*i:])
		}
		referenceKeccakF1600(a)
		p = p[136:]
	}
}

func TestAbsorbBlocksSHA3(t *testing.T) {
	skipUnlessSHA3(t)
	r := rand.New(rand.NewPCG(136, 17))
	buf := make([]byte, 16+6*136)
	trials := 2000
	if testing.Short() {
		trials = 200
	}
	for i := range trials {
		blocks := i % 6
		off := r.IntN(16) // unaligned starts
		for j := range buf {
			buf[j] = byte(r.Uint32())
		}
		// The bytes after p are random too: the kernel must not read them.
		p := buf[off : off+136*blocks]
		saved := bytes.Clone(buf)
		a := randomState(r)
		got, want := a, a
		absorbBlocksSHA3(&got, p)
		referenceAbsorb(&want, p)
		if got != want {
			t.Fatalf("trial %d (%d blocks at offset %d):\n got %016x\nwant %016x", i, blocks, off, got, want)
		}
		if !bytes.Equal(buf, saved) {
			t.Fatalf("trial %d: absorbBlocksSHA3 modified its input", i)
		}
		if blocks == 0 && got != a {
			t.Fatalf("trial %d: absorbing no blocks changed the state", i)
		}
	}
}

// TestAbsorbBlocksSHA3Long absorbs many blocks in one call, and checks it
// equals absorbing them one call per block.
func TestAbsorbBlocksSHA3Long(t *testing.T) {
	skipUnlessSHA3(t)
	r := rand.New(rand.NewPCG(4096, 1))
	p := make([]byte, 1+136*100)
	for j := range p {
		p[j] = byte(r.Uint32())
	}
	p = p[1:]
	var one, many, want [25]uint64
	absorbBlocksSHA3(&many, p)
	for b := 0; b < len(p); b += 136 {
		absorbBlocksSHA3(&one, p[b:b+136])
	}
	referenceAbsorb(&want, p)
	if many != want || one != want {
		t.Fatalf("100 blocks:\n  one call %016x\nper block %016x\n     want %016x", many, one, want)
	}
}

// TestAbsorbBlocksSHA3NilInput checks that an empty (nil) slice is allowed.
func TestAbsorbBlocksSHA3NilInput(t *testing.T) {
	skipUnlessSHA3(t)
	a := randomState(rand.New(rand.NewPCG(0, 0)))
	got := a
	absorbBlocksSHA3(&got, nil)
	if got != a {
		t.Fatal("absorbing nil changed the state")
	}
}

func BenchmarkKeccakF1600SHA3(b *testing.B) {
	if !cpu.ARM64.HasSHA3 {
		b.Skip("kernel arm64-sha3 not run: this CPU lacks the SHA3 extension")
	}
	var a [25]uint64
	b.SetBytes(200)
	for b.Loop() {
		keccakF1600SHA3(&a)
	}
	got, want := [25]uint64{0: 1}, [25]uint64{0: 1}
	keccakF1600SHA3(&got)
	keccakF1600Generic(&want)
	checkState(b, &got, &want)
}

func BenchmarkAbsorbBlocksSHA3(b *testing.B) {
	if !cpu.ARM64.HasSHA3 {
		b.Skip("kernel arm64-sha3 not run: this CPU lacks the SHA3 extension")
	}
	var a [25]uint64
	p := make([]byte, 136*64)
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		absorbBlocksSHA3(&a, p)
	}
	var got, want [25]uint64
	absorbBlocksSHA3(&got, p)
	absorbGeneric(&want, p)
	checkState(b, &got, &want)
}

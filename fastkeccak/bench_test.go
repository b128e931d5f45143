package fastkeccak

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"golang.org/x/crypto/sha3"
)

// The benchmarks put keccakroot beside go-ethereum's crypto package and
// x/crypto's legacy Keccak in one run, with names benchstat can pair:
// BenchmarkSum256/size=32/impl=keccakroot and so on. Each sub-benchmark checks
// its last digest against x/crypto's, computed in the same benchmark, so no
// -bench filter can leave a wrong result unnoticed.

var benchSizes = []int{32, 64, 128, 135, 136, 137, 256, 532, 1024, 4096, 512000}

func benchMessage(n int) []byte {
	msg := make([]byte, n)
	for i := range msg {
		msg[i] = byte(i*7 + 3)
	}
	return msg
}

// referenceDigest is the first n output bytes for msg, from x/crypto.
func referenceDigest(msg []byte, n int) []byte {
	h := sha3.NewLegacyKeccak256().(xcryptoState)
	h.Write(msg)
	out := make([]byte, n)
	h.Read(out)
	return out
}

// checkState fails a kernel benchmark whose kernel, run once more outside
// the timed loop, left a state other than the portable Go kernel's.
func checkState(b *testing.B, got, want *[25]uint64) {
	b.Helper()
	if *got != *want {
		b.Fatalf("state %#x, want %#x", got[:], want[:])
	}
}

func checkDigest(b *testing.B, got, want []byte) {
	b.Helper()
	if !bytes.Equal(got, want) {
		b.Fatalf("digest %x, want %x", got, want)
	}
}

func BenchmarkSum256(b *testing.B) {
	for _, size := range benchSizes {
		msg := benchMessage(size)
		want := referenceDigest(msg, 32)
		b.Run(fmt.Sprintf("size=%d/impl=keccakroot", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var d [32]byte
			for b.Loop() {
				d = Sum256(msg)
			}
			checkDigest(b, d[:], want)
		})
		b.Run(fmt.Sprintf("size=%d/impl=go-ethereum", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var d [32]byte
			for b.Loop() {
				d = crypto.Keccak256Hash(msg)
			}
			checkDigest(b, d[:], want)
		})
		b.Run(fmt.Sprintf("size=%d/impl=x-crypto", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			h := sha3.NewLegacyKeccak256()
			d := make([]byte, 0, 32)
			for b.Loop() {
				h.Reset()
				h.Write(msg)
				d = h.Sum(d[:0])
			}
			checkDigest(b, d, want)
		})
	}
}

// BenchmarkHasher is the streaming use: Reset, Write, Read of 32 bytes, as
// go-ethereum's trie hasher uses its KeccakState.
func BenchmarkHasher(b *testing.B) {
	for _, size := range benchSizes {
		msg := benchMessage(size)
		want := referenceDigest(msg, 32)
		impls := []struct {
			name string
			h    xcryptoState
		}{
			{"keccakroot", new(Hasher)},
			{"go-ethereum", crypto.NewKeccakState()},
			{"x-crypto", sha3.NewLegacyKeccak256().(xcryptoState)},
		}
		for _, impl := range impls {
			b.Run(fmt.Sprintf("size=%d/impl=%s", size, impl.name), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				var d [32]byte
				if ours, ok := impl.h.(*Hasher); ok {
					// The concrete type, as callers of this package use it.
					for b.Loop() {
						ours.Reset()
						ours.Write(msg)
						ours.Read(d[:])
					}
				} else {
					h := impl.h
					for b.Loop() {
						h.Reset()
						h.Write(msg)
						h.Read(d[:])
					}
				}
				checkDigest(b, d[:], want)
			})
		}
	}
}

// BenchmarkWriteByte feeds the message one byte at a time, as an RLP encoder
// writes prefixes. go-ethereum and x/crypto have no WriteByte, so they get
// one-byte slices. impl=keccakroot-write is the same Hasher given the whole
// message in one Write, for the WriteByte/Write ratio.
func BenchmarkWriteByte(b *testing.B) {
	for _, size := range []int{32, 128, 256} {
		msg := benchMessage(size)
		want := referenceDigest(msg, 32)
		b.Run(fmt.Sprintf("size=%d/impl=keccakroot", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var h Hasher
			var d [32]byte
			for b.Loop() {
				h.Reset()
				for _, c := range msg {
					h.WriteByte(c)
				}
				h.Read(d[:])
			}
			checkDigest(b, d[:], want)
		})
		b.Run(fmt.Sprintf("size=%d/impl=keccakroot-write", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var h Hasher
			var d [32]byte
			for b.Loop() {
				h.Reset()
				h.Write(msg)
				h.Read(d[:])
			}
			checkDigest(b, d[:], want)
		})
		for _, other := range []struct {
			name string
			h    xcryptoState
		}{
			{"go-ethereum", crypto.NewKeccakState()},
			{"x-crypto", sha3.NewLegacyKeccak256().(xcryptoState)},
		} {
			b.Run(fmt.Sprintf("size=%d/impl=%s", size, other.name), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				h := other.h
				var d [32]byte
				for b.Loop() {
					h.Reset()
					for i := range msg {
						h.Write(msg[i : i+1])
					}
					h.Read(d[:])
				}
				checkDigest(b, d[:], want)
			})
		}
	}
}

// BenchmarkRead squeezes 135, 136 and 137 bytes after a 32-byte message:
// one permutation, one exactly full block, and one byte that needs a second.
func BenchmarkRead(b *testing.B) {
	msg := benchMessage(32)
	for _, size := range []int{135, 136, 137} {
		want := referenceDigest(msg, size)
		for _, impl := range []struct {
			name string
			h    xcryptoState
		}{
			{"keccakroot", new(Hasher)},
			{"go-ethereum", crypto.NewKeccakState()},
			{"x-crypto", sha3.NewLegacyKeccak256().(xcryptoState)},
		} {
			b.Run(fmt.Sprintf("size=%d/impl=%s", size, impl.name), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				out := make([]byte, size)
				if ours, ok := impl.h.(*Hasher); ok {
					for b.Loop() {
						ours.Reset()
						ours.Write(msg)
						ours.Read(out)
					}
				} else {
					h := impl.h
					for b.Loop() {
						h.Reset()
						h.Write(msg)
						h.Read(out)
					}
				}
				checkDigest(b, out, want)
			})
		}
	}
}

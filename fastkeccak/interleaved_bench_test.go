package fastkeccak

import (
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"golang.org/x/crypto/sha3"

	"github.com/keccakroot/keccakroot/internal/benchturns"
)

// BenchmarkInterleaved measures keccakroot beside go-ethereum and x/crypto
// in one benchmark, switching from one to the next every interleaveRun
// calls (tens of microseconds; see benchturns), and reports each one's time
// per call and the two ratios as metrics: they hold still where the
// side-by-side tables of BenchmarkSum256 and the others move by ±15% on a
// shared host. Summarise with
//
//	benchstat -filter '.unit:/^ratio-/' file
//
// The x/crypto and go-ethereum calls are the ones of BenchmarkSum256,
// BenchmarkHasher, BenchmarkRead and BenchmarkWriteByte; every call's
// output is checked once against x/crypto's digest after the timed loop.
func BenchmarkInterleaved(b *testing.B) {
	for _, c := range interleavedCases() {
		b.Run(c.name, func(b *testing.B) {
			turns := make([]benchturns.Turn, len(c.calls))
			for i, call := range c.calls {
				turns[i].Call = call
			}
			perCall := benchturns.Measure(b, interleaveRun, turns)
			for i, name := range c.impls {
				b.ReportMetric(perCall[i], "ns/call-"+name)
				if i > 0 {
					b.ReportMetric(perCall[i]/perCall[0], "ratio-"+name)
				}
			}
			for i, name := range c.impls {
				if got := c.output(i); string(got) != string(c.want) {
					b.Fatalf("%s: output %x, want %x", name, got, c.want)
				}
			}
		})
	}
}

// interleaveRun is how many calls of one implementation run before the
// next implementation's turn.
const interleaveRun = 64

// threeImpls names the implementations of most cases, in the order of
// interleavedCase.calls.
var threeImpls = []string{"keccakroot", "go-ethereum", "x-crypto"}

// interleavedCase is one operation as each implementation does it. Each
// impl after the first gets a ratio-<impl> metric: its time over the first
// one's.
type interleavedCase struct {
	name   string
	impls  []string
	calls  []func(int)
	output func(impl int) []byte // what impl's calls produced last
	want   []byte
}

func interleavedCases() []interleavedCase {
	var cases []interleavedCase
	for _, size := range []int{32, 135, 136, 532, 4096} {
		msg := benchMessage(size)
		cases = append(cases, sumCase(msg), hasherCase(msg))
	}
	for _, size := range []int{135, 136, 137} {
		cases = append(cases, readCase(size))
	}
	return append(cases, writeByteCase(128), writeByteVsWriteCase(128))
}

func sumCase(msg []byte) interleavedCase {
	var out [3][32]byte
	xc := sha3.NewLegacyKeccak256()
	return interleavedCase{
		name:  fmt.Sprintf("op=Sum256/size=%d", len(msg)),
		impls: threeImpls,
		calls: []func(int){
			func(int) { out[0] = Sum256(msg) },
			func(int) { out[1] = crypto.Keccak256Hash(msg) },
			func(int) {
				xc.Reset()
				xc.Write(msg)
				xc.Sum(out[2][:0])
			},
		},
		output: func(i int) []byte { return out[i][:] },
		want:   referenceDigest(msg, 32),
	}
}

// hasherCase is Reset, Write, Read of 32 bytes, as go-ethereum's trie
// hasher uses its KeccakState; readCase the same with a longer Read.
func hasherCase(msg []byte) interleavedCase {
	c := readCaseOf(msg, 32)
	c.name = fmt.Sprintf("op=Hasher/size=%d", len(msg))
	return c
}

func readCase(size int) interleavedCase {
	c := readCaseOf(benchMessage(32), size)
	c.name = fmt.Sprintf("op=Read/size=%d", size)
	return c
}

func readCaseOf(msg []byte, n int) interleavedCase {
	var out [3][]byte
	for i := range out {
		out[i] = make([]byte, n)
	}
	ours := new(Hasher)
	geth := crypto.NewKeccakState()
	xc := sha3.NewLegacyKeccak256().(xcryptoState)
	return interleavedCase{
		impls: threeImpls,
		calls: []func(int){
			func(int) {
				ours.Reset()
				ours.Write(msg)
				ours.Read(out[0])
			},
			func(int) {
				geth.Reset()
				geth.Write(msg)
				geth.Read(out[1])
			},
			func(int) {
				xc.Reset()
				xc.Write(msg)
				xc.Read(out[2])
			},
		},
		output: func(i int) []byte { return out[i] },
		want:   referenceDigest(msg, n),
	}
}

// writeByteCase writes the message one byte at a time: WriteByte for
// keccakroot, one-byte slices for the others.
func writeByteCase(size int) interleavedCase {
	msg := benchMessage(size)
	var out [3][32]byte
	var ours Hasher
	geth := crypto.NewKeccakState()
	xc := sha3.NewLegacyKeccak256().(xcryptoState)
	oneByOne := func(h xcryptoState, d []byte) {
		h.Reset()
		for i := range msg {
			h.Write(msg[i : i+1])
		}
		h.Read(d)
	}
	return interleavedCase{
		name:  fmt.Sprintf("op=WriteByte/size=%d", size),
		impls: threeImpls,
		calls: []func(int){
			func(int) {
				ours.Reset()
				for _, c := range msg {
					ours.WriteByte(c)
				}
				ours.Read(out[0][:])
			},
			func(int) { oneByOne(geth, out[1][:]) },
			func(int) { oneByOne(xc, out[2][:]) },
		},
		output: func(i int) []byte { return out[i][:] },
		want:   referenceDigest(msg, 32),
	}
}

// writeByteVsWriteCase is the Hasher writing the message in one Write,
// then one byte at a time: its ratio-writebyte is what the one-byte fast
// path costs over a single Write.
func writeByteVsWriteCase(size int) interleavedCase {
	msg := benchMessage(size)
	var out [2][32]byte
	var whole, bytewise Hasher
	return interleavedCase{
		name:  fmt.Sprintf("op=WriteByteVsWrite/size=%d", size),
		impls: []string{"write", "writebyte"},
		calls: []func(int){
			func(int) {
				whole.Reset()
				whole.Write(msg)
				whole.Read(out[0][:])
			},
			func(int) {
				bytewise.Reset()
				for _, c := range msg {
					bytewise.WriteByte(c)
				}
				bytewise.Read(out[1][:])
			},
		},
		output: func(i int) []byte { return out[i][:] },
		want:   referenceDigest(msg, 32),
	}
}

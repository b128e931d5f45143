package fastkeccak

import (
	"bytes"
	"encoding"
	"fmt"
	"hash"
	"math/rand/v2"
	"testing"

	"golang.org/x/crypto/sha3"

	"github.com/keccakroot/keccakroot/internal/kernels"
)

// The differential tests drive a Hasher and x/crypto's legacy Keccak-256
// through the same program of calls and compare every output, every panic
// and every marshalled state. A program is a byte string, so the fuzz target
// explores the same space as the random tests.

// Operation codes; a program byte selects one modulo opCount.
const (
	opWrite = iota
	opWriteByte
	opWriteString
	opRead
	opSum
	opSum256
	opReset
	opClone
	opMarshalOurs // marshal ours, continue in a fresh x/crypto hasher and vice versa
	opMarshalTheirs
	opCount
)

// interestingSizes are the lengths around the block boundaries.
var interestingSizes = []int{0, 1, 7, 8, 31, 32, 33, 135, 136, 137, 271, 272, 273, 409}

// xcryptoState is what go-ethereum's KeccakState and x/crypto's hasher share.
type xcryptoState interface {
	hash.Hash
	Read([]byte) (int, error)
}

// differentialRun executes one program.
type differentialRun struct {
	t      testing.TB
	ours   *Hasher
	theirs xcryptoState
	prog   []byte
	data   []byte // input bytes, taken from the program's own bytes
}

func (r *differentialRun) next() (byte, bool) {
	if len(r.prog) == 0 {
		return 0, false
	}
	b := r.prog[0]
	r.prog = r.prog[1:]
	return b, true
}

// size picks a length: usually one of interestingSizes, sometimes arbitrary.
func (r *differentialRun) size() int {
	b, _ := r.next()
	if b < 200 {
		return interestingSizes[int(b)%len(interestingSizes)]
	}
	c, _ := r.next()
	return int(c) + int(b-200)*256%(3*rate+2)
}

func (r *differentialRun) input(n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = r.data[(i*7+len(r.prog))%len(r.data)] ^ byte(i)
	}
	return out
}

// panics calls f and reports whether it panicked.
func panics(f func()) (panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	f()
	return false
}

func (r *differentialRun) run() {
	t := r.t
	step := 0
	for {
		op, ok := r.next()
		if !ok {
			break
		}
		step++
		where := fmt.Sprintf("step %d (op %d)", step, op%opCount)
		switch op % opCount {
		case opWrite:
			in := r.input(r.size())
			p1 := panics(func() { r.ours.Write(in) })
			p2 := panics(func() { r.theirs.Write(in) })
			if p1 != p2 {
				t.Fatalf("%s: Write panicked: ours %v, x/crypto %v", where, p1, p2)
			}
		case opWriteByte:
			in := r.input(r.size())
			p1 := panics(func() {
				for _, c := range in {
					r.ours.WriteByte(c)
				}
			})
			p2 := panics(func() {
				for _, c := range in {
					r.theirs.Write([]byte{c})
				}
			})
			if p1 != p2 {
				t.Fatalf("%s: WriteByte panicked: ours %v, x/crypto %v", where, p1, p2)
			}
		case opWriteString:
			in := string(r.input(r.size()))
			p1 := panics(func() { r.ours.WriteString(in) })
			p2 := panics(func() { r.theirs.Write([]byte(in)) })
			if p1 != p2 {
				t.Fatalf("%s: WriteString panicked: ours %v, x/crypto %v", where, p1, p2)
			}
		case opRead:
			n := r.size()
			got, want := make([]byte, n), make([]byte, n)
			r.ours.Read(got)
			r.theirs.Read(want)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: Read(%d) = %x, x/crypto %x", where, n, got, want)
			}
		case opSum, opSum256:
			var got, want []byte
			p1 := panics(func() {
				if op%opCount == opSum {
					got = r.ours.Sum([]byte("prefix"))
				} else {
					d := r.ours.Sum256()
					got = append([]byte("prefix"), d[:]...)
				}
			})
			p2 := panics(func() { want = r.theirs.Sum([]byte("prefix")) })
			if p1 != p2 || !bytes.Equal(got, want) {
				t.Fatalf("%s: Sum = %x (panic %v), x/crypto %x (panic %v)", where, got, p1, want, p2)
			}
		case opReset:
			r.ours.Reset()
			r.theirs.Reset()
		case opClone:
			c, err := r.ours.Clone()
			if err != nil {
				t.Fatal(err)
			}
			// Write to the original after cloning: the clone must not see it.
			r.ours.Reset()
			r.ours.Write([]byte("scribble"))
			r.ours = c.(*Hasher)
		case opMarshalOurs:
			state, err := r.ours.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			theirState, _ := r.theirs.(encoding.BinaryMarshaler).MarshalBinary()
			if !bytes.Equal(state, theirState) {
				t.Fatalf("%s: marshalled states differ:\n ours %x\n them %x", where, state, theirState)
			}
			fresh := sha3.NewLegacyKeccak256().(xcryptoState)
			if err := fresh.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
				t.Fatalf("%s: x/crypto rejects our state: %v", where, err)
			}
			r.theirs = fresh
		case opMarshalTheirs:
			state, err := r.theirs.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var fresh Hasher
			if err := fresh.UnmarshalBinary(state); err != nil {
				t.Fatalf("%s: x/crypto's state rejected: %v", where, err)
			}
			appended, _ := fresh.AppendBinary([]byte("x"))
			if !bytes.Equal(appended[1:], state) {
				t.Fatalf("%s: state does not round-trip", where)
			}
			r.ours = &fresh
		}
	}
	// Whatever happened, the two must agree on a final read.
	got, want := make([]byte, 200), make([]byte, 200)
	r.ours.Read(got)
	r.theirs.Read(want)
	if !bytes.Equal(got, want) {
		t.Fatalf("final Read differs:\n ours %x\n them %x", got, want)
	}
}

func runProgram(t testing.TB, prog []byte) {
	r := &differentialRun{
		t:      t,
		ours:   new(Hasher),
		theirs: sha3.NewLegacyKeccak256().(xcryptoState),
		prog:   prog,
		data:   append([]byte{0x5a}, prog...),
	}
	r.run()
}

func TestDifferentialPrograms(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		programs := 3000
		if testing.Short() {
			programs = 300
		}
		for range programs {
			prog := make([]byte, rng.IntN(40))
			for i := range prog {
				prog[i] = byte(rng.Uint32())
			}
			runProgram(t, prog)
		}
	})
}

// TestChunkedWrites writes one message in every chunk size from 0 to
// 3*136+1, then byte by byte, and compares with x/crypto.
func TestChunkedWrites(t *testing.T) {
	msg := make([]byte, 5*rate+17)
	for i := range msg {
		msg[i] = byte(i*131 + 7)
	}
	want := sha3.NewLegacyKeccak256()
	want.Write(msg)
	wantSum := want.Sum(nil)
	forEachBackend(t, func(t *testing.T) {
		for chunk := 0; chunk <= 3*rate+1; chunk++ {
			var h Hasher
			for rest := msg; len(rest) > 0; {
				k := min(max(chunk, 1), len(rest))
				if chunk == 0 {
					h.Write(nil)
				}
				h.Write(rest[:k])
				rest = rest[k:]
			}
			if got := h.Sum(nil); !bytes.Equal(got, wantSum) {
				t.Fatalf("chunk %d: %x, want %x", chunk, got, wantSum)
			}
		}
		var h Hasher
		for _, c := range msg {
			h.WriteByte(c)
		}
		if got := h.Sum(nil); !bytes.Equal(got, wantSum) {
			t.Fatalf("byte by byte: %x, want %x", got, wantSum)
		}
	})
}

// TestReadBoundaries reads 135, 136, 137 and 272 bytes, then more, and
// compares the stream with x/crypto's.
func TestReadBoundaries(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, first := range []int{0, 1, 32, 135, 136, 137, 272} {
			for _, second := range []int{1, 8, 135, 136, 137, 300} {
				var h Hasher
				theirs := sha3.NewLegacyKeccak256().(xcryptoState)
				h.Write([]byte("read boundaries"))
				theirs.Write([]byte("read boundaries"))
				got, want := make([]byte, first+second), make([]byte, first+second)
				h.Read(got[:first])
				h.Read(got[first:])
				theirs.Read(want)
				if !bytes.Equal(got, want) {
					t.Fatalf("Read(%d) then Read(%d) differs from x/crypto", first, second)
				}
			}
		}
	})
}

// TestSum256Lengths checks the one-shot and streaming forms agree on every
// length across four blocks.
func TestSum256Lengths(t *testing.T) {
	msg := make([]byte, 4*rate+3)
	for i := range msg {
		msg[i] = byte(i ^ 0xa5)
	}
	forEachBackend(t, func(t *testing.T) {
		for n := range len(msg) + 1 {
			want := sha3.NewLegacyKeccak256()
			want.Write(msg[:n])
			got := Sum256(msg[:n])
			if !bytes.Equal(got[:], want.Sum(nil)) {
				t.Fatalf("Sum256 of %d bytes: %x, want %x", n, got, want.Sum(nil))
			}
		}
	})
}

func FuzzHasherPrograms(f *testing.F) {
	logMissingKernels(f, kernels.Single, "kernel")
	f.Add([]byte{opWrite, 9, opRead, 10})
	f.Add([]byte{opWriteByte, 8, opMarshalOurs, opWrite, 10, opSum})
	f.Add([]byte{opRead, 9, opWrite, 1, opSum256, opReset, opWriteString, 11})
	f.Add([]byte{opWrite, 250, 3, opClone, opMarshalTheirs, opRead, 10, opRead, 9, opMarshalOurs})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 256 {
			prog = prog[:256]
		}
		for _, id := range availableBackends() {
			useBackend(t, id)
			runProgram(t, prog)
		}
	})
}

func FuzzSum256(f *testing.F) {
	logMissingKernels(f, kernels.Single, "kernel")
	for _, n := range interestingSizes {
		f.Add(make([]byte, n))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		want := sha3.NewLegacyKeccak256()
		want.Write(msg)
		for _, id := range availableBackends() {
			useBackend(t, id)
			if got := Sum256(msg); !bytes.Equal(got[:], want.Sum(nil)) {
				t.Fatalf("backend %s: Sum256 = %x, want %x", id, got, want.Sum(nil))
			}
		}
	})
}

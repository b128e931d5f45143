package adapter

import (
	"bytes"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

func TestKeccakDropIns(t *testing.T) {
	r := newRand(t)
	inputs := [][][]byte{
		nil,
		{nil},
		{{}},
		{[]byte("abc")},
		{make([]byte, 135), make([]byte, 1), make([]byte, 136)},
	}
	for range 20 {
		parts := make([][]byte, r.IntN(4))
		for i := range parts {
			parts[i] = randBytes(r)
		}
		inputs = append(inputs, parts)
	}
	for i, data := range inputs {
		if got, want := Keccak256(data...), crypto.Keccak256(data...); !bytes.Equal(got, want) {
			t.Errorf("input %d: Keccak256 = %x, go-ethereum %x", i, got, want)
		}
		if got, want := Keccak256Hash(data...), crypto.Keccak256Hash(data...); got != want {
			t.Errorf("input %d: Keccak256Hash = %x, go-ethereum %x", i, got, want)
		}
		joined := bytes.Join(data, nil)
		for _, kh := range []crypto.KeccakState{NewKeccakState(), crypto.NewKeccakState()} {
			kh.Write([]byte("state left over from an earlier use"))
			if got, want := HashData(kh, joined), crypto.HashData(crypto.NewKeccakState(), joined); got != want {
				t.Errorf("input %d: HashData(%T) = %x, go-ethereum %x", i, kh, got, want)
			}
		}
	}
}

// TestKeccakStateBehaviour drives NewKeccakState and crypto.NewKeccakState
// through the same calls, including the Read that switches to squeezing and
// HashData, which leaves the state squeezing.
func TestKeccakStateBehaviour(t *testing.T) {
	ours, theirs := NewKeccakState(), crypto.NewKeccakState()
	if ours.Size() != theirs.Size() || ours.BlockSize() != theirs.BlockSize() {
		t.Fatalf("Size/BlockSize = %d/%d, go-ethereum %d/%d", ours.Size(), ours.BlockSize(), theirs.Size(), theirs.BlockSize())
	}
	for _, kh := range []crypto.KeccakState{ours, theirs} {
		kh.Write([]byte("hello"))
	}
	if got, want := ours.Sum(nil), theirs.Sum(nil); !bytes.Equal(got, want) {
		t.Fatalf("Sum = %x, go-ethereum %x", got, want)
	}
	read := func(kh crypto.KeccakState) []byte {
		out := make([]byte, 200)
		kh.Read(out[:7])
		kh.Read(out[7:])
		return out
	}
	if got, want := read(ours), read(theirs); !bytes.Equal(got, want) {
		t.Fatalf("Read = %x, go-ethereum %x", got, want)
	}
	HashData(ours, []byte("x"))
	crypto.HashData(theirs, []byte("x"))
	if got, want := read(ours), read(theirs); !bytes.Equal(got, want) {
		t.Fatalf("Read after HashData = %x, go-ethereum %x", got, want)
	}
	var zero common.Hash
	if Keccak256Hash() == zero {
		t.Fatal("Keccak256Hash of nothing is zero")
	}
}

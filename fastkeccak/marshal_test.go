package fastkeccak

import (
	"bytes"
	"errors"
	"testing"

	"golang.org/x/crypto/sha3"
)

func TestUnmarshalRejectsBadInput(t *testing.T) {
	var h Hasher
	h.Write([]byte("some input that stays buffered"))
	good, _ := h.MarshalBinary()
	mutate := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	cases := map[string][]byte{
		"empty":           nil,
		"short":           good[:len(good)-1],
		"long":            append(bytes.Clone(good), 0),
		"magic":           mutate(func(b []byte) []byte { b[3] = 0x0a; return b }),
		"rate":            mutate(func(b []byte) []byte { b[4] = 72; return b }),
		"offset":          mutate(func(b []byte) []byte { b[len(b)-2] = rate + 1; return b }),
		"direction":       mutate(func(b []byte) []byte { b[len(b)-1] = 2; return b }),
		"full-absorbing":  mutate(func(b []byte) []byte { b[len(b)-2] = rate; return b }),
		"sha3-256-magic":  mutate(func(b []byte) []byte { copy(b, "sha\x08"); return b }),
		"keccak512-magic": mutate(func(b []byte) []byte { b[4] = 72; copy(b, "sha\x0b"); return b }),
	}
	for name, input := range cases {
		t.Run(name, func(t *testing.T) {
			target := h // a Hasher with state, which must survive the failure
			err := target.UnmarshalBinary(input)
			if !errors.Is(err, ErrInvalidState) {
				t.Fatalf("UnmarshalBinary = %v, want ErrInvalidState", err)
			}
			if target != h {
				t.Fatal("failed UnmarshalBinary changed the Hasher")
			}
		})
	}
}

// TestMarshalSqueezingAcrossImplementations moves a squeezing state to
// x/crypto and back, stopping on a block boundary, and checks the streams.
func TestMarshalSqueezingAcrossImplementations(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		var h Hasher
		h.Write([]byte("squeeze me"))
		skip := make([]byte, rate)
		h.Read(skip)
		state, _ := h.MarshalBinary()
		theirs := sha3.NewLegacyKeccak256()
		if err := theirs.(interface{ UnmarshalBinary([]byte) error }).UnmarshalBinary(state); err != nil {
			t.Fatal(err)
		}
		got, want := make([]byte, 300), make([]byte, 300)
		h.Read(got)
		theirs.(xcryptoState).Read(want)
		if !bytes.Equal(got, want) {
			t.Fatal("squeezed streams differ after moving the state to x/crypto")
		}
	})
}

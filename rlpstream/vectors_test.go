package rlpstream

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// vector is one case of the ethereum/tests RLP files.
type vector struct {
	Name string
	In   any
	Out  []byte
}

func loadVectors(t testing.TB, file string) []vector {
	t.Helper()
	data, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]struct {
		In  any    `json:"in"`
		Out string `json:"out"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	var vs []vector
	for name, r := range raw {
		s := strings.TrimPrefix(strings.TrimPrefix(r.Out, "0x"), "0X")
		if len(s)%2 == 1 {
			s = "0" + s
		}
		out, err := hex.DecodeString(s)
		if err != nil {
			t.Fatalf("%s: bad hex: %v", name, err)
		}
		vs = append(vs, vector{Name: name, In: r.In, Out: out})
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
	if len(vs) == 0 {
		t.Fatalf("%s: no vectors", file)
	}
	return vs
}

// translateJSON turns a test's "in" into a value both encoders take: numbers
// are uint64, "#digits" is a big integer, other strings are byte strings.
func translateJSON(t testing.TB, v any) any {
	switch v := v.(type) {
	case float64:
		return uint64(v)
	case string:
		if strings.HasPrefix(v, "#") {
			x, ok := new(big.Int).SetString(v[1:], 10)
			if !ok {
				t.Fatalf("bad big int %q", v)
			}
			return x
		}
		return []byte(v)
	case []any:
		out := make([]any, len(v))
		for i := range v {
			out[i] = translateJSON(t, v[i])
		}
		return out
	}
	t.Fatalf("unexpected JSON value %T", v)
	return nil
}

// encodeAll encodes v with every sink of this package, checks that they
// agree with each other and with the size functions, and returns the bytes
// and the hash computed by Writer.
func encodeAll(t testing.TB, v any) (enc []byte, sum [32]byte, err error) {
	t.Helper()
	var a appender
	errA := encodeValue(&a, v)

	var buf bytes.Buffer
	sw := NewStreamWriter(&buf)
	errS := encodeValue(sw, v)
	if !errors.Is(errS, sw.Err()) || !errors.Is(sw.Err(), errS) {
		t.Fatalf("StreamWriter: returned %v, Err() = %v", errS, sw.Err())
	}

	var h fastkeccak.Hasher
	errW := encodeValue(NewWriter(&h), v)

	if !errors.Is(errA, errS) || !errors.Is(errA, errW) {
		t.Fatalf("sinks disagree on error: append %v, stream %v, hasher %v", errA, errS, errW)
	}
	if errA != nil {
		return nil, sum, errA
	}
	if !bytes.Equal(a.b, buf.Bytes()) {
		t.Fatalf("append and StreamWriter disagree:\n%x\n%x", a.b, buf.Bytes())
	}
	if n := sizeOf(v); n != len(a.b) {
		t.Fatalf("size function says %d, encoding has %d bytes", n, len(a.b))
	}
	return a.b, h.Sum256(), nil
}

func TestRLPTestVectors(t *testing.T) {
	for _, vec := range loadVectors(t, "rlptest.json") {
		t.Run(vec.Name, func(t *testing.T) {
			in := translateJSON(t, vec.In)
			want, err := rlp.EncodeToBytes(in)
			if err != nil || !bytes.Equal(want, vec.Out) {
				t.Fatalf("reference encoder disagrees with the vector: %x, %v", want, err)
			}
			enc, sum, err := encodeAll(t, in)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(enc, vec.Out) {
				t.Fatalf("encoded %x, want %x", enc, vec.Out)
			}
			if want := crypto.Keccak256Hash(vec.Out); sum != want {
				t.Fatalf("hash %x, want %x", sum, want)
			}
			if err := Validate(vec.Out); err != nil {
				t.Fatalf("Validate rejects a valid vector: %v", err)
			}
		})
	}
}

func TestInvalidRLPTestVectors(t *testing.T) {
	for _, vec := range loadVectors(t, "invalidRLPTest.json") {
		t.Run(vec.Name, func(t *testing.T) {
			if vec.In != "INVALID" {
				t.Fatalf("unexpected in %v", vec.In)
			}
			err := Validate(vec.Out)
			if err == nil {
				t.Fatalf("Validate accepts %x", vec.Out)
			}
			if offsetOf(err) < 0 {
				t.Fatalf("error without offset: %v", err)
			}
			if gerr := rlp.DecodeBytes(vec.Out, new(any)); gerr == nil {
				t.Fatalf("go-ethereum accepts %x", vec.Out)
			}
			off, gerr := gethValidate(vec.Out)
			if !sameError(err, gerr) || (len(vec.Out) > 0 && off != offsetOf(err)) {
				t.Fatalf("got %v, go-ethereum says %v at offset %d", err, gerr, off)
			}
		})
	}
}

package rlpstream

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// TestAllocs checks that encoding into a hasher, into a grown buffer and
// into a slice with room, and every reading function, allocate nothing.
func TestAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation changes allocation counts")
	}
	payload := bytes.Repeat([]byte{0xab}, 300)
	hash := [32]byte{1, 2, 3}
	bal := uint256.NewInt(1e18)
	big1 := new(big.Int).Lsh(big.NewInt(3), 200)
	big2 := new(big.Int).Lsh(big.NewInt(3), 300)
	content := Uint64Size(1234) + BytesSize(hash[:]) + BytesSize(payload) + Uint256Size(bal) +
		BigIntSize(big1) + BigIntSize(big2) + StringSize("dog") + BoolSize(true) + 3
	raw := []byte{0xc2, 0x01, 0x02}

	var h fastkeccak.Hasher
	if n := testing.AllocsPerRun(100, func() {
		h.Reset()
		w := NewWriter(&h)
		w.WriteListHeader(content)
		w.WriteUint64(1234)
		w.WriteBytes(hash[:])
		w.WriteBytes(payload)
		w.WriteUint256(bal)
		w.WriteBigInt(big1)
		w.WriteBigInt(big2)
		w.WriteString("dog")
		w.WriteBool(true)
		w.WriteRaw(raw)
		_ = h.Sum256()
	}); n != 0 {
		t.Errorf("Writer: %v allocs per run", n)
	}

	var buf bytes.Buffer
	buf.Grow(1024)
	if n := testing.AllocsPerRun(100, func() {
		buf.Reset()
		sw := NewStreamWriter(&buf)
		sw.WriteListHeader(content)
		sw.WriteUint64(1234)
		sw.WriteBytes(hash[:])
		sw.WriteBytes(payload)
		sw.WriteUint256(bal)
		sw.WriteBigInt(big1)
		sw.WriteBigInt(big2)
		sw.WriteString("dog")
		sw.WriteBool(true)
		sw.WriteRaw(raw)
	}); n != 0 {
		t.Errorf("StreamWriter: %v allocs per run", n)
	}

	dst := make([]byte, 0, 1024)
	var enc []byte
	if n := testing.AllocsPerRun(100, func() {
		b := AppendListHeader(dst[:0], content)
		b = AppendUint64(b, 1234)
		b = AppendBytes(b, hash[:])
		b = AppendBytes(b, payload)
		b = AppendUint256(b, bal)
		b, _ = AppendBigInt(b, big1)
		b, _ = AppendBigInt(b, big2)
		b = AppendString(b, "dog")
		b = AppendBool(b, true)
		enc = AppendRaw(b, raw)
	}); n != 0 {
		t.Errorf("Append: %v allocs per run", n)
	}
	if len(enc) != ListSize(content) {
		t.Fatalf("encoded %d bytes, want %d", len(enc), ListSize(content))
	}

	if n := testing.AllocsPerRun(100, func() {
		if Validate(enc) != nil {
			t.Fatal("invalid")
		}
		_, c, _, _ := Split(enc)
		if _, err := CountValues(c); err != nil {
			t.Fatal(err)
		}
		it, _ := NewListIterator(enc)
		for it.Next() {
		}
	}); n != 0 {
		t.Errorf("reader: %v allocs per run", n)
	}
}

// TestNoAllocFromClaimedSize feeds headers that claim huge sizes: the reader
// must reject them without allocating.
func TestNoAllocFromClaimedSize(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation changes allocation counts")
	}
	inputs := [][]byte{
		mustHex("bf" + hexRepeat("ff", 8)),
		mustHex("ff" + hexRepeat("ff", 8)),
		mustHex("c4ff" + hexRepeat("ff", 8)),
		mustHex("fb7fffffff00"),
	}
	for _, in := range inputs {
		if Validate(in) == nil {
			t.Fatalf("%x accepted", in)
		}
	}
	// Only the error value itself may be allocated.
	if n := testing.AllocsPerRun(100, func() {
		for _, in := range inputs {
			_ = Validate(in)
		}
	}); n > float64(len(inputs)) {
		t.Errorf("%v allocs per run for %d errors", n, len(inputs))
	}
}

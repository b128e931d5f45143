package adapter

import (
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
)

// allocSink makes a result escape, as a caller's would.
var allocSink []byte

// TestAllocations pins what each function allocates: nothing for the
// hashes of RLP values and legacy transactions, one object for a typed
// transaction, the returned slice for Keccak256.
func TestAllocations(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("instrumented builds allocate")
	}
	r := newRand(t)
	header := randHeader(r, 0xff)
	uncles := []*types.Header{randHeader(r, 1), randHeader(r, 0)}
	data := make([]byte, 300)
	kh := NewKeccakState()
	tests := []struct {
		name string
		f    func()
		want float64
	}{
		{"HeaderHash", func() { HeaderHash(header) }, 0},
		{"UncleHash", func() { UncleHash(uncles) }, 0},
		{"Keccak256Hash", func() { Keccak256Hash(data, data[:7]) }, 0},
		{"Keccak256", func() { allocSink = Keccak256(data, data[:7]) }, 1},
		{"HashData", func() { HashData(kh, data) }, 0},
	}
	for _, tt := range tests {
		if got := testing.AllocsPerRun(100, tt.f); got != tt.want {
			t.Errorf("%s: %v allocations, want %v", tt.name, got, tt.want)
		}
	}
	for _, typ := range txTypes {
		// go-ethereum's EncodeRLP boxes a typed transaction's envelope
		// into an interface, once; a legacy one it encodes in place.
		want := 1.0
		if typ == types.LegacyTxType {
			want = 0
		}
		tx := randTx(r, typ)
		if got := testing.AllocsPerRun(100, func() { TxHash(tx) }); got != want {
			t.Errorf("TxHash of type %d: %v allocations, want %v", typ, got, want)
		}
	}
}

// TestVerifyBlockRLPAllocations checks that VerifyBlockRLP allocates a
// bounded number of objects for a block, whatever its number of
// transactions: the trie builder's, none per transaction.
func TestVerifyBlockRLPAllocations(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("instrumented builds allocate")
	}
	raw, _ := benchBlock(&testing.B{})
	got := testing.AllocsPerRun(20, func() {
		if _, err := VerifyBlockRLP(raw); err != nil {
			t.Fatal(err)
		}
	})
	if got > 40 {
		t.Errorf("VerifyBlockRLP of a 200-transaction block: %v allocations, want at most 40", got)
	}
}

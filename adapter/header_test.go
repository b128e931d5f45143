package adapter

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
)

// TestHeaderHashOptionalFields compares HeaderHash with go-ethereum on every
// combination of the eight optional fields, present or absent: the prefixes
// that forks produce, and the holes that force earlier fields to be written
// as empty strings.
func TestHeaderHashOptionalFields(t *testing.T) {
	r := newRand(t)
	for mask := range 256 {
		for range 3 {
			h := randHeader(r, uint8(mask))
			if got, want := HeaderHash(h), h.Hash(); got != want {
				t.Fatalf("optional fields %08b: HeaderHash = %x, go-ethereum %x", mask, got, want)
			}
		}
	}
}

func TestHeaderHashEdgeCases(t *testing.T) {
	r := newRand(t)
	tests := []struct {
		name   string
		header func() *types.Header
	}{
		{"nil header", func() *types.Header { return nil }},
		{"zero header", func() *types.Header { return &types.Header{} }},
		{"nil integers", func() *types.Header {
			h := randHeader(r, 0xff)
			h.Difficulty, h.Number, h.BaseFee = nil, nil, nil
			return h
		}},
		{"huge difficulty", func() *types.Header {
			h := randHeader(r, 1)
			h.Difficulty = new(big.Int).Lsh(big.NewInt(1), 600)
			return h
		}},
		{"long extra", func() *types.Header {
			h := randHeader(r, 0x1f)
			h.Extra = make([]byte, 70000)
			return h
		}},
		{"negative difficulty", func() *types.Header {
			h := randHeader(r, 0)
			h.Difficulty = big.NewInt(-1)
			return h
		}},
		{"negative base fee", func() *types.Header {
			h := randHeader(r, 0x3)
			h.BaseFee = big.NewInt(-5)
			return h
		}},
		{"only slot number", func() *types.Header {
			h := randHeader(r, 0x80)
			return h
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.header()
			if got, want := HeaderHash(h), h.Hash(); got != want {
				t.Fatalf("HeaderHash = %x, go-ethereum %x", got, want)
			}
		})
	}
}

func TestUncleHash(t *testing.T) {
	r := newRand(t)
	tests := []struct {
		name   string
		uncles []*types.Header
	}{
		{"nil", nil},
		{"empty", []*types.Header{}},
		{"one", []*types.Header{randHeader(r, 0)}},
		{"two London", []*types.Header{randHeader(r, 1), randHeader(r, 1)}},
		{"mixed forks", []*types.Header{randHeader(r, 0), randHeader(r, 0x1f), randHeader(r, 0xff)}},
		{"nil uncle", []*types.Header{randHeader(r, 1), nil}},
		{"negative number", []*types.Header{randHeader(r, 1), {Number: big.NewInt(-1)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := UncleHash(tt.uncles), types.CalcUncleHash(tt.uncles); got != want {
				t.Fatalf("UncleHash = %x, go-ethereum %x", got, want)
			}
		})
	}
}

func TestBlockHash(t *testing.T) {
	r := newRand(t)
	for mask := range 256 {
		b := types.NewBlockWithHeader(randHeader(r, uint8(mask)))
		if got, want := BlockHash(b), b.Hash(); got != want {
			t.Fatalf("optional fields %08b: BlockHash = %x, go-ethereum %x", mask, got, want)
		}
	}
}

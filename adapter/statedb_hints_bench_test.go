package adapter

import (
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// fixedReader answers every read with the same account and a slot value.
type fixedReader struct {
	state.Reader
	acc types.StateAccount
}

func (r *fixedReader) Account(common.Address) (*types.StateAccount, error) {
	acc := r.acc
	return &acc, nil
}

func (r *fixedReader) Storage(common.Address, common.Hash) (common.Hash, error) {
	return common.Hash{31: 1, 30: 2}, nil
}

// BenchmarkStateHintsReads is the cost the hints add to a block's reads:
// 2,000 accounts and 5,000 slots over 200 contracts, read through a
// reader that keeps them.
func BenchmarkStateHintsReads(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	addrs := make([]common.Address, 2000)
	for i := range addrs {
		addrs[i] = randAddress(r)
	}
	slots := make([]common.Hash, 5000)
	for i := range slots {
		slots[i] = randHash(r)
	}
	inner := &fixedReader{acc: types.StateAccount{Nonce: 1, Balance: uint256.NewInt(1e18), Root: types.EmptyRootHash, CodeHash: types.EmptyCodeHash[:]}}
	b.ReportAllocs()
	for b.Loop() {
		hints := new(stateHints)
		reader := hinting(inner, hints.at(common.Hash{}))
		for _, a := range addrs {
			reader.Account(a)
		}
		for i, s := range slots {
			reader.Storage(addrs[i%200], s)
		}
	}
}

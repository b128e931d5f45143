package adapter_test

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/adapter"
)

// A StateDB on keccakroot's tries: the same state changes committed on
// go-ethereum's own state database and on NewStateDatabase reach the same
// root.
func ExampleNewStateDatabase() {
	commit := func(sdb state.Database) common.Hash {
		statedb, err := state.New(types.EmptyRootHash, sdb)
		if err != nil {
			panic(err)
		}
		statedb.SetBalance(common.Address{1}, uint256.NewInt(1e18), tracing.BalanceChangeUnspecified)
		statedb.SetState(common.Address{2}, common.Hash{3}, common.Hash{4})
		root, err := statedb.Commit(params.MergedTestChainConfig.Rules(common.Big1, true, 0), 1)
		if err != nil {
			panic(err)
		}
		return root
	}
	newDatabase := func() state.Database {
		return state.NewMPTDatabase(triedb.NewDatabase(rawdb.NewMemoryDatabase(), triedb.HashDefaults), nil)
	}
	ours := commit(adapter.NewStateDatabase(newDatabase()))
	theirs := commit(newDatabase())
	fmt.Println(ours.Hex())
	fmt.Println("go-ethereum's root too:", ours == theirs)
	// Output:
	// 0xcbd3666e9f7f8789f8d2fe9df35cac8944e2976b1e3ad97ba906aa4937255a05
	// go-ethereum's root too: true
}

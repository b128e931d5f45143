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
	"github.com/ethereum/go-ethereum/triedb/pathdb"
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

// A StateDB on keccakroot's tries with a node cache, block after block on
// the path scheme, as a client at the head of its chain runs it: each
// block finds the nodes the blocks before it committed in the cache, not
// through the trie database's diff layers, and the roots are go-ethereum's.
func ExampleNewStateDatabaseWithNodeCache() {
	rules := params.MergedTestChainConfig.Rules(common.Big1, true, 0)
	chain := func(sdb state.Database) common.Hash {
		root := types.EmptyRootHash
		for block := uint64(1); block <= 3; block++ {
			statedb, err := state.New(root, sdb)
			if err != nil {
				panic(err)
			}
			statedb.AddBalance(common.Address{1}, uint256.NewInt(block), tracing.BalanceChangeUnspecified)
			statedb.SetState(common.Address{2}, common.Hash{byte(block)}, common.Hash{4})
			if root, err = statedb.Commit(rules, block); err != nil {
				panic(err)
			}
		}
		return root
	}
	newDatabase := func() state.Database {
		return state.NewMPTDatabase(triedb.NewDatabase(rawdb.NewMemoryDatabase(), &triedb.Config{PathDB: pathdb.Defaults}), nil)
	}
	cache := adapter.NewNodeCache(64 << 20)
	ours := chain(adapter.NewStateDatabaseWithNodeCache(newDatabase(), cache))
	theirs := chain(newDatabase())
	hits, _ := cache.Stats()
	fmt.Println(ours.Hex())
	fmt.Println("go-ethereum's root too:", ours == theirs)
	fmt.Println("nodes read from the cache:", hits > 0)
	// Output:
	// 0xc5b08d4456ee0e4f0b416506ea2bd6849c7b877d61e471f80453b3edc08063b1
	// go-ethereum's root too: true
	// nodes read from the cache: true
}

package adapter_test

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/pathdb"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/adapter"
)

// A block rolled forward from its access list alone on the path scheme, as
// a client syncing from access lists does: the state update goes to the
// state database's Commit, and go-ethereum's StateDB then reads the
// block's values at the new root, which is the one go-ethereum's
// ApplyBlockAccessList and Commit reach.
func ExampleAccessListStateUpdate() {
	rules := params.MergedTestChainConfig.Rules(common.Big1, true, 0)
	alice, contract, slot := common.Address{1}, common.Address{2}, common.Hash{3}
	newState := func() (*triedb.Database, state.Database, common.Hash) {
		disk := rawdb.NewMemoryDatabase()
		tdb := triedb.NewDatabase(disk, &triedb.Config{PathDB: pathdb.Defaults})
		sdb := state.NewMPTDatabase(tdb, state.NewCodeDB(disk))
		statedb, err := state.New(types.EmptyRootHash, sdb)
		if err != nil {
			panic(err)
		}
		statedb.SetBalance(alice, uint256.NewInt(1e18), tracing.BalanceChangeUnspecified)
		statedb.SetNonce(contract, 1, tracing.NonceChangeUnspecified)
		statedb.SetState(contract, slot, common.HexToHash("0x04"))
		root, err := statedb.Commit(rules, 0)
		if err != nil {
			panic(err)
		}
		return tdb, sdb, root
	}
	changes := bal.NewConstructionBlockAccessList()
	changes.BalanceChange(1, alice, uint256.NewInt(5e17))
	changes.StorageWrite(1, contract, slot, common.HexToHash("0x09"))
	list := changes.ToEncodingObj()

	tdb, sdb, parent := newState()
	update, err := adapter.AccessListStateUpdate(parent, list, tdb, 1)
	if err != nil {
		panic(err)
	}
	if err := sdb.Commit(update); err != nil {
		panic(err)
	}
	statedb, err := state.New(update.Root, sdb)
	if err != nil {
		panic(err)
	}
	fmt.Println(update.Root.Hex())
	fmt.Println("balance:", statedb.GetBalance(alice))
	fmt.Println("slot:", statedb.GetState(contract, slot).Hex())

	_, theirs, parent := newState()
	gethState, err := state.New(parent, theirs)
	if err != nil {
		panic(err)
	}
	if err := gethState.ApplyBlockAccessList(list); err != nil {
		panic(err)
	}
	want, err := gethState.Commit(rules, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println("go-ethereum's root too:", update.Root == want)
	// Output:
	// 0xe96bb438843154fecd8eade53f169bd7f86b45c09e6dec166285f9e6750ef7fa
	// balance: 500000000000000000
	// slot: 0x0000000000000000000000000000000000000000000000000000000000000009
	// go-ethereum's root too: true
}

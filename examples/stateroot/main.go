// Command stateroot computes a storage root and a state root from accounts
// with keccakroot's triehash, and the same with go-ethereum's StateDB, and
// checks that they agree.
//
//	go run ./examples/stateroot
package main

import (
	"fmt"
	"math/big"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/triehash"
)

// account is an account of the example, as a user would describe it.
type account struct {
	address common.Address
	nonce   uint64
	balance *uint256.Int
	code    []byte
	storage map[common.Hash]common.Hash
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "stateroot:", err)
		os.Exit(1)
	}
}

func run() error {
	accounts := makeAccounts(1000)

	// keccakroot: the storage root of each contract, then the state root of
	// all accounts.
	addresses := make([][20]byte, len(accounts))
	states := make([]triehash.Account, len(accounts))
	for i, a := range accounts {
		addresses[i] = a.address
		states[i] = triehash.Account{
			Nonce:       a.nonce,
			Balance:     *a.balance,
			StorageRoot: triehash.EmptyRoot,
			CodeHash:    triehash.EmptyCodeHash,
		}
		if len(a.code) > 0 {
			states[i].CodeHash = fastkeccak.Sum256(a.code)
		}
		if len(a.storage) > 0 {
			keys := make([][32]byte, 0, len(a.storage))
			values := make([][32]byte, 0, len(a.storage))
			for k, v := range a.storage {
				keys, values = append(keys, k), append(values, v)
			}
			root, err := triehash.StorageRoot(keys, values)
			if err != nil {
				return fmt.Errorf("storage root of %s: %w", a.address.Hex(), err)
			}
			states[i].StorageRoot = root
		}
	}
	stateRoot, err := triehash.StateRoot(addresses, states)
	if err != nil {
		return fmt.Errorf("state root: %w", err)
	}

	// go-ethereum: the same accounts in a StateDB in memory.
	db := rawdb.NewMemoryDatabase()
	statedb, err := state.New(common.Hash{}, state.NewDatabase(triedb.NewDatabase(db, nil), state.NewCodeDB(db)))
	if err != nil {
		return err
	}
	for _, a := range accounts {
		statedb.SetNonce(a.address, a.nonce, tracing.NonceChangeUnspecified)
		statedb.SetBalance(a.address, a.balance, tracing.BalanceChangeUnspecified)
		statedb.SetCode(a.address, a.code, tracing.CodeChangeUnspecified)
		for k, v := range a.storage {
			statedb.SetState(a.address, k, v)
		}
	}
	want := statedb.IntermediateRoot(params.MainnetChainConfig.Rules(big.NewInt(20_000_000), true, 1_700_000_000))

	ok := true
	contract := accounts[0]
	gotStorage, wantStorage := common.Hash(states[0].StorageRoot), statedb.GetStorageRoot(contract.address)
	fmt.Printf("storage root of %s (%d slots)\n", contract.address.Hex(), len(contract.storage))
	ok = report(gotStorage, wantStorage) && ok
	fmt.Printf("state root of %d accounts\n", len(accounts))
	ok = report(stateRoot, want) && ok
	if !ok {
		return fmt.Errorf("keccakroot's root differs from go-ethereum's")
	}
	fmt.Println("all roots match go-ethereum")
	return nil
}

// report prints keccakroot's root beside go-ethereum's and reports whether
// they match.
func report(got, want common.Hash) bool {
	mark := "ok"
	if got != want {
		mark = "MISMATCH"
	}
	fmt.Printf("  keccakroot   triehash      %s\n  go-ethereum  state.StateDB %s %s\n", got.Hex(), want.Hex(), mark)
	return got == want
}

// makeAccounts returns n accounts derived from their index; every tenth is
// a contract with code and storage.
func makeAccounts(n int) []account {
	accounts := make([]account, n)
	for i := range accounts {
		seed := crypto.Keccak256([]byte(fmt.Sprint("account ", i)))
		a := account{
			address: common.BytesToAddress(seed[:20]),
			nonce:   uint64(i % 7),
			balance: uint256.NewInt(uint64(i+1) * 1e15),
		}
		if i%10 == 0 {
			a.code = append([]byte{0x60, 0x00}, seed...)
			a.storage = map[common.Hash]common.Hash{}
			for s := range 50 + i%30 {
				k := crypto.Keccak256Hash(seed, []byte{byte(s)})
				a.storage[k] = common.BigToHash(big.NewInt(int64(s*s + 1)))
			}
		}
		accounts[i] = a
	}
	return accounts
}

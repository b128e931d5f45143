// Command derivesha swaps go-ethereum's trie hasher for keccakroot's in a
// types.DeriveSha call: the transactions root of a block, computed the
// go-ethereum way and the keccakroot ways, which must agree.
//
//	go run ./examples/derivesha
package main

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/keccakroot/keccakroot/adapter"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "derivesha:", err)
		os.Exit(1)
	}
}

func run() error {
	txs, err := transactions(200)
	if err != nil {
		return err
	}

	// go-ethereum's way: DeriveSha with its StackTrie.
	want := types.DeriveSha(txs, trie.NewStackTrie(nil))

	// The one-line swap: keccakroot's StackTrie is a types.ListHasher too.
	swapped := types.DeriveSha(txs, adapter.NewStackTrie(nil))

	// Or the adapter's own function for the transactions root.
	direct := adapter.TransactionsRoot(txs)

	// A block built with keccakroot's hasher gets the same header.
	header := &types.Header{Number: big.NewInt(1), Difficulty: common.Big0, GasLimit: 30_000_000}
	block := types.NewBlock(header, &types.Body{Transactions: txs}, nil, adapter.NewStackTrie(nil))

	fmt.Printf("transactions root of %d transactions\n", len(txs))
	fmt.Printf("  go-ethereum  types.DeriveSha(txs, trie.NewStackTrie(nil))    %s\n", want.Hex())
	ok := check("keccakroot   types.DeriveSha(txs, adapter.NewStackTrie(nil)) ", swapped, want)
	ok = check("keccakroot   adapter.TransactionsRoot(txs)                   ", direct, want) && ok
	ok = check("keccakroot   types.NewBlock(..., adapter.NewStackTrie(nil))  ", block.TxHash(), want) && ok
	if !ok {
		return fmt.Errorf("keccakroot's root differs from go-ethereum's")
	}
	fmt.Println("all roots match go-ethereum")
	return nil
}

// check prints a computed root against go-ethereum's and reports whether
// they match.
func check(what string, got, want common.Hash) bool {
	mark := "ok"
	if got != want {
		mark = "MISMATCH"
	}
	fmt.Printf("  %s %s %s\n", what, got.Hex(), mark)
	return got == want
}

// transactions returns n signed dynamic-fee transactions.
func transactions(n int) (types.Transactions, error) {
	key, err := testKey()
	if err != nil {
		return nil, err
	}
	signer := types.LatestSignerForChainID(params.MainnetChainConfig.ChainID)
	to := common.HexToAddress("0x00000000000000000000000000000000000000ee")
	txs := make(types.Transactions, n)
	for i := range txs {
		txs[i], err = types.SignNewTx(key, signer, &types.DynamicFeeTx{
			ChainID:   params.MainnetChainConfig.ChainID,
			Nonce:     uint64(i),
			GasTipCap: big.NewInt(params.GWei),
			GasFeeCap: big.NewInt(30 * params.GWei),
			Gas:       21000,
			To:        &to,
			Value:     big.NewInt(int64(i) * params.GWei),
		})
		if err != nil {
			return nil, err
		}
	}
	return txs, nil
}

// testKey is a fixed private key, for reproducible signatures.
func testKey() (*ecdsa.PrivateKey, error) {
	return crypto.HexToECDSA("4b00000000000000000000000000000000000000000000000000000000000001")
}

// Command hashes hashes a block header and transactions of every type with
// keccakroot and with go-ethereum, and checks that they agree.
//
//	go run ./examples/hashes
package main

import (
	"fmt"
	"math/big"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/adapter"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hashes:", err)
		os.Exit(1)
	}
}

func run() error {
	ok := true
	check := func(what string, got, want common.Hash) {
		mark := "ok"
		if got != want {
			mark, ok = "MISMATCH", false
		}
		fmt.Printf("%-34s keccakroot %s  go-ethereum %s  %s\n", what, got.Hex(), want.Hex(), mark)
	}

	// A post-Cancun header, with every optional field up to the parent
	// beacon root set.
	blobGas, excess := uint64(131072), uint64(0)
	beaconRoot := common.HexToHash("0xbeac0")
	header := &types.Header{
		ParentHash:       common.HexToHash("0x01"),
		UncleHash:        types.EmptyUncleHash,
		Coinbase:         common.HexToAddress("0xc0ffee"),
		Root:             common.HexToHash("0x02"),
		TxHash:           types.EmptyTxsHash,
		ReceiptHash:      types.EmptyReceiptsHash,
		Difficulty:       common.Big0,
		Number:           big.NewInt(20_000_000),
		GasLimit:         30_000_000,
		GasUsed:          12_345_678,
		Time:             1_700_000_000,
		Extra:            []byte("keccakroot"),
		BaseFee:          big.NewInt(7 * params.GWei),
		WithdrawalsHash:  &types.EmptyWithdrawalsHash,
		BlobGasUsed:      &blobGas,
		ExcessBlobGas:    &excess,
		ParentBeaconRoot: &beaconRoot,
	}
	check("header (Cancun)", adapter.HeaderHash(header), header.Hash())

	key, err := crypto.HexToECDSA("4b00000000000000000000000000000000000000000000000000000000000001")
	if err != nil {
		return err
	}
	chainID := params.MainnetChainConfig.ChainID
	chainID256 := uint256.MustFromBig(chainID)
	signer := types.LatestSignerForChainID(chainID)
	to := common.HexToAddress("0xee")
	// A set-code transaction carries authorizations signed by the accounts
	// that take on the delegate's code.
	auth, err := types.SignSetCode(key, types.SetCodeAuthorization{ChainID: *chainID256, Address: common.HexToAddress("0xde1e"), Nonce: 5})
	if err != nil {
		return err
	}
	txs := []struct {
		name string
		data types.TxData
	}{
		{"legacy transaction", &types.LegacyTx{Nonce: 1, GasPrice: big.NewInt(params.GWei), Gas: 21000, To: &to, Value: big.NewInt(1)}},
		{"access-list transaction", &types.AccessListTx{ChainID: chainID, Nonce: 2, GasPrice: big.NewInt(params.GWei), Gas: 30000, To: &to,
			AccessList: types.AccessList{{Address: to, StorageKeys: []common.Hash{{1}}}}}},
		{"dynamic-fee transaction", &types.DynamicFeeTx{ChainID: chainID, Nonce: 3, GasTipCap: big.NewInt(params.GWei),
			GasFeeCap: big.NewInt(20 * params.GWei), Gas: 50000, To: &to, Data: []byte{0xca, 0xfe}}},
		// A blob transaction as a block holds it: the versioned hashes of
		// its blobs, without the blobs themselves (the sidecar).
		{"blob transaction", &types.BlobTx{ChainID: chainID256, Nonce: 4, GasTipCap: uint256.NewInt(params.GWei),
			GasFeeCap: uint256.NewInt(20 * params.GWei), Gas: 21000, To: to, BlobFeeCap: uint256.NewInt(params.GWei),
			BlobHashes: []common.Hash{common.HexToHash("0x01aa"), common.HexToHash("0x01bb")}}},
		{"set-code transaction", &types.SetCodeTx{ChainID: chainID256, Nonce: 5, GasTipCap: uint256.NewInt(params.GWei),
			GasFeeCap: uint256.NewInt(20 * params.GWei), Gas: 60000, To: to, AuthList: []types.SetCodeAuthorization{auth}}},
	}
	for _, tt := range txs {
		tx, err := types.SignNewTx(key, signer, tt.data)
		if err != nil {
			return err
		}
		check(tt.name, adapter.TxHash(tx), tx.Hash())
	}

	data := []byte("hello, keccak")
	check("Keccak256Hash of a message", adapter.Keccak256Hash(data), crypto.Keccak256Hash(data))

	if !ok {
		return fmt.Errorf("keccakroot's hash differs from go-ethereum's")
	}
	fmt.Println("all hashes match go-ethereum")
	return nil
}

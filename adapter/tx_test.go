package adapter

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
)

// TestTxHashRandom compares TxHash with go-ethereum on random transactions of
// every type.
func TestTxHashRandom(t *testing.T) {
	r := newRand(t)
	for _, typ := range txTypes {
		t.Run(fmt.Sprintf("type=%d", typ), func(t *testing.T) {
			for i := range 300 {
				tx := randTx(r, typ)
				if got, want := TxHash(tx), tx.Hash(); got != want {
					raw, _ := tx.MarshalBinary()
					t.Fatalf("tx %d: TxHash = %x, go-ethereum %x\nencoding %x", i, got, want, raw)
				}
			}
		})
	}
}

func TestTxHashEdgeCases(t *testing.T) {
	to := common.Address{0xaa}
	big256 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	big300 := new(big.Int).Lsh(big.NewInt(1), 300)
	tests := []struct {
		name string
		tx   *types.Transaction
	}{
		{"empty legacy", types.NewTx(&types.LegacyTx{})},
		{"empty access list", types.NewTx(&types.AccessListTx{})},
		{"empty dynamic fee", types.NewTx(&types.DynamicFeeTx{})},
		{"empty blob", types.NewTx(&types.BlobTx{})},
		{"empty set code", types.NewTx(&types.SetCodeTx{})},
		{"legacy creation", types.NewContractCreation(1, big.NewInt(2), 3, big.NewInt(4), []byte{0x60, 0x00})},
		{"legacy EIP-155 V", types.NewTx(&types.LegacyTx{To: &to, V: big.NewInt(37), R: big256, S: big256})},
		{"legacy values over 256 bits", types.NewTx(&types.LegacyTx{To: &to, Value: big300, GasPrice: big300, V: big300})},
		{"legacy negative value", types.NewTx(&types.LegacyTx{To: &to, Value: big.NewInt(-1)})},
		{"dynamic fee negative tip", types.NewTx(&types.DynamicFeeTx{To: &to, GasTipCap: big.NewInt(-1)})},
		{"access list negative chain ID", types.NewTx(&types.AccessListTx{ChainID: big.NewInt(-1)})},
		{"dynamic fee 1 MiB data", types.NewTx(&types.DynamicFeeTx{To: &to, Data: make([]byte, 1<<20)})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := TxHash(tt.tx), tt.tx.Hash(); got != want {
				t.Fatalf("TxHash = %x, go-ethereum %x", got, want)
			}
			txs := types.Transactions{tt.tx}
			if got, want := TransactionsRoot(txs), types.DeriveSha(txs, trie.NewStackTrie(nil)); got != want {
				t.Fatalf("TransactionsRoot = %x, go-ethereum %x", got, want)
			}
		})
	}
}

// TestTransactionsRoot compares the transactions root with go-ethereum on
// lists of random transactions around the boundaries of the insertion order.
func TestTransactionsRoot(t *testing.T) {
	r := newRand(t)
	for _, n := range listSizes {
		txs := randTxs(r, n)
		want := types.DeriveSha(txs, trie.NewStackTrie(nil))
		if got := TransactionsRoot(txs); got != want {
			t.Fatalf("%d txs: TransactionsRoot = %x, go-ethereum %x", n, got, want)
		}
		if got := DeriveSha(txs); got != want {
			t.Fatalf("%d txs: DeriveSha = %x, go-ethereum %x", n, got, want)
		}
	}
}

// TestTransactionsRootSidecar checks go-ethereum's treatment of a blob
// transaction that carries its sidecar: its trie value is the network form,
// blobs included, and a sidecar version it does not know leaves the type
// byte alone.
func TestTransactionsRootSidecar(t *testing.T) {
	r := newRand(t)
	for _, tc := range []struct {
		version byte
		blobs   int
	}{{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 0}, {7, 1}} {
		t.Run(fmt.Sprintf("version=%d/blobs=%d", tc.version, tc.blobs), func(t *testing.T) {
			tx := blobTxWithSidecar(r, tc.version, tc.blobs)
			txs := types.Transactions{randTx(r, 2), tx, randTx(r, 0)}
			if got, want := TransactionsRoot(txs), types.DeriveSha(txs, trie.NewStackTrie(nil)); got != want {
				t.Fatalf("TransactionsRoot = %x, go-ethereum %x", got, want)
			}
			if got, want := TxHash(tx), tx.Hash(); got != want {
				t.Fatalf("TxHash = %x, go-ethereum %x", got, want)
			}
		})
	}
}

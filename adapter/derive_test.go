package adapter

import (
	"bytes"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
)

func TestReceiptsRoot(t *testing.T) {
	r := newRand(t)
	for _, n := range listSizes {
		rs := randReceipts(r, n)
		want := types.DeriveSha(rs, trie.NewStackTrie(nil))
		if got := ReceiptsRoot(rs); got != want {
			t.Fatalf("%d receipts: ReceiptsRoot = %x, go-ethereum %x", n, got, want)
		}
		if got := DeriveSha(rs); got != want {
			t.Fatalf("%d receipts: DeriveSha = %x, go-ethereum %x", n, got, want)
		}
	}
}

func TestReceiptsRootEdgeCases(t *testing.T) {
	r := newRand(t)
	tests := []struct {
		name    string
		receipt *types.Receipt
	}{
		{"zero", &types.Receipt{}},
		{"status success", &types.Receipt{Status: types.ReceiptStatusSuccessful}},
		{"status other", &types.Receipt{Status: 7, Type: types.DynamicFeeTxType}},
		{"post state", &types.Receipt{PostState: randHash(r).Bytes(), Status: 1}},
		{"unknown type", &types.Receipt{Type: 0x7e, Status: 1, CumulativeGasUsed: 5}},
		{"nil log", &types.Receipt{Type: types.BlobTxType, Logs: []*types.Log{nil, {Data: []byte{1}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := types.Receipts{randReceipt(r), tt.receipt}
			if got, want := ReceiptsRoot(rs), types.DeriveSha(rs, trie.NewStackTrie(nil)); got != want {
				t.Fatalf("ReceiptsRoot = %x, go-ethereum %x", got, want)
			}
		})
	}
}

func TestWithdrawalsRoot(t *testing.T) {
	r := newRand(t)
	for _, n := range listSizes {
		ws := randWithdrawals(r, n)
		want := types.DeriveSha(ws, trie.NewStackTrie(nil))
		if got := WithdrawalsRoot(ws); got != want {
			t.Fatalf("%d withdrawals: WithdrawalsRoot = %x, go-ethereum %x", n, got, want)
		}
		if got := DeriveSha(ws); got != want {
			t.Fatalf("%d withdrawals: DeriveSha = %x, go-ethereum %x", n, got, want)
		}
	}
	ws := types.Withdrawals{nil, randWithdrawals(r, 1)[0]}
	if got, want := WithdrawalsRoot(ws), types.DeriveSha(ws, trie.NewStackTrie(nil)); got != want {
		t.Fatalf("nil withdrawal: WithdrawalsRoot = %x, go-ethereum %x", got, want)
	}
}

// rawList is a DerivableList of pre-encoded items, to drive DeriveSha's
// fallback through EncodeIndex.
type rawList [][]byte

func (l rawList) Len() int                           { return len(l) }
func (l rawList) EncodeIndex(i int, w *bytes.Buffer) { w.Write(l[i]) }

func TestDeriveShaOtherLists(t *testing.T) {
	r := newRand(t)
	for _, n := range listSizes {
		l := make(rawList, n)
		for i := range l {
			l[i] = randBytes(r) // some empty: left out, as go-ethereum leaves them
		}
		if got, want := DeriveSha(l), types.DeriveSha(l, trie.NewStackTrie(nil)); got != want {
			t.Fatalf("%d items: DeriveSha = %x, go-ethereum %x", n, got, want)
		}
	}
}

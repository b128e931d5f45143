package adapter

import (
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/keccakroot/keccakroot/rlpstream"
	"github.com/keccakroot/keccakroot/triehash"
)

// ReceiptsRoot returns the receipts root of a block, in place of
// types.DeriveSha(receipts, trie.NewStackTrie(nil)): the trie of the
// receipts' consensus encodings by index. A list holding a nil receipt,
// which go-ethereum cannot encode, has no root: the result is the zero hash.
func ReceiptsRoot(receipts types.Receipts) common.Hash {
	if slices.Contains(receipts, nil) {
		return common.Hash{}
	}
	return triehash.ListRoot(len(receipts), func(i int, buf []byte) []byte {
		return appendReceipt(buf, receipts[i])
	})
}

// appendReceipt appends the consensus encoding of r, as
// types.Receipts.EncodeIndex writes it: the list [post state or status,
// cumulative gas used, bloom, logs], after the type byte for a typed receipt.
// For a type go-ethereum does not know it appends the type byte alone, as
// go-ethereum does.
func appendReceipt(dst []byte, r *types.Receipt) []byte {
	switch r.Type {
	case types.LegacyTxType:
	case types.AccessListTxType, types.DynamicFeeTxType, types.BlobTxType, types.SetCodeTxType:
		dst = append(dst, r.Type)
	default:
		return append(dst, r.Type)
	}
	status := receiptStatus(r)
	logs := 0
	for _, l := range r.Logs {
		logs += rlpstream.ListSize(logSize(l))
	}
	dst = rlpstream.AppendListHeader(dst, rlpstream.BytesSize(status)+
		rlpstream.Uint64Size(r.CumulativeGasUsed)+bloomFieldSize+rlpstream.ListSize(logs))
	dst = rlpstream.AppendBytes(dst, status)
	dst = rlpstream.AppendUint64(dst, r.CumulativeGasUsed)
	dst = rlpstream.AppendBytes(dst, r.Bloom[:])
	dst = rlpstream.AppendListHeader(dst, logs)
	for _, l := range r.Logs {
		dst = appendLog(dst, l)
	}
	return dst
}

// Encodings of the status of a post-Byzantium receipt.
var (
	receiptFailed     = []byte{}
	receiptSuccessful = []byte{0x01}
)

// receiptStatus returns the first field of a receipt: the post-transaction
// state root of a pre-Byzantium receipt, or else the status, empty for
// failure and 0x01 for anything else.
func receiptStatus(r *types.Receipt) []byte {
	switch {
	case len(r.PostState) > 0:
		return r.PostState
	case r.Status == types.ReceiptStatusFailed:
		return receiptFailed
	default:
		return receiptSuccessful
	}
}

// logSize returns the content size of a log's list [address, [topics...],
// data]; a nil log, which go-ethereum encodes as an empty list, has none.
func logSize(l *types.Log) int {
	if l == nil {
		return 0
	}
	return addressFieldSize + rlpstream.ListSize(hashFieldSize*len(l.Topics)) + rlpstream.BytesSize(l.Data)
}

func appendLog(dst []byte, l *types.Log) []byte {
	dst = rlpstream.AppendListHeader(dst, logSize(l))
	if l == nil {
		return dst
	}
	dst = rlpstream.AppendBytes(dst, l.Address[:])
	dst = rlpstream.AppendListHeader(dst, hashFieldSize*len(l.Topics))
	for i := range l.Topics {
		dst = rlpstream.AppendBytes(dst, l.Topics[i][:])
	}
	return rlpstream.AppendBytes(dst, l.Data)
}

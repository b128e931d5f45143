package adapter

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/keccakroot/keccakroot/rlpstream"
	"github.com/keccakroot/keccakroot/triehash"
)

// WithdrawalsRoot returns the withdrawals root of a block, in place of
// types.DeriveSha(withdrawals, trie.NewStackTrie(nil)): the trie of the
// withdrawals' encodings by index.
func WithdrawalsRoot(withdrawals types.Withdrawals) common.Hash {
	return triehash.ListRoot(len(withdrawals), func(i int, buf []byte) []byte {
		return appendWithdrawal(buf, withdrawals[i])
	})
}

// appendWithdrawal appends the list [index, validator, address, amount]; a
// nil withdrawal, which go-ethereum encodes as an empty list, appends that.
func appendWithdrawal(dst []byte, w *types.Withdrawal) []byte {
	if w == nil {
		return rlpstream.AppendListHeader(dst, 0)
	}
	dst = rlpstream.AppendListHeader(dst, rlpstream.Uint64Size(w.Index)+
		rlpstream.Uint64Size(w.Validator)+addressFieldSize+rlpstream.Uint64Size(w.Amount))
	dst = rlpstream.AppendUint64(dst, w.Index)
	dst = rlpstream.AppendUint64(dst, w.Validator)
	dst = rlpstream.AppendBytes(dst, w.Address[:])
	return rlpstream.AppendUint64(dst, w.Amount)
}

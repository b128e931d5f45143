package adapter

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// ErrInvalidBody is wrapped, with what is wrong, by ValidateBody's errors
// other than a *MismatchError.
var ErrInvalidBody = errors.New("adapter: block body does not fit its header")

// ValidateBody makes the checks of go-ethereum's BlockValidator.ValidateBody
// that need no chain, in its order: no uncles in a proof-of-stake block
// (what go-ethereum's beacon engine checks of them), the uncles hash, the
// transactions root, the withdrawals (present exactly when the header has a
// withdrawals root, and with that root), no blob sidecars and as many blobs
// as the header's blob gas used says, and the block access list: its hash
// in the header from Amsterdam on and not before, and an attached list
// that has that hash and passes its Validate. What it leaves out needs the
// chain: the uncles' own headers against their ancestors (before the
// merge), and whether the parent block and its state are known.
//
// A root or hash that disagrees is a *MismatchError, as VerifyBlockRLP
// gives it; the rest wrap ErrInvalidBody, or ErrMissingWithdrawals,
// ErrUnexpectedWithdrawals and ErrUnexpectedAccessList.
func ValidateBody(config *params.ChainConfig, block *types.Block) error {
	if config == nil {
		return nilArgument("chain config")
	}
	if block == nil {
		return nilArgument("block")
	}
	header := block.Header()
	number := header.Number.Uint64()
	mismatch := func(field int, want, got common.Hash, err error) error {
		return &MismatchError{Number: number, Field: headerFields[field].name, Header: want, Computed: got, Err: err}
	}
	if header.Difficulty.Sign() == 0 && len(block.Uncles()) > 0 {
		return fmt.Errorf("%w: block %d: %d uncles in a proof-of-stake block", ErrInvalidBody, number, len(block.Uncles()))
	}
	if hash := UncleHash(block.Uncles()); hash != header.UncleHash {
		return mismatch(headerUncleHash, header.UncleHash, hash, ErrUncleHashMismatch)
	}
	if hash := TransactionsRoot(block.Transactions()); hash != header.TxHash {
		return mismatch(headerTxHash, header.TxHash, hash, ErrTxRootMismatch)
	}
	switch {
	case header.WithdrawalsHash != nil && block.Withdrawals() == nil:
		return fmt.Errorf("%w (block %d)", ErrMissingWithdrawals, number)
	case header.WithdrawalsHash != nil:
		if hash := WithdrawalsRoot(block.Withdrawals()); hash != *header.WithdrawalsHash {
			return mismatch(headerWithdrawalsHash, *header.WithdrawalsHash, hash, ErrWithdrawalsRootMismatch)
		}
	case block.Withdrawals() != nil:
		return fmt.Errorf("%w (block %d)", ErrUnexpectedWithdrawals, number)
	}
	blobs := 0
	for i, tx := range block.Transactions() {
		if tx.BlobTxSidecar() != nil {
			return fmt.Errorf("%w: block %d: transaction %d carries a blob sidecar", ErrInvalidBody, number, i)
		}
		blobs += len(tx.BlobHashes())
	}
	if header.BlobGasUsed != nil {
		if want := *header.BlobGasUsed / params.BlobTxBlobGasPerBlob; uint64(blobs) != want {
			return fmt.Errorf("%w: block %d: %d blobs, the header's blob gas used %d says %d", ErrInvalidBody, number, blobs, *header.BlobGasUsed, want)
		}
	} else if blobs > 0 {
		return fmt.Errorf("%w: block %d: %d blobs and no blob gas used in the header", ErrInvalidBody, number, blobs)
	}
	list := block.AccessList()
	if !config.IsAmsterdam(header.Number, header.Time) {
		switch {
		case list != nil && header.BlockAccessListHash == nil:
			return fmt.Errorf("%w (block %d, before Amsterdam)", ErrUnexpectedAccessList, number)
		case header.BlockAccessListHash != nil || list != nil:
			return fmt.Errorf("%w: block %d: a block access list before Amsterdam", ErrInvalidBody, number)
		}
		return nil
	}
	if header.BlockAccessListHash == nil {
		return fmt.Errorf("%w: block %d: no block access list hash in an Amsterdam header", ErrInvalidBody, number)
	}
	if list == nil {
		return nil // the devp2p form: execution computes the list, and ValidateState checks it
	}
	if hash := list.Hash(); hash != *header.BlockAccessListHash {
		return mismatch(headerBlockAccessListHash, *header.BlockAccessListHash, hash, ErrAccessListHashMismatch)
	}
	if err := list.Validate(header.GasLimit, len(block.Transactions())); err != nil {
		return fmt.Errorf("%w: block %d: block access list: %w", ErrInvalidBody, number, err)
	}
	return nil
}

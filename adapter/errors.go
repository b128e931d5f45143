package adapter

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
)

// Errors of VerifyBlockRLP. A root or hash that disagrees with the block
// comes as a *MismatchError wrapping one of the four mismatch sentinels; a block that is
// canonical RLP but not shaped like a block comes as a *ShapeError wrapping
// ErrMalformedBlock; RLP that is not canonical comes as an
// *rlpstream.OffsetError. Test for them with errors.Is and errors.As.
var (
	// ErrTxRootMismatch: the transactions root in the header is not the
	// root of the block's transactions.
	ErrTxRootMismatch = errors.New("adapter: transactions root mismatch")
	// ErrUncleHashMismatch: the uncle hash in the header is not the hash of
	// the block's uncle list.
	ErrUncleHashMismatch = errors.New("adapter: uncle hash mismatch")
	// ErrWithdrawalsRootMismatch: the withdrawals root in the header is not
	// the root of the block's withdrawals.
	ErrWithdrawalsRootMismatch = errors.New("adapter: withdrawals root mismatch")
	// ErrMissingWithdrawals: the header has a withdrawals root but the block
	// has no withdrawal list.
	ErrMissingWithdrawals = errors.New("adapter: header has a withdrawals root but the block has no withdrawals")
	// ErrUnexpectedWithdrawals: the block has a withdrawal list but its
	// header has no withdrawals root.
	ErrUnexpectedWithdrawals = errors.New("adapter: block has withdrawals but the header has no withdrawals root")
	// ErrAccessListHashMismatch: the blockAccessListHash in the header is
	// not the hash of the block access list the block carries.
	ErrAccessListHashMismatch = errors.New("adapter: block access list hash mismatch")
	// ErrUnexpectedAccessList: the block carries a block access list but
	// its header has no blockAccessListHash, which go-ethereum rejects.
	ErrUnexpectedAccessList = errors.New("adapter: block has a block access list but the header has no blockAccessListHash")
	// ErrMalformedBlock: canonical RLP that go-ethereum would not decode as
	// a block (wrong number of items, a field of the wrong size, an unknown
	// transaction type, ...).
	ErrMalformedBlock = errors.New("adapter: malformed block")
)

// MismatchError reports a header field that disagrees with the rest of the
// block: the field, the block number and both hashes.
type MismatchError struct {
	Number uint64 // the block number, from the header (math.MaxUint64 if it does not fit)
	// Field is the header field, by its JSON name: "transactionsRoot",
	// "sha3Uncles", "withdrawalsRoot" or "blockAccessListHash".
	Field    string
	Header   common.Hash // the value in the header
	Computed common.Hash // the value computed from the block's body or its block access list
	// Err is ErrTxRootMismatch, ErrUncleHashMismatch,
	// ErrWithdrawalsRootMismatch or ErrAccessListHashMismatch.
	Err error
}

// Error describes the mismatch with both hashes.
func (e *MismatchError) Error() string {
	source := "body"
	if errors.Is(e.Err, ErrAccessListHashMismatch) {
		source = "block access list"
	}
	return fmt.Sprintf("%v in block %d: header %s has %s, %s gives %s",
		e.Err, e.Number, e.Field, e.Header.Hex(), source, e.Computed.Hex())
}

// Unwrap returns the sentinel, for errors.Is.
func (e *MismatchError) Unwrap() error { return e.Err }

// ShapeError reports canonical RLP that is not shaped like a block: where,
// both as a path ("header.logsBloom", "transactions[3]") and as a byte offset
// from the start of the block, and why.
type ShapeError struct {
	Offset int    // offset in the block of the item at fault
	Path   string // the item at fault
	Reason string // what is wrong with it
}

// Error describes the fault with its path and offset.
func (e *ShapeError) Error() string {
	return fmt.Sprintf("%v: %s at offset %d: %s", ErrMalformedBlock, e.Path, e.Offset, e.Reason)
}

// Unwrap returns ErrMalformedBlock, for errors.Is.
func (e *ShapeError) Unwrap() error { return ErrMalformedBlock }

// ErrGenesisBalance is returned by GenesisBlockHash, wrapped with the
// account, for a genesis balance that does not fit in 256 bits.
var ErrGenesisBalance = errors.New("adapter: genesis balance exceeds 256 bits")

// ErrNilArgument is returned, wrapped with the argument's name, by the
// functions that take a genesis, a trie, a trie ID or a database and are
// handed nil, where go-ethereum's counterparts would dereference it.
var ErrNilArgument = errors.New("adapter: nil argument")

// nilArgument reports that the argument name is nil.
func nilArgument(name string) error {
	return fmt.Errorf("%w: %s", ErrNilArgument, name)
}

package main

import (
	"errors"
	"fmt"
	"math"

	"github.com/keccakroot/keccakroot/adapter"
	"github.com/keccakroot/keccakroot/rlpstream"
)

// blockInfo is what verify-chain learns from one block.
type blockInfo struct {
	adapter.BlockInfo
	err error // from adapter.VerifyBlockRLPInfo
}

// inspectBlock verifies a block's raw RLP with adapter.VerifyBlockRLPInfo,
// which also reads what the chain checks need from its header: the parent
// hash and the number, and for a block that fails, what it can to name it.
func inspectBlock(raw []byte) blockInfo {
	info, err := adapter.VerifyBlockRLPInfo(raw)
	return blockInfo{BlockInfo: info, err: err}
}

// numberOK reports whether the header's number was read and fits in 64 bits.
func (info *blockInfo) numberOK() bool {
	return info.HeaderRead && info.Number != math.MaxUint64
}

// name names a block for messages: "block #57 0x1234..., " when its header
// could be read, nothing otherwise.
func (info *blockInfo) name() string {
	switch {
	case info.numberOK():
		return fmt.Sprintf("block #%d %s, ", info.Number, info.Hash.Hex())
	case info.HeaderRead:
		return fmt.Sprintf("block %s (number over 64 bits), ", info.Hash.Hex())
	default:
		return ""
	}
}

// failureKind sorts a VerifyBlockRLP error: "mismatch" for a header that
// disagrees with the body (a failed check, exit 1), "malformed" for a block
// that is not a well-formed block (bad input, exit 2).
func failureKind(err error) string {
	var mismatch *adapter.MismatchError
	if errors.As(err, &mismatch) ||
		errors.Is(err, adapter.ErrMissingWithdrawals) ||
		errors.Is(err, adapter.ErrUnexpectedWithdrawals) ||
		errors.Is(err, adapter.ErrUnexpectedAccessList) {
		return "mismatch"
	}
	return "malformed"
}

// describeFailure explains a VerifyBlockRLP error for people; offset is the
// block's first byte in the stream, to turn offsets within the block into
// offsets in the file.
func describeFailure(err error, offset int64) string {
	var mismatch *adapter.MismatchError
	var off *rlpstream.OffsetError
	var shape *adapter.ShapeError
	switch {
	case errors.As(err, &mismatch) && errors.Is(err, adapter.ErrAccessListHashMismatch):
		return fmt.Sprintf("block access list mismatch: the header's %s is %s, the block access list in the file hashes to %s",
			mismatch.Field, mismatch.Header.Hex(), mismatch.Computed.Hex())
	case errors.As(err, &mismatch):
		return fmt.Sprintf("%s mismatch: the header has %s, the block's body gives %s",
			mismatch.Field, mismatch.Header.Hex(), mismatch.Computed.Hex())
	case errors.As(err, &shape):
		return fmt.Sprintf("not a valid block: %s (at byte %d): %s",
			shape.Path, offset+int64(shape.Offset), shape.Reason)
	case errors.As(err, &off):
		return fmt.Sprintf("not a valid block: invalid RLP at byte %d: %v", offset+int64(off.Offset), off.Err)
	default:
		return err.Error()
	}
}

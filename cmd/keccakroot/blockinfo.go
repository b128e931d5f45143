package main

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/keccakroot/keccakroot/adapter"
	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/rlpstream"
)

// blockInfo is what verify-chain learns from one block.
type blockInfo struct {
	hash     common.Hash
	parent   common.Hash
	number   uint64
	hasHdr   bool // hash, parent and number were read from the header
	numberOK bool // the number fits in a uint64
	txs      int
	err      error // from adapter.VerifyBlockRLP
}

// inspectBlock verifies a block's raw RLP with adapter.VerifyBlockRLP and
// reads what the chain checks need from its header: the parent hash and the
// number. For a block that fails, it reads what it can, to name the block.
func inspectBlock(raw []byte) blockInfo {
	var info blockInfo
	hash, err := adapter.VerifyBlockRLP(raw)
	info.err = err
	readHeader(raw, &info)
	if err == nil {
		info.hash = hash
	}
	return info
}

// readHeader fills in the header fields of info from a block's raw RLP, as
// far as the block is well formed: the hash of the header, its parent hash
// (field 0) and its number (field 8), and the number of transactions.
func readHeader(raw []byte, info *blockInfo) {
	block, _, err := rlpstream.SplitList(raw)
	if err != nil {
		return
	}
	header, rest, err := rlpstream.SplitList(block)
	if err != nil {
		return
	}
	headerRaw := block[:len(block)-len(rest)]
	var parentOK bool
	it := rlpstream.NewIterator(header)
	for i := 0; it.Next() && i <= 8; i++ {
		switch i {
		case 0:
			if it.Kind() == rlpstream.String && len(it.Content()) == common.HashLength {
				info.parent = common.BytesToHash(it.Content())
				parentOK = true
			}
		case 8:
			info.number, info.numberOK = rlpUint64(it.Kind(), it.Content())
		}
	}
	if !parentOK {
		return
	}
	info.hash = fastkeccak.Sum256(headerRaw)
	info.hasHdr = true
	if txs, _, err := rlpstream.SplitList(rest); err == nil {
		info.txs, _ = rlpstream.CountValues(txs)
	}
}

// rlpUint64 decodes an RLP integer of at most 8 bytes.
func rlpUint64(kind rlpstream.Kind, content []byte) (uint64, bool) {
	switch {
	case kind == rlpstream.Byte:
		return uint64(content[0]), true
	case kind != rlpstream.String || len(content) > 8 || (len(content) > 0 && content[0] == 0):
		return 0, false
	}
	var n uint64
	for _, c := range content {
		n = n<<8 | uint64(c)
	}
	return n, true
}

// name names a block for messages: "block #57 0x1234..., " when its header
// could be read, nothing otherwise.
func (info *blockInfo) name() string {
	switch {
	case info.hasHdr && info.numberOK:
		return fmt.Sprintf("block #%d %s, ", info.number, info.hash.Hex())
	case info.hasHdr:
		return fmt.Sprintf("block %s (number over 64 bits), ", info.hash.Hex())
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
		errors.Is(err, adapter.ErrUnexpectedWithdrawals) {
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

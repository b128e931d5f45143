package adapter

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/rlpstream"
	"github.com/keccakroot/keccakroot/triehash"
)

// VerifyBlockRLP checks a block in its raw RLP encoding, as a chain export or
// a devp2p message carries it, and returns its hash, without decoding it into
// go-ethereum types.
//
// The block is the list [header, transactions, uncles] or, from Shanghai on,
// [header, transactions, uncles, withdrawals]; a chain export of an
// Amsterdam block ('geth export' of go-ethereum v1.17) has a fifth item, the
// block's EIP-7928 block access list. VerifyBlockRLP checks that the whole of
// raw is one canonical RLP item of that shape, with a header of
// go-ethereum's fields (15 to 23 of them, each of the right size), legacy
// transactions as lists and typed ones as strings holding a known type byte
// and one list, uncles shaped as headers, withdrawals as four-field lists
// and the block access list as go-ethereum's core/types/bal encodes it. It
// then recomputes the transactions root from the raw transactions, the
// uncle hash from the raw uncle list, the withdrawals root from the raw
// withdrawals and the hash of the raw block access list, where the block has
// them, and compares each with the header. The hash it returns is
// Keccak-256 of the raw header, which is the block hash go-ethereum computes.
//
// A header with a blockAccessListHash in a block without an access list is
// valid, as it is for go-ethereum, which then computes the list by executing
// the block: that is the devp2p form of an Amsterdam block, and what 'geth
// export' writes where it has no list stored. VerifyBlockRLPInfo tells the
// two cases apart.
//
// It does not check the contents of individual fields beyond their shape
// (signatures, gas, the state and receipts roots, the order within the
// block access list, the header's link to its parent): those need the chain
// or its state.
//
// Errors: a root or hash that disagrees is a *MismatchError
// (ErrTxRootMismatch, ErrUncleHashMismatch, ErrWithdrawalsRootMismatch,
// ErrAccessListHashMismatch) naming the block number, the header field and
// both hashes; withdrawals on one side only are ErrMissingWithdrawals or
// ErrUnexpectedWithdrawals, and a block access list without the header's
// hash is ErrUnexpectedAccessList; RLP that is not canonical is an
// *rlpstream.OffsetError and canonical RLP of the wrong shape a *ShapeError
// (ErrMalformedBlock), both with the offset in raw of the item at fault.
// VerifyBlockRLP does not panic, whatever raw holds.
func VerifyBlockRLP(raw []byte) (common.Hash, error) {
	info, err := VerifyBlockRLPInfo(raw)
	if err != nil {
		return common.Hash{}, err
	}
	return info.Hash, nil
}

// BlockInfo is what VerifyBlockRLPInfo read from a raw block: what a chain
// verifier needs to link the block to its parent and to name it.
type BlockInfo struct {
	// HeaderRead reports whether the header could be read up to its number,
	// so that Hash, ParentHash and Number hold the header's values. It is
	// true for every block that verifies, and for a block that fails after
	// that point (a root that disagrees, a malformed transaction).
	HeaderRead bool
	Hash       common.Hash // Keccak-256 of the raw header: the block hash
	ParentHash common.Hash
	Number     uint64 // math.MaxUint64 if the header's number does not fit in 64 bits
	// Transactions is the number of transactions; it is set only for a
	// block that verifies.
	Transactions int
	// AccessListChecked reports whether the block carries a block access
	// list, which was checked against the header's blockAccessListHash.
	AccessListChecked bool
	// HasAccessListHash reports whether the header has a
	// blockAccessListHash. With AccessListChecked false, that hash was not
	// checked: the block does not carry its access list.
	HasAccessListHash bool
}

// VerifyBlockRLPInfo checks a raw block as VerifyBlockRLP does and returns
// what it read: the header's hash, parent hash and number, the number of
// transactions and whether a block access list was checked. For a block
// that fails, the info holds what could be read before the fault (see
// BlockInfo.HeaderRead), so that the caller can name the block.
func VerifyBlockRLPInfo(raw []byte) (BlockInfo, error) {
	var b rawBlock
	err := b.check(raw)
	info := BlockInfo{
		HeaderRead:        b.h.numberRead,
		ParentHash:        b.h.parentHash,
		Number:            b.h.number,
		AccessListChecked: err == nil && b.hasAccessList,
		HasAccessListHash: b.h.hasAccessListHash,
	}
	if info.HeaderRead {
		info.Hash = fastkeccak.Sum256(b.header.raw)
	}
	if err == nil {
		info.Transactions = b.txCount
	}
	return info, err
}

// rawBlock is a block split into its parts, each aliasing the input.
type rawBlock struct {
	header, txs, uncles, withdrawals, accessList item
	hasWithdrawals, hasAccessList                bool
	txCount, withdrawalCount                     int
	h                                            rawHeader
}

// check validates raw as canonical RLP, splits it, checks its shape and
// verifies it. When raw is not canonical RLP, it still reads what it can of
// the header, to name the block.
func (b *rawBlock) check(raw []byte) error {
	if err := rlpstream.Validate(raw); err != nil {
		b.readHeader(raw)
		return fmt.Errorf("adapter: block: %w", err)
	}
	if err := b.parse(raw); err != nil {
		if !b.h.numberRead {
			b.readHeader(raw)
		}
		return err
	}
	return b.verify()
}

// readHeader reads what it can of the header of a block that failed before
// its header was read, ignoring the faults: they have been reported.
func (b *rawBlock) readHeader(raw []byte) {
	block, err := readOne(raw, 0)
	if err != nil || block.kind != rlpstream.List {
		return
	}
	r := block.elements()
	if r.Next() && r.Kind() == rlpstream.List {
		b.header = current(&r)
		_ = b.h.parse(b.header, part("header"))
	}
}

// blockItemNames names the items of a block, in order.
var blockItemNames = [...]string{"header", "transactions", "uncles", "withdrawals", "blockAccessList"}

// parse splits the block and checks its shape. raw has been validated as
// canonical RLP, so every Split succeeds; the shape is what is checked.
func (b *rawBlock) parse(raw []byte) error {
	block, err := readOne(raw, 0)
	if err != nil {
		return err
	}
	if block.kind != rlpstream.List {
		return shapeErr(block, part("block"), "is a %v, want a list", block.kind)
	}
	r := block.elements()
	parts := [len(blockItemNames)]*item{&b.header, &b.txs, &b.uncles, &b.withdrawals, &b.accessList}
	n := 0
	for ; r.Next(); n++ {
		it := current(&r)
		if n == len(parts) {
			return shapeErr(it, part("block"), "has more than %d items", len(parts))
		}
		if it.kind != rlpstream.List {
			return shapeErr(it, part(blockItemNames[n]), "is a %v, want a list", it.kind)
		}
		*parts[n] = it
	}
	if err := iterErr(&r); err != nil {
		return err
	}
	if n < 3 {
		return shapeErr(block, part("block"), "has %d items, want 3 to %d", n, len(parts))
	}
	b.hasWithdrawals = n >= 4
	b.hasAccessList = n == 5
	if err := b.h.parse(b.header, part("header")); err != nil {
		return err
	}
	if b.txCount, err = checkTransactions(b.txs); err != nil {
		return err
	}
	if err := checkUncles(b.uncles); err != nil {
		return err
	}
	if b.hasWithdrawals {
		if b.withdrawalCount, err = checkWithdrawals(b.withdrawals); err != nil {
			return err
		}
	}
	if b.hasAccessList {
		if err := checkAccessList(b.accessList); err != nil {
			return err
		}
	}
	return nil
}

// verify compares the roots in the header with those of the body, and the
// hash of the block access list with the header's.
func (b *rawBlock) verify() error {
	txRoot := triehash.ListRoot(b.txCount, newCursor(b.txs, txValue).value)
	if txRoot != b.h.txHash {
		return b.mismatch(headerTxHash, b.h.txHash, txRoot, ErrTxRootMismatch)
	}
	if uncleHash := common.Hash(fastkeccak.Sum256(b.uncles.raw)); uncleHash != b.h.uncleHash {
		return b.mismatch(headerUncleHash, b.h.uncleHash, uncleHash, ErrUncleHashMismatch)
	}
	switch {
	case b.hasWithdrawals && !b.h.hasWithdrawalsHash:
		return fmt.Errorf("%w (block %d)", ErrUnexpectedWithdrawals, b.h.number)
	case !b.hasWithdrawals && b.h.hasWithdrawalsHash:
		return fmt.Errorf("%w (block %d)", ErrMissingWithdrawals, b.h.number)
	case b.hasWithdrawals:
		root := triehash.ListRoot(b.withdrawalCount, newCursor(b.withdrawals, rawValue).value)
		if root != b.h.withdrawalsHash {
			return b.mismatch(headerWithdrawalsHash, b.h.withdrawalsHash, root, ErrWithdrawalsRootMismatch)
		}
	}
	switch {
	case b.hasAccessList && !b.h.hasAccessListHash:
		return fmt.Errorf("%w (block %d)", ErrUnexpectedAccessList, b.h.number)
	case b.hasAccessList:
		if hash := common.Hash(fastkeccak.Sum256(b.accessList.raw)); hash != b.h.accessListHash {
			return b.mismatch(headerBlockAccessListHash, b.h.accessListHash, hash, ErrAccessListHashMismatch)
		}
	}
	return nil
}

// mismatch reports the header field at position field that disagrees with
// the value computed from the block.
func (b *rawBlock) mismatch(field int, header, computed common.Hash, sentinel error) error {
	return &MismatchError{Number: b.h.number, Field: headerFields[field].name, Header: header, Computed: computed, Err: sentinel}
}

// cursor hands the items of a list to triehash.ListRoot by index. ListRoot
// asks for them in the order 1..127, 0, 128.. (its key order); the cursor
// walks forward and starts again from the front when asked for an earlier
// item, which that order needs once. Any order gives the right items.
type cursor struct {
	list item
	r    rlpstream.Iterator
	next int                  // index of the item r reads next
	val  func(it item) []byte // the trie value of an item
}

func newCursor(list item, val func(it item) []byte) *cursor {
	return &cursor{list: list, r: list.elements(), val: val}
}

// value appends the trie value of item i to buf. The list has been checked,
// so reading it does not fail; if it did, the item would come out empty and
// ListRoot would leave it out.
func (c *cursor) value(i int, buf []byte) []byte {
	if i < c.next {
		c.r, c.next = c.list.elements(), 0
	}
	for c.r.Next() {
		c.next++
		if c.next-1 == i {
			return append(buf, c.val(current(&c.r))...)
		}
	}
	return buf
}

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
// [header, transactions, uncles, withdrawals]. VerifyBlockRLP checks that
// the whole of raw is one canonical RLP item of that shape, with a header of
// go-ethereum's fields (15 to 23 of them, each of the right size), legacy
// transactions as lists and typed ones as strings holding a known type byte
// and one list, uncles shaped as headers and withdrawals as four-field lists.
// It then recomputes the transactions root from the raw transactions, the
// uncle hash from the raw uncle list and, when the block has them, the
// withdrawals root from the raw withdrawals, and compares each with the
// header. The hash it returns is Keccak-256 of the raw header, which is the
// block hash go-ethereum computes.
//
// It does not check the contents of individual fields beyond their shape
// (signatures, gas, the state and receipts roots, the header's link to its
// parent): those need the chain.
//
// Errors: a root that disagrees is a *MismatchError (ErrTxRootMismatch,
// ErrUncleHashMismatch, ErrWithdrawalsRootMismatch) naming the block
// number, the header field and both hashes; withdrawals on one side only are
// ErrMissingWithdrawals or ErrUnexpectedWithdrawals; RLP that is not
// canonical is an *rlpstream.OffsetError and canonical RLP of the wrong shape
// a *ShapeError (ErrMalformedBlock), both with the offset in raw of the item
// at fault. VerifyBlockRLP does not panic, whatever raw holds.
func VerifyBlockRLP(raw []byte) (common.Hash, error) {
	if err := rlpstream.Validate(raw); err != nil {
		return common.Hash{}, fmt.Errorf("adapter: block: %w", err)
	}
	var b rawBlock
	if err := b.parse(raw); err != nil {
		return common.Hash{}, err
	}
	if err := b.verify(); err != nil {
		return common.Hash{}, err
	}
	return fastkeccak.Sum256(b.header.raw), nil
}

// rawBlock is a block split into its parts, each aliasing the input.
type rawBlock struct {
	header, txs, uncles, withdrawals item
	hasWithdrawals                   bool
	txCount, withdrawalCount         int
	h                                rawHeader
}

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
	r := items(block)
	parts := [...]*item{&b.header, &b.txs, &b.uncles, &b.withdrawals}
	names := [...]string{"header", "transactions", "uncles", "withdrawals"}
	n := 0
	for ; ; n++ {
		it, ok, err := r.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if n == len(parts) {
			return shapeErr(it, part("block"), "has more than %d items", len(parts))
		}
		if it.kind != rlpstream.List {
			return shapeErr(it, part(names[n]), "is a %v, want a list", it.kind)
		}
		*parts[n] = it
	}
	if n < 3 {
		return shapeErr(block, part("block"), "has %d items, want 3 or 4", n)
	}
	b.hasWithdrawals = n == 4
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
	return nil
}

// verify compares the roots in the header with those of the body.
func (b *rawBlock) verify() error {
	txRoot := triehash.ListRoot(b.txCount, newCursor(b.txs, txValue).value)
	if txRoot != b.h.txHash {
		return b.mismatch("transactionsRoot", b.h.txHash, txRoot, ErrTxRootMismatch)
	}
	if uncleHash := common.Hash(fastkeccak.Sum256(b.uncles.raw)); uncleHash != b.h.uncleHash {
		return b.mismatch("sha3Uncles", b.h.uncleHash, uncleHash, ErrUncleHashMismatch)
	}
	switch {
	case b.hasWithdrawals && !b.h.hasWithdrawalsHash:
		return fmt.Errorf("%w (block %d)", ErrUnexpectedWithdrawals, b.h.number)
	case !b.hasWithdrawals && b.h.hasWithdrawalsHash:
		return fmt.Errorf("%w (block %d)", ErrMissingWithdrawals, b.h.number)
	case b.hasWithdrawals:
		root := triehash.ListRoot(b.withdrawalCount, newCursor(b.withdrawals, rawValue).value)
		if root != b.h.withdrawalsHash {
			return b.mismatch("withdrawalsRoot", b.h.withdrawalsHash, root, ErrWithdrawalsRootMismatch)
		}
	}
	return nil
}

func (b *rawBlock) mismatch(field string, header, computed common.Hash, sentinel error) error {
	return &MismatchError{Number: b.h.number, Field: field, Header: header, Computed: computed, Err: sentinel}
}

// cursor hands the items of a list to triehash.ListRoot by index. ListRoot
// asks for them in the order 1..127, 0, 128.. (its key order); the cursor
// walks forward and starts again from the front when asked for an earlier
// item, which that order needs once. Any order gives the right items.
type cursor struct {
	list item
	r    itemReader
	next int                  // index of the item r reads next
	val  func(it item) []byte // the trie value of an item
}

func newCursor(list item, val func(it item) []byte) *cursor {
	return &cursor{list: list, r: items(list), val: val}
}

// value appends the trie value of item i to buf. The list has been checked,
// so reading it does not fail; if it did, the item would come out empty and
// ListRoot would leave it out.
func (c *cursor) value(i int, buf []byte) []byte {
	if i < c.next {
		c.r, c.next = items(c.list), 0
	}
	for {
		it, ok, err := c.r.next()
		if !ok || err != nil {
			return buf
		}
		c.next++
		if c.next-1 == i {
			return append(buf, c.val(it)...)
		}
	}
}

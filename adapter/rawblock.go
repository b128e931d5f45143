package adapter

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/keccakroot/keccakroot/rlpstream"
)

// item is one RLP item of a raw block, with its offset in the block so that
// errors can say where it is.
type item struct {
	kind    rlpstream.Kind
	raw     []byte // the whole encoding, header included
	content []byte // the content: the byte, the string, the list's items
	off     int    // offset of raw in the block
}

// contentOff returns the offset of the item's content in the block.
func (it item) contentOff() int { return it.off + len(it.raw) - len(it.content) }

// elements returns an iterator over the elements of a list item; the
// offsets of its items and of its errors are offsets in the block.
func (it item) elements() rlpstream.Iterator {
	return rlpstream.NewIteratorAt(it.content, it.contentOff())
}

// current returns the item that r is at.
func current(r *rlpstream.Iterator) item {
	return item{kind: r.Kind(), raw: r.Raw(), content: r.Content(), off: r.Offset()}
}

// iterErr returns the error that stopped r, an *rlpstream.OffsetError with
// its offset in the block, or nil at the end of the list.
func iterErr(r *rlpstream.Iterator) error {
	if err := r.Err(); err != nil {
		return fmt.Errorf("adapter: block: %w", err)
	}
	return nil
}

// readOne reads the item at the start of b, which sits at offset off in the
// block. Its errors are *rlpstream.OffsetError with offsets in the block.
func readOne(b []byte, off int) (item, error) {
	k, content, rest, err := rlpstream.Split(b)
	if err != nil {
		return item{}, fmt.Errorf("adapter: block: %w", rebase(err, off))
	}
	return item{kind: k, raw: b[:len(b)-len(rest)], content: content, off: off}, nil
}

// rebase moves the offset of an rlpstream error on a part of the block to
// an offset in the whole block.
func rebase(err error, off int) error {
	var oe *rlpstream.OffsetError
	if errors.As(err, &oe) {
		return &rlpstream.OffsetError{Offset: off + oe.Offset, Err: oe.Err}
	}
	return err
}

// shapeErr returns a *ShapeError for the item at path.
func shapeErr(it item, path fmt.Stringer, format string, args ...any) error {
	return &ShapeError{Offset: it.off, Path: path.String(), Reason: fmt.Sprintf(format, args...)}
}

// indexPath names a part of a block for an error: "header",
// "transactions[3]", "uncles[0].miner". It is formatted only when an error
// needs it, so that checking a valid block costs no formatting.
type indexPath struct {
	list  string // "block", "header", "transactions", ...
	index int    // the element of list, or -1 for list itself
	name  string // a field of that element, or ""
}

// part names a part of the block that is not an element of a list.
func part(name string) indexPath { return indexPath{name, -1, ""} }

// field returns the path of the named field of p.
func (p indexPath) field(name string) indexPath {
	p.name = name
	return p
}

// String formats the path.
func (p indexPath) String() string {
	s := p.list
	if p.index >= 0 {
		s += "[" + strconv.Itoa(p.index) + "]"
	}
	if p.name != "" {
		s += "." + p.name
	}
	return s
}

// fieldKind is what a field of a header or withdrawal holds.
type fieldKind uint8

const (
	hashField    fieldKind = iota // 32 bytes
	addressField                  // 20 bytes
	bloomField                    // 256 bytes
	nonceField                    // 8 bytes
	bigField                      // an integer of any size
	uint64Field                   // an integer of at most 8 bytes
	uint32Field                   // an integer of at most 4 bytes
	uint256Field                  // an integer of at most 32 bytes
	bytesField                    // any byte string
)

// fixedSize returns the size of a fixed-size field, or -1.
func (k fieldKind) fixedSize() int {
	switch k {
	case hashField:
		return 32
	case addressField:
		return 20
	case bloomField:
		return 256
	case nonceField:
		return 8
	}
	return -1
}

// checkField checks that it can be decoded as go-ethereum decodes a field of
// kind k and returns the reason if not.
func checkField(it item, k fieldKind) string {
	if it.kind == rlpstream.List {
		return "is a list, want a string"
	}
	if n := k.fixedSize(); n >= 0 {
		if len(it.content) != n {
			return fmt.Sprintf("has %d bytes, want %d", len(it.content), n)
		}
		return ""
	}
	if k == bytesField {
		return ""
	}
	// An integer: no leading zero byte (zero is the empty string).
	if len(it.content) > 0 && it.content[0] == 0 {
		return "is an integer with a leading zero byte"
	}
	if n := k.maxIntSize(); n > 0 && len(it.content) > n {
		return fmt.Sprintf("is a %d-byte integer, want at most %d bytes", len(it.content), n)
	}
	return ""
}

// maxIntSize returns the largest size in bytes of an integer field, or 0
// for one of any size.
func (k fieldKind) maxIntSize() int {
	switch k {
	case uint32Field:
		return 4
	case uint64Field:
		return 8
	case uint256Field:
		return 32
	}
	return 0
}

// rawHeader holds what VerifyBlockRLP reads from a header.
type rawHeader struct {
	parentHash         [32]byte
	number             uint64 // math.MaxUint64 if it does not fit
	numberRead         bool   // the fields up to the number were read: parentHash and number are set
	txHash             [32]byte
	uncleHash          [32]byte
	withdrawalsHash    [32]byte
	hasWithdrawalsHash bool
	accessListHash     [32]byte
	hasAccessListHash  bool
}

// parse checks the fields of the header list h and reads the ones
// VerifyBlockRLP needs. On an error, what was read before the field at fault
// stays, so that the block can still be named.
func (rh *rawHeader) parse(h item, path indexPath) error {
	r := h.elements()
	n := 0
	for ; r.Next(); n++ {
		it := current(&r)
		if n == len(headerFields) {
			return shapeErr(it, path, "has more than %d fields", len(headerFields))
		}
		f := headerFields[n]
		if reason := checkField(it, f.kind); reason != "" {
			return shapeErr(it, path.field(f.name), "%s", reason)
		}
		switch n {
		case headerParentHash:
			copy(rh.parentHash[:], it.content)
		case headerUncleHash:
			copy(rh.uncleHash[:], it.content)
		case headerTxHash:
			copy(rh.txHash[:], it.content)
		case headerNumber:
			rh.number = math.MaxUint64
			if len(it.content) <= 8 {
				rh.number = 0
				for _, c := range it.content {
					rh.number = rh.number<<8 | uint64(c)
				}
			}
			rh.numberRead = true
		case headerWithdrawalsHash:
			copy(rh.withdrawalsHash[:], it.content)
			rh.hasWithdrawalsHash = true
		case headerBlockAccessListHash:
			copy(rh.accessListHash[:], it.content)
			rh.hasAccessListHash = true
		}
	}
	if err := iterErr(&r); err != nil {
		return err
	}
	if n < minHeaderFields {
		return shapeErr(h, path, "has %d fields, want at least %d", n, minHeaderFields)
	}
	return nil
}

// Number of fields of each transaction type in a block. A blob transaction
// in its network form (with its sidecar) is a list of the transaction and
// three or four sidecar fields.
var txFieldCounts = [...]int{
	0x00: 9,  // legacy
	0x01: 11, // access list
	0x02: 12, // dynamic fee
	0x03: 14, // blob
	0x04: 13, // set code
}

// checkTransactions checks the shape of each transaction and returns how
// many there are.
func checkTransactions(txs item) (int, error) {
	r := txs.elements()
	n := 0
	for ; r.Next(); n++ {
		if err := checkTransaction(current(&r), n); err != nil {
			return 0, err
		}
	}
	if err := iterErr(&r); err != nil {
		return 0, err
	}
	return n, nil
}

// checkTransaction checks transaction i: a legacy transaction is a list; a
// typed one is a string whose content is a type byte and one RLP list (which
// the block's validation did not look into, so it is validated here).
func checkTransaction(it item, i int) error {
	path := indexPath{"transactions", i, ""}
	switch it.kind {
	case rlpstream.List:
		return checkTxFields(it, path, 0)
	case rlpstream.String:
		if len(it.content) == 0 {
			return shapeErr(it, path, "is an empty typed transaction")
		}
		typ := it.content[0]
		if typ == 0 || int(typ) >= len(txFieldCounts) {
			return shapeErr(it, path, "has unknown transaction type %#02x", typ)
		}
		payload := it.content[1:]
		off := it.contentOff() + 1
		if err := rlpstream.Validate(payload); err != nil {
			return fmt.Errorf("adapter: %v: %w", path, rebase(err, off))
		}
		list, err := readOne(payload, off)
		if err != nil {
			return err
		}
		if list.kind != rlpstream.List {
			return shapeErr(list, path, "has a %v after the type byte, want a list", list.kind)
		}
		return checkTxFields(list, path, typ)
	default:
		return shapeErr(it, path, "is a single byte, want a transaction")
	}
}

// checkTxFields checks the number of fields of a transaction's list.
func checkTxFields(list item, path indexPath, typ byte) error {
	n, err := rlpstream.CountValues(list.content)
	if err != nil {
		return fmt.Errorf("adapter: %v: %w", path, rebase(err, list.contentOff()))
	}
	want := txFieldCounts[typ]
	if typ == 0x03 && len(list.content) > 0 && list.content[0] >= 0xc0 {
		// Network form: [transaction, (version,) blobs, commitments, proofs].
		if n == 4 || n == 5 {
			return nil
		}
		return shapeErr(list, path, "is a blob transaction with its sidecar in %d fields, want 4 or 5", n)
	}
	if n != want {
		return shapeErr(list, path, "has %d fields, want %d for type %d", n, want, typ)
	}
	return nil
}

// checkUncles checks that each uncle is shaped like a header.
func checkUncles(uncles item) error {
	r := uncles.elements()
	for i := 0; r.Next(); i++ {
		it := current(&r)
		if it.kind != rlpstream.List {
			return shapeErr(it, indexPath{"uncles", i, ""}, "is a %v, want a header", it.kind)
		}
		var rh rawHeader
		if err := rh.parse(it, indexPath{"uncles", i, ""}); err != nil {
			return err
		}
	}
	return iterErr(&r)
}

// withdrawalFields lists the fields of a withdrawal in order.
var withdrawalFields = [...]struct {
	name string
	kind fieldKind
}{
	{"index", uint64Field},
	{"validatorIndex", uint64Field},
	{"address", addressField},
	{"amount", uint64Field},
}

// checkWithdrawals checks that each withdrawal is a list of its four fields
// and returns how many there are.
func checkWithdrawals(ws item) (int, error) {
	r := ws.elements()
	n := 0
	for ; r.Next(); n++ {
		it := current(&r)
		path := indexPath{"withdrawals", n, ""}
		if it.kind != rlpstream.List {
			return 0, shapeErr(it, path, "is a %v, want a list", it.kind)
		}
		fr := it.elements()
		i := 0
		for ; fr.Next(); i++ {
			f := current(&fr)
			if i == len(withdrawalFields) {
				return 0, shapeErr(f, path, "has more than %d fields", len(withdrawalFields))
			}
			if reason := checkField(f, withdrawalFields[i].kind); reason != "" {
				return 0, shapeErr(f, path.field(withdrawalFields[i].name), "%s", reason)
			}
		}
		if err := iterErr(&fr); err != nil {
			return 0, err
		}
		if i != len(withdrawalFields) {
			return 0, shapeErr(it, path, "has %d fields, want %d", i, len(withdrawalFields))
		}
	}
	if err := iterErr(&r); err != nil {
		return 0, err
	}
	return n, nil
}

// txValue returns the value a transaction has in the transactions trie: the
// list encoding of a legacy transaction, the content of a typed one's string.
func txValue(it item) []byte {
	if it.kind == rlpstream.List {
		return it.raw
	}
	return it.content
}

// rawValue returns the item's whole encoding, the trie value of a withdrawal.
func rawValue(it item) []byte { return it.raw }

package adapter

import (
	"strconv"
	"strings"

	"github.com/keccakroot/keccakroot/rlpstream"
)

// The block access list of EIP-7928, as go-ethereum's core/types/bal encodes
// it and 'geth export' writes it after a block's withdrawals: a list of
// account accesses, each the list
//
//	[address, storageChanges, storageReads, balanceChanges, nonceChanges, codeChanges]
//
// where storageChanges is a list of [slot, [[blockAccessIndex, postValue], ...]],
// storageReads a list of slots, balanceChanges a list of [blockAccessIndex,
// postBalance], nonceChanges of [blockAccessIndex, postNonce] and codeChanges
// of [blockAccessIndex, newCode]. Slots, values and balances are 256-bit
// integers, access indices 32-bit, nonces 64-bit, the address 20 bytes and
// the code any byte string.
//
// The shapes below say exactly that, once; checkAccessList walks a raw list
// against them, so that what it accepts is what go-ethereum's decoder
// accepts. The ordering rules of the EIP (accounts sorted by address, changes
// by index) are not shape: they are bound by the header's hash, which
// VerifyBlockRLP checks, and checked by go-ethereum's validation of the
// block and by AccessListStateRoot (checkCanonicalAccount).

// rlpShape is what one item must look like: a field of some kind, a list of
// any number of elements of one shape, or a list of fixed fields.
type rlpShape struct {
	name   string     // the field's name in go-ethereum's JSON, for errors
	field  fieldKind  // for a field: what it holds
	elem   *rlpShape  // for a list of any length: the shape of each element
	fields []rlpShape // for a list of fixed fields: each field in order
}

// isList reports whether the shape is a list.
func (s *rlpShape) isList() bool { return s.elem != nil || s.fields != nil }

// indexedChange is the shape of a change made at one block access index.
func indexedChange(value string, kind fieldKind) *rlpShape {
	return &rlpShape{fields: []rlpShape{
		{name: "blockAccessIndex", field: uint32Field},
		{name: value, field: kind},
	}}
}

// accessListShape is the shape of a whole block access list.
var accessListShape = &rlpShape{elem: &rlpShape{fields: []rlpShape{
	{name: "address", field: addressField},
	{name: "storageChanges", elem: &rlpShape{fields: []rlpShape{
		{name: "slot", field: uint256Field},
		{name: "slotChanges", elem: indexedChange("postValue", uint256Field)},
	}}},
	{name: "storageReads", elem: &rlpShape{field: uint256Field}},
	{name: "balanceChanges", elem: indexedChange("postBalance", uint256Field)},
	{name: "nonceChanges", elem: indexedChange("postNonce", uint64Field)},
	{name: "codeChanges", elem: indexedChange("newCode", bytesField)},
}}}

// maxShapeDepth is the nesting depth of accessListShape: list, account,
// storageChanges, slot change, slotChanges, write.
const maxShapeDepth = 6

// shapePath is where in a block access list an item sits, built as the walk
// descends and formatted only for an error: "blockAccessList[3].storageChanges[0].slot".
type shapePath struct {
	steps [maxShapeDepth]pathStep
	n     int
}

// pathStep is one step of a shapePath: into a named field, or into element
// index of a list.
type pathStep struct {
	name  string
	index int // -1 for a named field
}

// with returns the path one step further.
func (p shapePath) with(name string, index int) shapePath {
	if p.n < len(p.steps) {
		p.steps[p.n] = pathStep{name, index}
		p.n++
	}
	return p
}

// String formats the path.
func (p shapePath) String() string {
	var sb strings.Builder
	sb.WriteString("blockAccessList")
	for _, s := range p.steps[:p.n] {
		if s.index >= 0 {
			sb.WriteString("[" + strconv.Itoa(s.index) + "]")
		} else {
			sb.WriteString("." + s.name)
		}
	}
	return sb.String()
}

// checkAccessList checks that the block's fifth item is a block access list
// in go-ethereum's encoding. The block has been validated as canonical RLP;
// the shape is what is checked.
func checkAccessList(list item) error {
	return checkShape(list, accessListShape, shapePath{})
}

// checkShape checks item it, at path, against shape s.
func checkShape(it item, s *rlpShape, path shapePath) error {
	if !s.isList() {
		if reason := checkField(it, s.field); reason != "" {
			return shapeErr(it, path, "%s", reason)
		}
		return nil
	}
	if it.kind != rlpstream.List {
		return shapeErr(it, path, "is a %v, want a list", it.kind)
	}
	r := it.elements()
	i := 0
	for ; r.Next(); i++ {
		el := current(&r)
		var err error
		switch {
		case s.elem != nil:
			err = checkShape(el, s.elem, path.with("", i))
		case i == len(s.fields):
			return shapeErr(el, path, "has more than %d fields", len(s.fields))
		default:
			err = checkShape(el, &s.fields[i], path.with(s.fields[i].name, -1))
		}
		if err != nil {
			return err
		}
	}
	if err := iterErr(&r); err != nil {
		return err
	}
	if s.fields != nil && i != len(s.fields) {
		return shapeErr(it, path, "has %d fields, want %d", i, len(s.fields))
	}
	return nil
}

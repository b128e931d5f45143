package adapter

import (
	"reflect"
	"unsafe"

	"github.com/ethereum/go-ethereum/core/types"
)

// go-ethereum keeps the consensus fields of a transaction in an unexported
// TxData (tx.inner), set once by types.NewTx or a decoder and never changed
// afterwards. Its public accessors hand out copies: GasPrice, GasTipCap,
// GasFeeCap and Value each allocate a big.Int and its words, To an address,
// and for blob and set-code transactions every uint256 field becomes a new
// big.Int. Hashing through them allocated twice as often as tx.Hash() does.
//
// The inner value's own types (types.LegacyTx, types.DynamicFeeTx and the
// rest) are exported with exported fields, so only the one field holding it
// is hidden. Its offset is found once, by reflection, and used only when the
// field is exactly of type types.TxData: then the read below is as sound as
// any field access. If a go-ethereum release renames or retypes the field,
// txInnerOffset stays unset and TxHash falls back to tx.Hash(); a test fails
// on that, so the slower path is never taken unnoticed.
var txInnerOffset, txInnerFound = locateTxInner()

func locateTxInner() (uintptr, bool) {
	f, ok := reflect.TypeFor[types.Transaction]().FieldByName("inner")
	if !ok || f.Type != reflect.TypeFor[types.TxData]() {
		return 0, false
	}
	return f.Offset, true
}

// txInner returns the consensus contents of tx without copying them, or nil
// where this go-ethereum's Transaction has no field it can read. The caller
// must not modify what it returns: go-ethereum shares it between copies of
// the transaction.
func txInner(tx *types.Transaction) types.TxData {
	if !txInnerFound {
		return nil
	}
	// G103: the offset and type of the field were checked by reflection above.
	return *(*types.TxData)(unsafe.Add(unsafe.Pointer(tx), txInnerOffset)) //nolint:gosec
}

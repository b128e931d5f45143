package adapter

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/rlpstream"
)

// TxHash returns the hash of tx, in place of tx.Hash(): Keccak-256 of the
// RLP list of a legacy transaction, or of the type byte and the RLP list of a
// typed one, streamed into the hasher without an encoding buffer. Unlike
// tx.Hash() it does not cache; a caller that hashes the same transaction
// again should keep the result.
//
// The fields are read in place from the transaction's consensus contents,
// not through its accessors, which copy them (see txInner), so TxHash does
// not allocate. A transaction type this package does not know is hashed by
// tx.Hash().
func TxHash(tx *types.Transaction) common.Hash {
	var f txFields
	if !f.load(txInner(tx)) {
		return tx.Hash()
	}
	var h fastkeccak.Hasher
	f.write(rlpstream.NewWriter(&h))
	return digest(&h)
}

// txInt is an integer field of a transaction: go-ethereum keeps those of
// legacy, access-list and dynamic-fee transactions as *big.Int and those of
// blob and set-code transactions as *uint256.Int. At most one is set; nil
// for both is zero, as go-ethereum's rlp encodes a nil pointer.
type txInt struct {
	big  *big.Int
	u256 *uint256.Int
}

func bigIntField(x *big.Int) txInt         { return txInt{big: x} }
func uint256IntField(x *uint256.Int) txInt { return txInt{u256: x} }

func (x txInt) size() int {
	if x.u256 != nil {
		return rlpstream.Uint256Size(x.u256)
	}
	return rlpstream.BigIntSize(x.big)
}

// encodable reports whether go-ethereum's rlp can encode x.
func (x txInt) encodable() bool {
	return nonNegative(x.big)
}

// write writes x, which measure has checked is encodable.
func (x txInt) write(w rlpstream.Writer) {
	if x.u256 != nil {
		w.WriteUint256(x.u256)
		return
	}
	_ = w.WriteBigInt(x.big)
}

// txFields holds what the consensus encoding of a transaction needs, in the
// order of its list, and the sizes of its lists. Nothing is copied: slices
// and pointers alias the transaction's own fields.
type txFields struct {
	typ        byte
	chainID    txInt // typed transactions only
	nonce      uint64
	price      txInt // gas price (legacy, access list) or tip cap (the others)
	feeCap     txInt // dynamic fee, blob and set-code transactions
	gas        uint64
	to         *common.Address // nil: a contract creation
	value      txInt
	data       []byte
	accessList types.AccessList
	blobFeeCap txInt
	blobHashes []common.Hash
	auths      []types.SetCodeAuthorization
	v, r, s    txInt

	accessListSize int  // content size of the access list
	authListSize   int  // content size of the authorization list
	size           int  // content size of the transaction's list
	ok             bool // no integer is negative, so that go-ethereum encodes it
}

// load reads the consensus contents of a transaction and computes the
// sizes. It reports false for nil or a transaction type it does not know.
func (f *txFields) load(inner types.TxData) bool {
	switch t := inner.(type) {
	case *types.LegacyTx:
		f.typ = types.LegacyTxType
		f.nonce, f.gas, f.to, f.data = t.Nonce, t.Gas, t.To, t.Data
		f.price, f.value = bigIntField(t.GasPrice), bigIntField(t.Value)
		f.v, f.r, f.s = bigIntField(t.V), bigIntField(t.R), bigIntField(t.S)
	case *types.AccessListTx:
		f.typ = types.AccessListTxType
		f.chainID = bigIntField(t.ChainID)
		f.nonce, f.gas, f.to, f.data = t.Nonce, t.Gas, t.To, t.Data
		f.price, f.value = bigIntField(t.GasPrice), bigIntField(t.Value)
		f.accessList = t.AccessList
		f.v, f.r, f.s = bigIntField(t.V), bigIntField(t.R), bigIntField(t.S)
	case *types.DynamicFeeTx:
		f.typ = types.DynamicFeeTxType
		f.chainID = bigIntField(t.ChainID)
		f.nonce, f.gas, f.to, f.data = t.Nonce, t.Gas, t.To, t.Data
		f.price, f.feeCap, f.value = bigIntField(t.GasTipCap), bigIntField(t.GasFeeCap), bigIntField(t.Value)
		f.accessList = t.AccessList
		f.v, f.r, f.s = bigIntField(t.V), bigIntField(t.R), bigIntField(t.S)
	case *types.BlobTx:
		// The sidecar is not part of the hash (its rlp tag is "-").
		f.typ = types.BlobTxType
		f.chainID = uint256IntField(t.ChainID)
		f.nonce, f.gas, f.to, f.data = t.Nonce, t.Gas, &t.To, t.Data
		f.price, f.feeCap, f.value = uint256IntField(t.GasTipCap), uint256IntField(t.GasFeeCap), uint256IntField(t.Value)
		f.accessList = t.AccessList
		f.blobFeeCap, f.blobHashes = uint256IntField(t.BlobFeeCap), t.BlobHashes
		f.v, f.r, f.s = uint256IntField(t.V), uint256IntField(t.R), uint256IntField(t.S)
	case *types.SetCodeTx:
		f.typ = types.SetCodeTxType
		f.chainID = uint256IntField(t.ChainID)
		f.nonce, f.gas, f.to, f.data = t.Nonce, t.Gas, &t.To, t.Data
		f.price, f.feeCap, f.value = uint256IntField(t.GasTipCap), uint256IntField(t.GasFeeCap), uint256IntField(t.Value)
		f.accessList = t.AccessList
		f.auths = t.AuthList
		f.v, f.r, f.s = uint256IntField(t.V), uint256IntField(t.R), uint256IntField(t.S)
	default:
		return false
	}
	f.measure()
	return true
}

// hasFeeCap reports whether the transaction's list has a fee cap after its
// tip cap: every type since EIP-1559.
func (f *txFields) hasFeeCap() bool {
	return f.typ >= types.DynamicFeeTxType
}

// measure computes the sizes of the lists and whether go-ethereum can
// encode the transaction at all (it cannot if an integer is negative).
func (f *txFields) measure() {
	n := rlpstream.Uint64Size(f.nonce) + f.price.size() +
		rlpstream.Uint64Size(f.gas) + f.toSize() + f.value.size() +
		rlpstream.BytesSize(f.data) + f.v.size() + f.r.size() + f.s.size()
	f.ok = f.price.encodable() && f.value.encodable() &&
		f.v.encodable() && f.r.encodable() && f.s.encodable()
	if f.typ != types.LegacyTxType {
		f.accessListSize = accessListSize(f.accessList)
		n += f.chainID.size() + rlpstream.ListSize(f.accessListSize)
		f.ok = f.ok && f.chainID.encodable()
	}
	if f.hasFeeCap() {
		n += f.feeCap.size()
		f.ok = f.ok && f.feeCap.encodable()
	}
	switch f.typ {
	case types.BlobTxType:
		n += f.blobFeeCap.size() + rlpstream.ListSize(33*len(f.blobHashes))
	case types.SetCodeTxType:
		f.authListSize = authListSize(f.auths)
		n += rlpstream.ListSize(f.authListSize)
	}
	f.size = n
}

// write writes what the transaction hash covers: the RLP list of a legacy
// transaction, the type byte and the list of a typed one. For a transaction
// go-ethereum cannot encode it writes what go-ethereum's hash covers then:
// nothing for a legacy transaction, the type byte for a typed one.
func (f *txFields) write(w rlpstream.Writer) {
	switch {
	case f.typ == types.LegacyTxType:
		if f.ok {
			w.WriteListHeader(f.size)
			f.writeFields(w)
		}
	case f.ok:
		w.WriteTypedTxHeader(f.typ, f.size)
		f.writeFields(w)
	default:
		w.Hasher().WriteByte(f.typ)
	}
}

// writeFields writes the elements of the transaction's list.
func (f *txFields) writeFields(w rlpstream.Writer) {
	if f.typ != types.LegacyTxType {
		f.chainID.write(w)
	}
	w.WriteUint64(f.nonce)
	f.price.write(w)
	if f.hasFeeCap() {
		f.feeCap.write(w)
	}
	w.WriteUint64(f.gas)
	if f.to == nil {
		w.WriteBytes(nil)
	} else {
		w.WriteBytes(f.to[:])
	}
	f.value.write(w)
	w.WriteBytes(f.data)
	if f.typ != types.LegacyTxType {
		writeAccessList(w, f.accessList, f.accessListSize)
	}
	switch f.typ {
	case types.BlobTxType:
		f.blobFeeCap.write(w)
		w.WriteListHeader(33 * len(f.blobHashes))
		for i := range f.blobHashes {
			w.WriteBytes(f.blobHashes[i][:])
		}
	case types.SetCodeTxType:
		writeAuthList(w, f.auths, f.authListSize)
	}
	f.v.write(w)
	f.r.write(w)
	f.s.write(w)
}

// toSize is the size of the recipient: the empty string for a contract
// creation, as go-ethereum's `rlp:"nil"` tag encodes a nil address.
func (f *txFields) toSize() int {
	if f.to == nil {
		return 1
	}
	return 1 + common.AddressLength
}

// nonNegative reports whether go-ethereum's rlp can encode x: nil is zero,
// and a negative value is an encoding error.
func nonNegative(x *big.Int) bool {
	return x == nil || x.Sign() >= 0
}

// accessListSize returns the content size of an access list: each entry is
// the list [address, [storage keys...]].
func accessListSize(al types.AccessList) int {
	n := 0
	for i := range al {
		n += rlpstream.ListSize(accessTupleSize(&al[i]))
	}
	return n
}

func accessTupleSize(t *types.AccessTuple) int {
	return 1 + common.AddressLength + rlpstream.ListSize((1+common.HashLength)*len(t.StorageKeys))
}

func writeAccessList(w rlpstream.Writer, al types.AccessList, size int) {
	w.WriteListHeader(size)
	for i := range al {
		t := &al[i]
		w.WriteListHeader(accessTupleSize(t))
		w.WriteBytes(t.Address[:])
		w.WriteListHeader((1 + common.HashLength) * len(t.StorageKeys))
		for j := range t.StorageKeys {
			w.WriteBytes(t.StorageKeys[j][:])
		}
	}
}

// authListSize returns the content size of an EIP-7702 authorization list:
// each entry is the list [chain ID, address, nonce, y parity, r, s].
func authListSize(auths []types.SetCodeAuthorization) int {
	n := 0
	for i := range auths {
		n += rlpstream.ListSize(authSize(&auths[i]))
	}
	return n
}

func authSize(a *types.SetCodeAuthorization) int {
	return rlpstream.Uint256Size(&a.ChainID) + 1 + common.AddressLength +
		rlpstream.Uint64Size(a.Nonce) + rlpstream.Uint64Size(uint64(a.V)) +
		rlpstream.Uint256Size(&a.R) + rlpstream.Uint256Size(&a.S)
}

func writeAuthList(w rlpstream.Writer, auths []types.SetCodeAuthorization, size int) {
	w.WriteListHeader(size)
	for i := range auths {
		a := &auths[i]
		w.WriteListHeader(authSize(a))
		w.WriteUint256(&a.ChainID)
		w.WriteBytes(a.Address[:])
		w.WriteUint64(a.Nonce)
		w.WriteUint64(uint64(a.V))
		w.WriteUint256(&a.R)
		w.WriteUint256(&a.S)
	}
}

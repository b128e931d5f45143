package adapter

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/rlpstream"
)

// TxHash returns the hash of tx, in place of tx.Hash(): Keccak-256 of the
// RLP list of a legacy transaction, or of the type byte and the RLP list of a
// typed one, streamed into the hasher without an encoding buffer. Unlike
// tx.Hash() it does not cache; a caller that hashes the same transaction
// again should keep the result.
//
// The fields are read through the public accessors of types.Transaction,
// several of which return copies (GasPrice, GasTipCap, GasFeeCap and Value
// for every type; ChainId and the signature values of blob and set-code
// transactions), and those copies are this function's only allocations. A
// transaction type this package does not know is hashed by tx.Hash().
func TxHash(tx *types.Transaction) common.Hash {
	var f txFields
	if !f.load(tx) {
		return tx.Hash()
	}
	var h fastkeccak.Hasher
	f.write(rlpstream.NewWriter(&h))
	return digest(&h)
}

// txFields holds what the consensus encoding of a transaction needs, read
// once through the public accessors, and the sizes of its lists.
type txFields struct {
	typ        byte
	chainID    *big.Int // typed transactions only
	nonce      uint64
	price      *big.Int // gas price (legacy, access list) or tip cap (the others)
	feeCap     *big.Int // dynamic fee, blob and set-code transactions
	gas        uint64
	to         common.Address
	create     bool // no recipient: a contract creation
	value      *big.Int
	data       []byte
	accessList types.AccessList
	blobFeeCap *big.Int
	blobHashes []common.Hash
	auths      []types.SetCodeAuthorization
	v, r, s    *big.Int

	accessListSize int  // content size of the access list
	authListSize   int  // content size of the authorization list
	size           int  // content size of the transaction's list
	ok             bool // no integer is negative, so that go-ethereum encodes it
}

// load reads tx and computes the sizes. It reports false for a transaction
// type it does not know.
func (f *txFields) load(tx *types.Transaction) bool {
	f.typ = tx.Type()
	switch f.typ {
	case types.LegacyTxType:
		f.price = tx.GasPrice()
	case types.AccessListTxType:
		f.chainID = tx.ChainId()
		f.price = tx.GasPrice()
		f.accessList = tx.AccessList()
	case types.DynamicFeeTxType, types.BlobTxType, types.SetCodeTxType:
		f.chainID = tx.ChainId()
		f.price = tx.GasTipCap()
		f.feeCap = tx.GasFeeCap()
		f.accessList = tx.AccessList()
		switch f.typ {
		case types.BlobTxType:
			f.blobFeeCap = tx.BlobGasFeeCap()
			f.blobHashes = tx.BlobHashes()
		case types.SetCodeTxType:
			f.auths = tx.SetCodeAuthorizations()
		}
	default:
		return false
	}
	f.nonce = tx.Nonce()
	f.gas = tx.Gas()
	if to := tx.To(); to != nil {
		f.to = *to
	} else {
		f.create = true
	}
	f.value = tx.Value()
	f.data = tx.Data()
	f.v, f.r, f.s = tx.RawSignatureValues()
	f.measure()
	return true
}

// measure computes the sizes of the lists and whether go-ethereum can
// encode the transaction at all (it cannot if an integer is negative).
func (f *txFields) measure() {
	n := rlpstream.Uint64Size(f.nonce) + rlpstream.BigIntSize(f.price) +
		rlpstream.Uint64Size(f.gas) + f.toSize() + rlpstream.BigIntSize(f.value) +
		rlpstream.BytesSize(f.data) +
		rlpstream.BigIntSize(f.v) + rlpstream.BigIntSize(f.r) + rlpstream.BigIntSize(f.s)
	f.ok = nonNegative(f.price) && nonNegative(f.value) &&
		nonNegative(f.v) && nonNegative(f.r) && nonNegative(f.s)
	if f.typ != types.LegacyTxType {
		f.accessListSize = accessListSize(f.accessList)
		n += rlpstream.BigIntSize(f.chainID) + rlpstream.ListSize(f.accessListSize)
		f.ok = f.ok && nonNegative(f.chainID)
	}
	if f.feeCap != nil {
		n += rlpstream.BigIntSize(f.feeCap)
		f.ok = f.ok && nonNegative(f.feeCap)
	}
	switch f.typ {
	case types.BlobTxType:
		n += rlpstream.BigIntSize(f.blobFeeCap) + rlpstream.ListSize(33*len(f.blobHashes))
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

// writeBig writes x, which measure has checked is not negative.
func writeBig(w rlpstream.Writer, x *big.Int) {
	_ = w.WriteBigInt(x)
}

// writeFields writes the elements of the transaction's list.
func (f *txFields) writeFields(w rlpstream.Writer) {
	if f.typ != types.LegacyTxType {
		writeBig(w, f.chainID)
	}
	w.WriteUint64(f.nonce)
	writeBig(w, f.price)
	if f.feeCap != nil {
		writeBig(w, f.feeCap)
	}
	w.WriteUint64(f.gas)
	if f.create {
		w.WriteBytes(nil)
	} else {
		w.WriteBytes(f.to[:])
	}
	writeBig(w, f.value)
	w.WriteBytes(f.data)
	if f.typ != types.LegacyTxType {
		writeAccessList(w, f.accessList, f.accessListSize)
	}
	switch f.typ {
	case types.BlobTxType:
		writeBig(w, f.blobFeeCap)
		w.WriteListHeader(33 * len(f.blobHashes))
		for i := range f.blobHashes {
			w.WriteBytes(f.blobHashes[i][:])
		}
	case types.SetCodeTxType:
		writeAuthList(w, f.auths, f.authListSize)
	}
	writeBig(w, f.v)
	writeBig(w, f.r)
	writeBig(w, f.s)
}

// toSize is the size of the recipient: the empty string for a contract
// creation, as go-ethereum's `rlp:"nil"` tag encodes a nil address.
func (f *txFields) toSize() int {
	if f.create {
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

package adapter

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/rlpstream"
)

//go:generate go run gen_header.go

// HeaderHash returns the hash of a block header, in place of h.Hash():
// Keccak-256 of its RLP encoding, streamed into a hasher on the stack. It
// does not allocate.
//
// The encoding follows go-ethereum's, fork fields included: the optional
// fields at the end of the header (BaseFee, WithdrawalsHash, BlobGasUsed,
// ExcessBlobGas, ParentBeaconRoot, RequestsHash, BlockAccessListHash,
// SlotNumber) are encoded up to the last one that is set, and one that is
// unset before it is encoded as an empty string. The fields are described
// once, in internal/headerfields, from which header_gen.go is generated.
// Like go-ethereum's, the hash of a nil header is that of an empty list, and
// that of a header holding a negative integer, which RLP cannot encode, is
// the hash of nothing.
func HeaderHash(h *types.Header) common.Hash {
	var hs fastkeccak.Hasher
	w := rlpstream.NewWriter(&hs)
	if h == nil {
		w.WriteListHeader(0)
	} else if headerEncodable(h) {
		writeHeader(w, h, headerSize(h))
	}
	return digest(&hs)
}

// BlockHash returns the hash of a block, in place of b.Hash(): the hash of
// its header. It does not cache. A nil block, whose Hash go-ethereum cannot
// take, gets the hash of a nil header, as HeaderHash gives it.
func BlockHash(b *types.Block) common.Hash {
	if b == nil {
		return HeaderHash(nil)
	}
	return HeaderHash(b.Header())
}

// UncleHash returns the hash of a list of uncle headers, in place of
// types.CalcUncleHash: Keccak-256 of the RLP list of the headers, streamed
// into a hasher on the stack. It does not allocate.
func UncleHash(uncles []*types.Header) common.Hash {
	var hs fastkeccak.Hasher
	w := rlpstream.NewWriter(&hs)
	size := 0
	for _, u := range uncles {
		if u != nil && !headerEncodable(u) {
			// go-ethereum's encoder fails before it writes anything.
			return digest(&hs)
		}
		size += rlpstream.ListSize(headerSize(u))
	}
	w.WriteListHeader(size)
	for _, u := range uncles {
		if u == nil {
			w.WriteListHeader(0)
			continue
		}
		writeHeader(w, u, headerSize(u))
	}
	return digest(&hs)
}

// Sizes of the fixed-size header fields, encoded.
const (
	hashFieldSize    = 1 + common.HashLength     // 32-byte string
	addressFieldSize = 1 + common.AddressLength  // 20-byte string
	bloomFieldSize   = 3 + types.BloomByteLength // 256-byte string, long header
	nonceFieldSize   = 1 + 8                     // 8-byte string
)

// headerEncodable reports whether go-ethereum can encode h: its integers
// must not be negative.
func headerEncodable(h *types.Header) bool {
	return nonNegative(h.Difficulty) && nonNegative(h.Number) && nonNegative(h.BaseFee)
}

// nonNegative reports whether go-ethereum's rlp can encode x: nil is zero,
// and a negative value is an encoding error.
func nonNegative(x *big.Int) bool {
	return x == nil || x.Sign() >= 0
}

// An unset optional field before a set one is encoded as the empty string.

func hashPtrSize(p *common.Hash) int {
	if p == nil {
		return 1
	}
	return hashFieldSize
}

func uint64PtrSize(p *uint64) int {
	if p == nil {
		return 1
	}
	return rlpstream.Uint64Size(*p)
}

func writeHashPtr(w rlpstream.Writer, p *common.Hash) {
	if p == nil {
		w.WriteBytes(nil)
		return
	}
	w.WriteBytes(p[:])
}

func writeUint64Ptr(w rlpstream.Writer, p *uint64) {
	if p == nil {
		w.WriteUint64(0)
		return
	}
	w.WriteUint64(*p)
}

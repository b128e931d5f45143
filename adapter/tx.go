package adapter

import (
	"errors"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// TxHash returns the hash of tx, in place of tx.Hash(): Keccak-256 of the
// RLP list of a legacy transaction, or of the type byte and the RLP list of a
// typed one. Unlike tx.Hash() it does not cache; a caller that hashes the
// same transaction again should keep the result.
//
// The consensus fields are reached only through go-ethereum's public
// encoding, tx.EncodeRLP, streamed into a pooled hasher, so that TxHash
// keeps working across go-ethereum releases: its accessors would copy every
// integer and the recipient, and its fields are not exported.
//
// A nil transaction, whose Hash go-ethereum cannot take, gets the zero
// hash, which no transaction has.
func TxHash(tx *types.Transaction) common.Hash {
	if tx == nil {
		return common.Hash{}
	}
	if tx.Type() == types.BlobTxType && tx.BlobTxSidecar() != nil {
		// The hash covers the transaction without its sidecar, which the
		// network encoding carries.
		tx = tx.WithoutBlobTxSidecar()
	}
	e := envelopePool.Get().(*envelopeHasher)
	defer envelopePool.Put(e)
	e.reset(tx.Type())
	switch err := tx.EncodeRLP(e); {
	case errors.Is(err, errNotEnvelope):
		return tx.Hash()
	case err != nil:
		// go-ethereum cannot encode the transaction (a negative integer):
		// its hash then covers only the type byte of a typed transaction,
		// and nothing of a legacy one.
		e.h.Reset()
		if tx.Type() != types.LegacyTxType {
			e.h.WriteByte(tx.Type())
		}
	}
	return digest(&e.h)
}

// envelopePool holds the hashers of TxHash: EncodeRLP takes an io.Writer,
// behind which a hasher on the stack would escape to the heap.
var envelopePool = sync.Pool{New: func() any { return new(envelopeHasher) }}

// errNotEnvelope reports a typed transaction whose EncodeRLP output did not
// start with an RLP string header, which a go-ethereum release could only
// cause by changing the network encoding.
var errNotEnvelope = errors.New("adapter: typed transaction not encoded as an RLP string")

// envelopeHasher is the io.Writer that tx.EncodeRLP writes into. What
// EncodeRLP writes is what the transaction hash covers, except for a typed
// transaction: its envelope (the type byte and the RLP list) comes wrapped
// in an RLP string, whose header the hash leaves out. EncodeRLP encodes into
// a buffer before writing, so an encoding error leaves nothing written.
type envelopeHasher struct {
	h fastkeccak.Hasher
	// skip is the number of header bytes still to be dropped: 0 for a
	// legacy transaction, -1 for a typed one until the header's first byte
	// has told its length.
	skip int
}

// reset prepares e for a transaction of type txType.
func (e *envelopeHasher) reset(txType byte) {
	e.h.Reset()
	e.skip = 0
	if txType != types.LegacyTxType {
		e.skip = -1
	}
}

// Write hashes p, less the string header of a typed transaction's envelope,
// which may arrive split over several writes.
func (e *envelopeHasher) Write(p []byte) (int, error) {
	n := len(p)
	for e.skip != 0 && len(p) > 0 {
		if e.skip < 0 {
			switch c := p[0]; {
			case c >= 0x80 && c < 0xb8:
				e.skip = 1
			case c >= 0xb8 && c < 0xc0:
				e.skip = 1 + int(c-0xb7)
			default:
				return 0, errNotEnvelope
			}
		}
		k := min(e.skip, len(p))
		p, e.skip = p[k:], e.skip-k
	}
	e.h.Write(p)
	return n, nil
}

package adapter

import (
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
)

// FuzzVerifyBlockRLP feeds VerifyBlockRLP mutations of real blocks from the
// generated chains, in the devp2p form and in the export form with block
// access lists, and checks, besides that it never panics, that it agrees
// with go-ethereum, which decodes them as 'geth import' does:
//
//   - a block it accepts, go-ethereum either cannot decode (VerifyBlockRLP
//     does not decode the fields of transactions) or decodes to a block with
//     the same hash whose roots and access list hash go-ethereum recomputes
//     to the header's;
//   - a block go-ethereum decodes and whose roots it confirms, it accepts.
func FuzzVerifyBlockRLP(f *testing.F) {
	for i, cb := range mustTestChain(f) {
		f.Add(cb.raw)
		if i%4 == 0 && cb.block.AccessList() != nil {
			f.Add(cb.export)
		}
	}
	f.Add([]byte{0xc3, 0xc0, 0xc0, 0xc0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		hash, err := VerifyBlockRLP(raw)
		block, decodeErr := DecodeExportedBlock(raw)
		if decodeErr != nil {
			if err == nil && hash == ([32]byte{}) {
				t.Fatal("accepted with a zero hash")
			}
			return
		}
		gethValid := gethBodyMatches(block)
		switch {
		case err == nil && !gethValid:
			t.Fatalf("accepted a block whose roots go-ethereum rejects (hash %x)", hash)
		case err == nil && hash != block.Hash():
			t.Fatalf("hash %x, go-ethereum %x", hash, block.Hash())
		case err != nil && gethValid:
			t.Fatalf("rejected a block go-ethereum accepts: %v", err)
		}
	})
}

// gethBodyMatches reports whether go-ethereum's own computations from a
// decoded block agree with its header: transactions root, uncle hash,
// withdrawals and the block access list, as its block validator checks them
// (an Amsterdam header without the list in the block is valid: go-ethereum
// then computes the list by executing the block).
func gethBodyMatches(b *types.Block) bool {
	h := b.Header()
	if al := b.AccessList(); al != nil && (h.BlockAccessListHash == nil || al.Hash() != *h.BlockAccessListHash) {
		return false
	}
	if types.DeriveSha(b.Transactions(), trie.NewStackTrie(nil)) != h.TxHash {
		return false
	}
	if types.CalcUncleHash(b.Uncles()) != h.UncleHash {
		return false
	}
	if (h.WithdrawalsHash != nil) != (b.Withdrawals() != nil) {
		return false
	}
	return h.WithdrawalsHash == nil ||
		types.DeriveSha(b.Withdrawals(), trie.NewStackTrie(nil)) == *h.WithdrawalsHash
}

// FuzzTxHash decodes its input as go-ethereum decodes a transaction (a
// legacy RLP list, or a type byte and its payload) and checks that TxHash,
// which hashes the transaction's public encoding, gives tx.Hash(). The seeds are
// every transaction of the generated chains, of every type.
func FuzzTxHash(f *testing.F) {
	for _, cb := range mustTestChain(f) {
		for _, tx := range cb.block.Transactions() {
			raw, err := tx.MarshalBinary()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(raw)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var tx types.Transaction
		if tx.UnmarshalBinary(raw) != nil {
			return
		}
		// TxHash first: tx.Hash() caches its result in tx.
		if got, want := TxHash(&tx), tx.Hash(); got != want {
			t.Fatalf("TxHash %x, go-ethereum %x, for %x", got, want, raw)
		}
	})
}

package adapter

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethdb"

	"github.com/keccakroot/keccakroot/triehash"
)

// VerifyRangeProof is go-ethereum's trie.VerifyRangeProof: it checks that
// keys and values are the entries of the trie of root from firstKey up to
// the last key, with the edge proofs in proofDb (nodes under their hashes),
// and reports whether the trie holds more keys after them. A nil proofDb
// says the keys are the whole trie. It decides as go-ethereum does on every
// input, and returns an error where go-ethereum panics.
func VerifyRangeProof(root common.Hash, firstKey []byte, keys, values [][]byte, proofDb ethdb.KeyValueReader) (bool, error) {
	if proofDb == nil {
		return triehash.VerifyRangeProofFrom(root, firstKey, keys, values, nil)
	}
	return triehash.VerifyRangeProofFrom(root, firstKey, keys, values, proofReader{proofDb})
}

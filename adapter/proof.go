package adapter

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethdb"

	"github.com/keccakroot/keccakroot/triehash"
)

// Prove writes the proof of key in t into proofDb, each node under its
// hash, as go-ethereum's Trie.Prove does.
func Prove(t *triehash.Trie, key []byte, proofDb ethdb.KeyValueWriter) error {
	switch {
	case t == nil:
		return nilArgument("trie")
	case proofDb == nil:
		return nilArgument("proof database")
	}
	proof, err := t.Prove(key)
	if err != nil {
		return err
	}
	for _, n := range proof {
		if err := proofDb.Put(Keccak256(n), n); err != nil {
			return err
		}
	}
	return nil
}

// VerifyProof is go-ethereum's trie.VerifyProof: the value that the proof
// in proofDb (nodes under their hashes) proves for key against root, or nil
// for a proven absence. It decides as go-ethereum does on every input; a
// nil proofDb is an ErrNilArgument.
func VerifyProof(root common.Hash, key []byte, proofDb ethdb.KeyValueReader) ([]byte, error) {
	if proofDb == nil {
		return nil, nilArgument("proof database")
	}
	return triehash.VerifyProofFrom(root, key, proofReader{proofDb})
}

// proofReader serves proof nodes from a database keyed by hash.
type proofReader struct{ db ethdb.KeyValueReader }

func (r proofReader) Node(_ []byte, hash [32]byte) ([]byte, error) {
	return r.db.Get(hash[:])
}

package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/gethclient"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
)

// FuzzVerifyAccountProof feeds the JSON of an eth_getProof result, as nodes
// write it and as gethclient.AccountResult's own tags read it, and a state
// root to VerifyAccountResult: it must never panic, and whatever it accepts,
// go-ethereum's trie.VerifyProof must prove too, with the same account and
// slot values. The seeds are the fixtures, served by go-ethereum.
func FuzzVerifyAccountProof(f *testing.F) {
	stateRoot, results := readProofFixtures(f)
	for _, r := range results {
		f.Add(stateRoot[:], []byte(r))
		// And in gethclient.AccountResult's own JSON form.
		if res, err := ParseAccountResult(r); err == nil {
			if data, err := json.Marshal(res); err == nil {
				f.Add(stateRoot[:], data)
			}
		}
	}
	f.Add(types.EmptyRootHash[:], []byte(`{"address":"0x0000000000000000000000000000000000000001","balance":"0x0","codeHash":"0x0000000000000000000000000000000000000000000000000000000000000000","nonce":"0x0","storageHash":"0x0000000000000000000000000000000000000000000000000000000000000000","accountProof":[],"storageProof":[{"key":"0x1","value":"0x0","proof":[]}]}`))
	f.Add(stateRoot[:], []byte(`{"address":"0x0000000000000000000000000000000000000001","storageProof":[{"key":"0x1"}]}`))

	f.Fuzz(func(t *testing.T, rootBytes, data []byte) {
		root := common.BytesToHash(rootBytes)
		if res, err := ParseAccountResult(data); err == nil {
			checkAgainstGeth(t, root, res)
		} else if !errors.Is(err, ErrMalformedProofResult) {
			t.Fatalf("ParseAccountResult: want ErrMalformedProofResult, got %v", err)
		}
		var res gethclient.AccountResult
		if json.Unmarshal(data, &res) == nil {
			checkAgainstGeth(t, root, &res)
		}
	})
}

// checkAgainstGeth verifies res and, if it is accepted, checks that
// go-ethereum proves the same account and slot values.
func checkAgainstGeth(t *testing.T, root common.Hash, res *gethclient.AccountResult) {
	acc, err := VerifyAccountResult(root, res)
	if err != nil {
		var perr *AccountProofError
		if !errors.As(err, &perr) || perr.Error() == "" {
			t.Fatalf("want an *AccountProofError, got %#v", err)
		}
		return
	}
	if root == types.EmptyRootHash {
		if acc != nil {
			t.Fatalf("an account in the empty state: %v", acc)
		}
		return
	}
	enc, err := trie.VerifyProof(root, crypto.Keccak256(res.Address[:]), hexProofDB(res.AccountProof))
	if err != nil {
		t.Fatalf("keccakroot accepts an account proof that go-ethereum rejects: %v", err)
	}
	if acc == nil {
		if enc != nil {
			t.Fatalf("keccakroot proves the account absent, go-ethereum proves %x", enc)
		}
		return
	}
	if want, _ := rlp.EncodeToBytes(acc); !bytes.Equal(want, enc) {
		t.Fatalf("keccakroot proves the account %x, go-ethereum %x", want, enc)
	}
	if acc.Root == types.EmptyRootHash {
		return
	}
	for _, sr := range res.StorageProof {
		key, _ := decodeSlotKey(sr.Key)
		enc, err := trie.VerifyProof(acc.Root, crypto.Keccak256(key[:]), hexProofDB(sr.Proof))
		if err != nil {
			t.Fatalf("slot %s: keccakroot accepts a storage proof that go-ethereum rejects: %v", sr.Key, err)
		}
		var value []byte
		if enc != nil {
			if _, content, _, err := rlp.Split(enc); err == nil {
				value = content
			}
		}
		if new(big.Int).SetBytes(value).Cmp(sr.Value) != 0 {
			t.Fatalf("slot %s: the result claims %v, go-ethereum proves %x", sr.Key, sr.Value, enc)
		}
	}
}

// hexProofDB puts the decodable nodes of a proof in a database under their
// hashes, as go-ethereum's VerifyProof takes them.
func hexProofDB(hexNodes []string) *memorydb.Database {
	db := memorydb.New()
	for _, s := range hexNodes {
		if n, err := decodeProofNodes("", []string{s}); err == nil {
			_ = db.Put(crypto.Keccak256(n[0]), n[0])
		}
	}
	return db
}

package adapter

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/gethclient"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"
)

// randomProofState is a state made with go-ethereum's trie: accounts, some
// with storage, and what eth_getProof claims for each.
type randomProofState struct {
	root     common.Hash
	accounts *trie.Trie
	storage  map[common.Address]*trie.Trie
	values   map[common.Address]map[common.Hash]*big.Int
	present  []common.Address
}

func newRandomProofState(t *testing.T, rng *rand.Rand, n int) *randomProofState {
	t.Helper()
	db := triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil)
	s := &randomProofState{accounts: trie.NewEmpty(db), storage: map[common.Address]*trie.Trie{},
		values: map[common.Address]map[common.Hash]*big.Int{}}
	for i := range n {
		var addr common.Address
		fillRandom(rng, addr[:])
		acc := types.StateAccount{Nonce: rng.Uint64N(5), Balance: uint256.NewInt(rng.Uint64()),
			Root: types.EmptyRootHash, CodeHash: types.EmptyCodeHash[:]}
		if i%3 == 0 {
			st := trie.NewEmpty(db)
			slots := map[common.Hash]*big.Int{}
			for range 1 + rng.IntN(60) {
				var k common.Hash
				if rng.IntN(2) == 0 {
					k = common.BigToHash(big.NewInt(rng.Int64N(100))) // small slots, as contracts use
				} else {
					fillRandom(rng, k[:])
				}
				v := make([]byte, 1+rng.IntN(32))
				fillRandom(rng, v)
				v[0] |= 1 // no leading zero, as go-ethereum stores values
				enc, _ := rlp.EncodeToBytes(v)
				mustUpdate(t, st, crypto.Keccak256(k[:]), enc)
				slots[k] = new(big.Int).SetBytes(v)
			}
			acc.Root = st.Hash()
			codeHash := crypto.Keccak256Hash(addr[:])
			acc.CodeHash = codeHash[:]
			s.storage[addr], s.values[addr] = st, slots
		}
		enc, _ := rlp.EncodeToBytes(&acc)
		mustUpdate(t, s.accounts, crypto.Keccak256(addr[:]), enc)
		s.present = append(s.present, addr)
	}
	s.root = s.accounts.Hash()
	return s
}

// answer is what go-ethereum's eth_getProof answers for addr and keys, as
// its GetProof builds it: zeros for a missing account, no storage proof
// nodes for an empty storage trie.
func (s *randomProofState) answer(t *testing.T, addr common.Address, keys []common.Hash) *gethclient.AccountResult {
	t.Helper()
	res := &gethclient.AccountResult{Address: addr, Balance: new(big.Int), StorageProof: []gethclient.StorageResult{}}
	var proof proofList
	if err := s.accounts.Prove(crypto.Keccak256(addr[:]), &proof); err != nil {
		t.Fatal(err)
	}
	res.AccountProof = proof
	enc, err := s.accounts.Get(crypto.Keccak256(addr[:]))
	if err != nil {
		t.Fatal(err)
	}
	if enc != nil {
		var acc types.StateAccount
		if err := rlp.DecodeBytes(enc, &acc); err != nil {
			t.Fatal(err)
		}
		res.Nonce, res.Balance, res.StorageHash = acc.Nonce, acc.Balance.ToBig(), acc.Root
		res.CodeHash = common.BytesToHash(acc.CodeHash)
	}
	for i, k := range keys {
		key := k.Hex()
		if i%2 == 1 {
			key = hexutil.EncodeBig(k.Big()) // as a quantity, which eth_getProof also takes
		}
		sr := gethclient.StorageResult{Key: key, Value: new(big.Int), Proof: []string{}}
		if st := s.storage[addr]; st != nil {
			var proof proofList
			if err := st.Prove(crypto.Keccak256(k[:]), &proof); err != nil {
				t.Fatal(err)
			}
			sr.Proof = proof
			if v := s.values[addr][k]; v != nil {
				sr.Value = new(big.Int).Set(v)
			}
		}
		res.StorageProof = append(res.StorageProof, sr)
	}
	return res
}

func TestVerifyAccountProofRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1186))
	s := newRandomProofState(t, rng, 3000)
	for i := range 400 {
		addr := s.present[rng.IntN(len(s.present))]
		absent := i%4 == 3
		if absent {
			fillRandom(rng, addr[:])
		}
		var keys []common.Hash
		for k := range s.values[addr] {
			if len(keys) < 4 {
				keys = append(keys, k)
			}
		}
		for range 2 { // and slots that are not set
			var k common.Hash
			fillRandom(rng, k[:])
			keys = append(keys, k)
		}
		res := s.answer(t, addr, keys)
		acc, err := VerifyAccountResult(s.root, res)
		if err != nil {
			t.Fatalf("%s: %v", addr.Hex(), err)
		}
		if (acc == nil) != absent || acc != nil && (acc.Nonce != res.Nonce || acc.Root != res.StorageHash) {
			t.Fatalf("%s: absent %v, got %+v for %+v", addr.Hex(), absent, acc, res)
		}

		// A byte changed in any proof node breaks the proof it is in.
		nodes := &res.AccountProof
		want := ErrAccountProofInvalid
		if len(res.StorageProof) > 0 && s.storage[addr] != nil && rng.IntN(2) == 0 {
			j := rng.IntN(len(res.StorageProof))
			nodes, want = &res.StorageProof[j].Proof, ErrStorageProofInvalid
		}
		j := rng.IntN(len(*nodes))
		n := common.FromHex((*nodes)[j])
		n[rng.IntN(len(n))] ^= byte(1 + rng.IntN(255))
		(*nodes)[j] = hexutil.Encode(n)
		if err := VerifyAccountProof(s.root, res); !errors.Is(err, want) {
			t.Fatalf("%s: node %d changed: want %v, got %v", addr.Hex(), j, want, err)
		}
	}
}

func fillRandom(rng *rand.Rand, p []byte) {
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
}

package adapter

import (
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/gethclient"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/triehash"
)

// The fixtures are go-ethereum's own eth_getProof answers, served by a node
// over JSON-RPC (see testdata/proofs/gen): the block's state root, and the
// JSON-RPC responses.
const proofFixtures = "testdata/proofs"

// Accounts of the fixtures (see testdata/proofs/gen/main.go).
var (
	fixtureSender   = common.HexToAddress("0xb2dd65d5927b742ff6795c592dc9bf0ab8319a41")
	fixtureStore    = common.HexToAddress("0x00000000000000000000000000000000c0de0001")
	fixtureFunded   = common.HexToAddress("0x00000000000000000000000000000000f00d0001")
	fixtureMissing  = common.HexToAddress("0x00000000000000000000000000000000dead0001")
	fixtureQueue    = params.WithdrawalQueueAddress
	fixtureAbsentTo = "0x00000000000000000000000000000000000000000000000000000000000abcde"
)

// loadProofFixtures returns the state root of the fixtures and their
// results, parsed from the JSON-RPC responses, by address.
func loadProofFixtures(t testing.TB) (common.Hash, []*gethclient.AccountResult) {
	t.Helper()
	root, raw := readProofFixtures(t)
	results := make([]*gethclient.AccountResult, len(raw))
	for i, r := range raw {
		res, err := ParseAccountResult(r)
		if err != nil {
			t.Fatalf("responses.json[%d]: %v", i, err)
		}
		results[i] = res
	}
	return root, results
}

// readProofFixtures returns the state root of the fixtures and the
// "result" member of each JSON-RPC response, unparsed.
func readProofFixtures(t testing.TB) (common.Hash, []json.RawMessage) {
	t.Helper()
	var block struct {
		StateRoot common.Hash `json:"stateRoot"`
	}
	readJSONFile(t, filepath.Join(proofFixtures, "block.json"), &block)
	var responses []struct {
		Result json.RawMessage `json:"result"`
	}
	readJSONFile(t, filepath.Join(proofFixtures, "responses.json"), &responses)
	results := make([]json.RawMessage, len(responses))
	for i, r := range responses {
		results[i] = r.Result
	}
	return block.StateRoot, results
}

func readJSONFile(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// fixture returns a deep copy of the result for addr, to tamper with.
func fixture(t *testing.T, results []*gethclient.AccountResult, addr common.Address) *gethclient.AccountResult {
	t.Helper()
	for _, r := range results {
		if r.Address == addr {
			c := *r
			c.AccountProof = append([]string(nil), r.AccountProof...)
			c.Balance = new(big.Int).Set(r.Balance)
			c.StorageProof = make([]gethclient.StorageResult, len(r.StorageProof))
			for i, sr := range r.StorageProof {
				c.StorageProof[i] = gethclient.StorageResult{Key: sr.Key, Value: new(big.Int).Set(sr.Value),
					Proof: append([]string(nil), sr.Proof...)}
			}
			return &c
		}
	}
	t.Fatalf("no fixture for %s", addr.Hex())
	return nil
}

// gethProvedValue is what go-ethereum's trie.VerifyProof proves for key.
func gethProvedValue(t *testing.T, root common.Hash, key []byte, hexNodes []string) []byte {
	t.Helper()
	db := memorydb.New()
	for _, s := range hexNodes {
		n := common.FromHex(s)
		if err := db.Put(crypto.Keccak256(n), n); err != nil {
			t.Fatal(err)
		}
	}
	v, err := trie.VerifyProof(root, key, db)
	if err != nil {
		t.Fatalf("go-ethereum rejects the proof of %x: %v", key, err)
	}
	return v
}

func TestVerifyAccountProofFixtures(t *testing.T) {
	root, results := loadProofFixtures(t)
	if len(results) < 10 {
		t.Fatalf("want at least 10 fixtures, got %d", len(results))
	}
	var present, absent, slots, absentSlots int
	for _, res := range results {
		acc, err := VerifyAccountResult(root, res)
		if err != nil {
			t.Fatalf("%s: %v", res.Address.Hex(), err)
		}
		if err := VerifyAccountProof(root, res); err != nil {
			t.Fatalf("%s: %v", res.Address.Hex(), err)
		}
		// The same decision and account as go-ethereum's VerifyProof.
		enc := gethProvedValue(t, root, crypto.Keccak256(res.Address[:]), res.AccountProof)
		if (enc == nil) != (acc == nil) {
			t.Fatalf("%s: go-ethereum proves %x, keccakroot %v", res.Address.Hex(), enc, acc)
		}
		if acc == nil {
			absent++
			continue
		}
		present++
		if want, _ := rlp.EncodeToBytes(acc); string(want) != string(enc) {
			t.Fatalf("%s: go-ethereum proves %x, keccakroot %x", res.Address.Hex(), enc, want)
		}
		for _, sr := range res.StorageProof {
			slots++
			if res.StorageHash == types.EmptyRootHash {
				continue
			}
			key, err := decodeSlotKey(sr.Key)
			if err != nil {
				t.Fatal(err)
			}
			if v := gethProvedValue(t, res.StorageHash, crypto.Keccak256(key[:]), sr.Proof); v == nil {
				absentSlots++
				if sr.Value.Sign() != 0 {
					t.Fatalf("%s slot %s: absent, but the fixture claims %v", res.Address.Hex(), sr.Key, sr.Value)
				}
			}
		}
	}
	// The fixtures hold what the tests below rely on.
	if present < 8 || absent < 2 || slots < 25 || absentSlots < 4 {
		t.Fatalf("fixtures: %d accounts, %d absent, %d slots, %d of them absent", present, absent, slots, absentSlots)
	}
}

func TestVerifyAccountProofTampered(t *testing.T) {
	root, results := loadProofFixtures(t)
	tests := []struct {
		name    string
		addr    common.Address
		root    *common.Hash
		tamper  func(r *gethclient.AccountResult)
		want    error    // nil: the result verifies
		cause   error    // also wrapped, if not nil
		message []string // in the error, besides the address
	}{
		{name: "balance", addr: fixtureSender, tamper: func(r *gethclient.AccountResult) { r.Balance.Add(r.Balance, common.Big1) },
			want: ErrAccountMismatch, message: []string{"balance: the result claims 0x3635c8cda249acc6a1, the proof gives 0x3635c8cda249acc6a0"}},
		{name: "nonce", addr: fixtureSender, tamper: func(r *gethclient.AccountResult) { r.Nonce = 2 },
			want: ErrAccountMismatch, message: []string{"nonce: the result claims 0x2, the proof gives 0x3"}},
		{name: "code hash", addr: fixtureStore, tamper: func(r *gethclient.AccountResult) { r.CodeHash = types.EmptyCodeHash },
			want: ErrAccountMismatch, message: []string{"codeHash: the result claims " + types.EmptyCodeHash.Hex()}},
		{name: "storage hash", addr: fixtureStore, tamper: func(r *gethclient.AccountResult) { r.StorageHash[5] ^= 1 },
			want: ErrAccountMismatch, message: []string{"storageHash"}},
		{name: "account proof node dropped", addr: fixtureSender,
			tamper: func(r *gethclient.AccountResult) { r.AccountProof = r.AccountProof[:len(r.AccountProof)-1] },
			want:   ErrAccountProofInvalid, cause: triehash.ErrProofNodeMissing, message: []string{"against state root"}},
		{name: "account proof root dropped", addr: fixtureSender,
			tamper: func(r *gethclient.AccountResult) { r.AccountProof = r.AccountProof[1:] },
			want:   ErrAccountProofInvalid, cause: triehash.ErrProofNodeMissing},
		{name: "account proof byte changed", addr: fixtureFunded,
			tamper: func(r *gethclient.AccountResult) { r.AccountProof[1] = flipHexByte(r.AccountProof[1], 40) },
			want:   ErrAccountProofInvalid, cause: triehash.ErrProofNodeMissing},
		{name: "another account's proof", addr: fixtureSender,
			tamper: func(r *gethclient.AccountResult) { r.AccountProof = fixture(t, results, fixtureStore).AccountProof },
			want:   ErrAccountProofInvalid, cause: triehash.ErrProofNodeMissing},
		{name: "wrong state root", addr: fixtureStore, root: &common.Hash{1},
			want: ErrAccountProofInvalid, cause: triehash.ErrProofNodeMissing, message: []string{"0x0100000000"}},
		{name: "storage value", addr: fixtureStore, tamper: func(r *gethclient.AccountResult) { r.StorageProof[0].Value.SetInt64(0x2b) },
			want: ErrStorageMismatch, message: []string{"slot 0x0000000000000000000000000000000000000000000000000000000000000001", "value: the result claims 0x2b, the proof gives 0x2a"}},
		{name: "cleared slot claimed", addr: fixtureStore, tamper: func(r *gethclient.AccountResult) { r.StorageProof[1].Value.SetInt64(0xbeef) },
			want: ErrStorageMismatch, message: []string{"slot 0x2", "the result claims 0xbeef, the proof gives none (proven absent)"}},
		{name: "storage proof node dropped", addr: fixtureStore,
			tamper: func(r *gethclient.AccountResult) { r.StorageProof[2].Proof = r.StorageProof[2].Proof[:1] },
			want:   ErrStorageProofInvalid, cause: triehash.ErrProofNodeMissing, message: []string{"slot 0x3", "against storage root"}},
		{name: "storage proof emptied", addr: fixtureStore,
			tamper: func(r *gethclient.AccountResult) { r.StorageProof[4].Proof = nil },
			want:   ErrStorageProofInvalid, cause: triehash.ErrProofNodeMissing, message: []string{"slot " + fixtureAbsentTo}},
		{name: "value claimed in empty storage", addr: fixtureQueue, tamper: func(r *gethclient.AccountResult) { r.StorageProof[3].Value.SetInt64(1) },
			want: ErrStorageMismatch, message: []string{"slot 0x3", "none (proven absent)"}},
		{name: "extra nodes with empty storage", addr: fixtureQueue,
			tamper: func(r *gethclient.AccountResult) { r.StorageProof[0].Proof = []string{"0x80", "0xc0"} }},
		{name: "extra account proof nodes", addr: fixtureStore,
			tamper: func(r *gethclient.AccountResult) { r.AccountProof = append(r.AccountProof, "0xc0", "0x01") }},
		{name: "absent account claims a balance", addr: fixtureMissing, tamper: func(r *gethclient.AccountResult) { r.Balance.SetInt64(1) },
			want: ErrAccountMismatch, message: []string{"balance: the result claims 0x1, the proof gives none (proven absent)"}},
		{name: "absent account claims a nonce", addr: fixtureMissing, tamper: func(r *gethclient.AccountResult) { r.Nonce = 1 },
			want: ErrAccountMismatch, message: []string{"nonce"}},
		{name: "absent account claims code", addr: fixtureMissing, tamper: func(r *gethclient.AccountResult) { r.CodeHash = common.Hash{2} },
			want: ErrAccountMismatch, message: []string{"codeHash"}},
		{name: "absent account claims a slot", addr: fixtureMissing, tamper: func(r *gethclient.AccountResult) { r.StorageProof[0].Value.SetInt64(9) },
			want: ErrStorageMismatch, message: []string{"slot " + fixtureAbsentTo}},
		{name: "absent account as other clients give it", addr: fixtureMissing, tamper: func(r *gethclient.AccountResult) {
			r.StorageHash, r.CodeHash = types.EmptyRootHash, types.EmptyCodeHash
		}},
		{name: "absent account's proof dropped", addr: fixtureMissing, tamper: func(r *gethclient.AccountResult) { r.AccountProof = nil },
			want: ErrAccountProofInvalid, cause: triehash.ErrProofNodeMissing},
		{name: "nil balance", addr: fixtureSender, tamper: func(r *gethclient.AccountResult) { r.Balance = nil },
			want: ErrMalformedProofResult, message: []string{"no balance"}},
		{name: "negative balance", addr: fixtureSender, tamper: func(r *gethclient.AccountResult) { r.Balance.SetInt64(-1) },
			want: ErrMalformedProofResult, message: []string{"negative balance"}},
		{name: "balance over 256 bits", addr: fixtureSender, tamper: func(r *gethclient.AccountResult) { r.Balance.Lsh(common.Big1, 300) },
			want: ErrAccountMismatch, message: []string{"balance"}},
		{name: "bad hex node", addr: fixtureSender, tamper: func(r *gethclient.AccountResult) { r.AccountProof[0] = "0xzz" },
			want: ErrMalformedProofResult, message: []string{"accountProof[0]"}},
		{name: "node without 0x", addr: fixtureSender, tamper: func(r *gethclient.AccountResult) { r.AccountProof[0] = r.AccountProof[0][2:] },
			want: ErrMalformedProofResult, message: []string{"accountProof[0]"}},
		{name: "bad slot key", addr: fixtureStore, tamper: func(r *gethclient.AccountResult) { r.StorageProof[0].Key = "0xnothex" },
			want: ErrMalformedProofResult, message: []string{"storageProof[0].key"}},
		{name: "slot key too long", addr: fixtureStore, tamper: func(r *gethclient.AccountResult) { r.StorageProof[0].Key = "0x" + strings.Repeat("1", 65) },
			want: ErrMalformedProofResult, message: []string{"longer than 32 bytes"}},
		{name: "slot key without 0x", addr: fixtureStore, tamper: func(r *gethclient.AccountResult) { r.StorageProof[1].Key = "2" }},
		{name: "nil slot value", addr: fixtureStore, tamper: func(r *gethclient.AccountResult) { r.StorageProof[1].Value = nil },
			want: ErrMalformedProofResult, message: []string{"storageProof[1] has no value"}},
		{name: "bad storage node hex", addr: fixtureStore, tamper: func(r *gethclient.AccountResult) { r.StorageProof[0].Proof[1] = "0x1" },
			want: ErrMalformedProofResult, message: []string{"storageProof[0].proof[1]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := fixture(t, results, tt.addr)
			if tt.tamper != nil {
				tt.tamper(res)
			}
			r := root
			if tt.root != nil {
				r = *tt.root
			}
			err := VerifyAccountProof(r, res)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("want no error, got %v", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("want %v, got %v", tt.want, err)
			}
			if tt.cause != nil && !errors.Is(err, tt.cause) {
				t.Fatalf("want %v wrapped too, got %v", tt.cause, err)
			}
			var perr *AccountProofError
			if !errors.As(err, &perr) || perr.Address != tt.addr {
				t.Fatalf("want an *AccountProofError for %s, got %#v", tt.addr.Hex(), err)
			}
			for _, sub := range append(tt.message, "account "+tt.addr.Hex()) {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("error lacks %q: %v", sub, err)
				}
			}
		})
	}
}

// flipHexByte changes the i-th byte of a hex-encoded node.
func flipHexByte(s string, i int) string {
	b := common.FromHex(s)
	b[i] ^= 0x01
	return hexutil.Encode(b)
}

func TestVerifyAccountProofEdgeCases(t *testing.T) {
	if err := VerifyAccountProof(common.Hash{}, nil); !errors.Is(err, ErrMalformedProofResult) {
		t.Fatalf("nil result: want ErrMalformedProofResult, got %v", err)
	}
	// In an empty state every account is absent, with or without nodes.
	res := &gethclient.AccountResult{Address: common.Address{1}, Balance: new(big.Int),
		StorageProof: []gethclient.StorageResult{{Key: "0x1", Value: new(big.Int)}}}
	if acc, err := VerifyAccountResult(types.EmptyRootHash, res); acc != nil || err != nil {
		t.Fatalf("empty state: want absent, got %v, %v", acc, err)
	}
	res.Nonce = 1
	if err := VerifyAccountProof(types.EmptyRootHash, res); !errors.Is(err, ErrAccountMismatch) {
		t.Fatalf("empty state, nonce 1: want ErrAccountMismatch, got %v", err)
	}
	// An account stored in the trie is checked field by field, and a
	// stored value that is not an account is no proof of one.
	tr := trie.NewEmpty(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil))
	addr := common.Address{0xaa}
	acc := types.StateAccount{Nonce: 7, Balance: uint256.NewInt(9), Root: types.EmptyRootHash, CodeHash: types.EmptyCodeHash[:]}
	enc, _ := rlp.EncodeToBytes(&acc)
	other := common.Address{0xbb}
	mustUpdate(t, tr, crypto.Keccak256(addr[:]), enc)
	mustUpdate(t, tr, crypto.Keccak256(other[:]), []byte{0x01, 0x02})
	root := tr.Hash()
	prove := func(a common.Address) []string {
		var list proofList
		if err := tr.Prove(crypto.Keccak256(a[:]), &list); err != nil {
			t.Fatal(err)
		}
		return list
	}
	good := &gethclient.AccountResult{Address: addr, AccountProof: prove(addr), Balance: big.NewInt(9), Nonce: 7,
		StorageHash: types.EmptyRootHash, CodeHash: types.EmptyCodeHash}
	if got, err := VerifyAccountResult(root, good); err != nil || got.Nonce != 7 || got.Balance.Uint64() != 9 {
		t.Fatalf("want the account, got %v, %v", got, err)
	}
	bad := &gethclient.AccountResult{Address: other, AccountProof: prove(other), Balance: new(big.Int)}
	if err := VerifyAccountProof(root, bad); !errors.Is(err, ErrAccountProofInvalid) || !strings.Contains(err.Error(), "not an account") {
		t.Fatalf("want ErrAccountProofInvalid for a value that is not an account, got %v", err)
	}
	// A present account whose storage root is the zero hash, which no
	// trie has: its slots are checked against it and refused, as by
	// go-ethereum's VerifyProof; only an absent account proves every slot
	// zero without nodes.
	zeroRoot := types.StateAccount{Nonce: 1, Balance: uint256.NewInt(5), CodeHash: types.EmptyCodeHash[:]}
	enc, _ = rlp.EncodeToBytes(&zeroRoot)
	mustUpdate(t, tr, crypto.Keccak256(other[:]), enc)
	root = tr.Hash()
	claim := &gethclient.AccountResult{Address: other, AccountProof: prove(other), Balance: big.NewInt(5), Nonce: 1,
		CodeHash: types.EmptyCodeHash, StorageProof: []gethclient.StorageResult{{Key: "0x1", Value: new(big.Int)}}}
	if err := VerifyAccountProof(root, claim); !errors.Is(err, ErrStorageProofInvalid) {
		t.Fatalf("a slot claimed zero under a zero storage root: want ErrStorageProofInvalid, got %v", err)
	}
}

func TestParseAccountResult(t *testing.T) {
	full := `{"address":"0x01","balance":"0x0","codeHash":"0x00","nonce":"0x0","storageHash":"0x00","accountProof":[],"storageProof":[]}`
	if _, err := ParseAccountResult([]byte(`{"address":"0x0000000000000000000000000000000000000001","balance":"0x10",
		"codeHash":"0x0000000000000000000000000000000000000000000000000000000000000000","nonce":"0x3",
		"storageHash":"0x0000000000000000000000000000000000000000000000000000000000000000","accountProof":["0x80"],
		"storageProof":[{"key":"0x1","value":"0x0","proof":[]}],"extra":1}`)); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ input, want string }{
		{`null`, "null"},
		{`[]`, "cannot unmarshal array"},
		{`{"balance":"0x0"}`, `no "address" field`},
		{`{"address":"0x0000000000000000000000000000000000000001"}`, `no "balance" field`},
		{`{"address":"0x0000000000000000000000000000000000000001","balance":"0x0"}`, `no "codeHash" field`},
		{`{"address":"0x0000000000000000000000000000000000000001","balance":"0x0","codeHash":"0x0000000000000000000000000000000000000000000000000000000000000000"}`, `no "nonce" field`},
		{`{"address":"0x0000000000000000000000000000000000000001","balance":"0x0","codeHash":"0x0000000000000000000000000000000000000000000000000000000000000000","nonce":"0x0"}`, `no "storageHash" field`},
		{`{"address":"0x0000000000000000000000000000000000000001","balance":"10"}`, `"balance": json: cannot unmarshal hex string without 0x prefix`},
		{`{"address":"0x0000000000000000000000000000000000000001","balance":"0x0","codeHash":"0x0000000000000000000000000000000000000000000000000000000000000000","nonce":1}`, `"nonce": json: cannot unmarshal non-string`},
		{`{"address":"0x0000000000000000000000000000000000000001","balance":"0x0","codeHash":"0x0000000000000000000000000000000000000000000000000000000000000000","nonce":"0x0","storageHash":"0x0000000000000000000000000000000000000000000000000000000000000000","storageProof":[{"value":"0x0"}]}`, `no "storageProof[0].key" field`},
		{`{"address":"0x0000000000000000000000000000000000000001","balance":"0x0","codeHash":"0x0000000000000000000000000000000000000000000000000000000000000000","nonce":"0x0","storageHash":"0x0000000000000000000000000000000000000000000000000000000000000000","storageProof":[{"key":"0x0"}]}`, `no "storageProof[0].value" field`},
		{full, `"address": hex string has length 2`}, // a short address is not an address
		{`{"address":"0x0000000000000000000000000000000000000001","balance":"0x0","codeHash":"0x0000000000000000000000000000000000000000000000000000000000000000","nonce":"0x0","storageHash":"0x0000000000000000000000000000000000000000000000000000000000000000","storageProof":[null]}`, "storageProof[0] is null"},
		{`{"address":"0x0000000000000000000000000000000000000001","balance":"0x0","codeHash":"0x0000000000000000000000000000000000000000000000000000000000000000","nonce":"0x0","storageHash":"0x0000000000000000000000000000000000000000000000000000000000000000","storageProof":[{"key":"0x0","value":"0x0","proof":"0x00"}]}`, `"storageProof[0].proof": json: cannot unmarshal string`},
		{`{"address":"0x0000000000000000000000000000000000000001","balance":"0x0","codeHash":"0x0000000000000000000000000000000000000000000000000000000000000000","nonce":"0x0","storageHash":"0x00"}`, `"storageHash"`},
	}
	for _, tt := range tests {
		_, err := ParseAccountResult([]byte(tt.input))
		if !errors.Is(err, ErrMalformedProofResult) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: want ErrMalformedProofResult with %q, got %v", tt.input, tt.want, err)
		}
	}
}

// proofList collects a proof's nodes as eth_getProof lists them.
type proofList []string

func (l *proofList) Put(_ []byte, value []byte) error {
	*l = append(*l, hexutil.Encode(value))
	return nil
}

func (l *proofList) Delete([]byte) error { return nil }

func mustUpdate(t *testing.T, tr *trie.Trie, k, v []byte) {
	t.Helper()
	if err := tr.Update(k, v); err != nil {
		t.Fatal(err)
	}
}

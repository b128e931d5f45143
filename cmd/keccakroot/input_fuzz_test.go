package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/keccakroot/keccakroot/triehash"
)

// The readers of the command's inputs: genesis JSON (genesis, replay),
// key/value pairs (root) and eth_getProof answers (proof). Each is fuzzed
// for what the command relies on: an error that says where, never a panic,
// and for what they accept, the same result as go-ethereum.

// FuzzDecodeGenesis decodes genesis JSON as the genesis and replay commands
// do. Whatever decodes and passes checkGenesis gets its state root and block
// hash from keccakroot without a panic, and they are go-ethereum's whenever
// its ToBlock builds the block (it panics on some inputs; keccakroot must
// not).
func FuzzDecodeGenesis(f *testing.F) {
	small := &core.Genesis{
		Config:     params.MergedTestChainConfig,
		GasLimit:   30_000_000,
		Difficulty: big.NewInt(0),
		BaseFee:    big.NewInt(params.InitialBaseFee),
		Timestamp:  100,
		ExtraData:  []byte("keccakroot"),
		Alloc: types.GenesisAlloc{
			common.Address{1}: {Balance: big.NewInt(1_000_000)},
			common.Address{2}: {Balance: big.NewInt(0), Nonce: 7, Code: []byte{0x60, 0x00, 0x60, 0x00, 0xf3},
				Storage: map[common.Hash]common.Hash{{1}: {2}, {3}: {}}},
		},
	}
	legacy := *small
	legacy.Config, legacy.BaseFee, legacy.Difficulty = params.TestChainConfig, nil, big.NewInt(1)
	for _, g := range []*core.Genesis{small, &legacy} {
		data, err := json.Marshal(g)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, bad := range []string{
		"{\n  \"config\": {\"chainId\": 1},\n  \"alloc\": {,}\n}",
		`{"gasLimit": "0x1000", "difficulty": "0x1", "alloc": {}}`,
		`{"config": {"chainId": 1}, "gasLimit": "0x1", "difficulty": "0x1", "alloc": {"0x0000000000000000000000000000000000000001": {"balance": "zz"}}}`,
		`{"config": {"chainId": 1}, "alloc": {"0x01": {"balance": "0x1", "storage": {"0x01": "0x"}}}}`,
		`[1, 2]`,
	} {
		f.Add([]byte(bad))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := decodeGenesis(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: an empty error", data)
			}
			return
		}
		if checkGenesis(g) != nil || g.Config.IsUBTGenesis() {
			return
		}
		root, hash, err := keccakrootGenesis(g)
		if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		wantRoot, wantHash, err := gethGenesis(g)
		if err != nil {
			return // go-ethereum's ToBlock panicked
		}
		if root != wantRoot || hash != wantHash {
			t.Fatalf("%q: state root %x, block hash %x; go-ethereum %x, %x", data, root, hash, wantRoot, wantHash)
		}
	})
}

// FuzzParsePairs reads key/value pairs as the root command does: an error
// names its line, every pair read says where it came from, the pairs come
// back the same from hex lines written out of them, and those a trie can
// hold give go-ethereum's root, with and without hashed keys.
func FuzzParsePairs(f *testing.F) {
	for _, seed := range []string{
		"0x01 0xaa\n0x02 0xbb\n",
		"# a comment\n\n01,02\n0x0102=0x03\n\t0X04\t0x05 \n",
		`{"0x646f": "0x7665726200", "0x646f67": "0x707570707900"}`,
		`[["0x01", "0x02"], {"key": "0x03", "value": "0x04"}]`,
		"\ufeff[]",
		"{}",
		"",
		`{"0x01": 5}`,
		`[["0x01"]]`,
		"0x1 0x02",
		"0x01 0x02 0x03",
		`[["0x01", "0x02"]] x`,
		"0x 0x01\n0x00 0x02\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pairs, format, err := parsePairs(data)
		if err != nil {
			if !strings.Contains(err.Error(), "line ") {
				t.Fatalf("%q (%s): error %q names no line", data, format, err)
			}
			return
		}
		var lines bytes.Buffer
		for _, p := range pairs {
			if !strings.HasPrefix(p.where, "line ") {
				t.Fatalf("%q: pair %x read at %q", data, p.key, p.where)
			}
			fmt.Fprintf(&lines, "0x%x 0x%x\n", p.key, p.value)
		}
		again, _, err := parsePairs(lines.Bytes())
		if err != nil || len(again) != len(pairs) {
			t.Fatalf("%q: the pairs written out as hex lines read back as %d pairs, %v; want %d", data, len(again), err, len(pairs))
		}
		for i := range pairs {
			if !bytes.Equal(again[i].key, pairs[i].key) || !bytes.Equal(again[i].value, pairs[i].value) {
				t.Fatalf("%q: pair %d read back as %x %x, want %x %x", data, i, again[i].key, again[i].value, pairs[i].key, pairs[i].value)
			}
		}
		for _, secure := range []bool{false, true} {
			if checkPairs(pairs, secure) != nil {
				continue
			}
			keys, values := make([][]byte, len(pairs)), make([][]byte, len(pairs))
			for i, p := range pairs {
				keys[i], values[i] = p.key, p.value
			}
			var got [32]byte
			if secure {
				got, err = triehash.SecureRoot(keys, values)
			} else {
				got, err = triehash.Root(keys, values)
			}
			want, gerr := gethRoot(keys, values, secure)
			if err != nil || gerr != nil || got != want {
				t.Fatalf("%q (secure %v): root %x, %v; go-ethereum %x, %v", data, secure, got, err, want, gerr)
			}
		}
	})
}

// FuzzParseProofAnswers reads eth_getProof answers as the proof command
// does and checks each against the fixtures' state root: an input is either
// refused with an error or read as one answer at least, each saying where
// it begins, and each answer's check ends in a status, with an error exactly
// when the status is neither proven nor absent.
func FuzzParseProofAnswers(f *testing.F) {
	stateRoot := loadProofFixture(f).root
	responses, err := os.ReadFile(filepath.Join(proofFixtures, "responses.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(responses)
	var each []json.RawMessage
	if err := json.Unmarshal(responses, &each); err != nil {
		f.Fatal(err)
	}
	for _, r := range each[:3] {
		f.Add([]byte(r))
		var rpc struct{ Result json.RawMessage }
		if err := json.Unmarshal(r, &rpc); err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(rpc.Result))
	}
	for _, seed := range []string{"[]", "", "  7", `{"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "missing trie node"}}`, `{"jsonrpc": "2.0", "result": null}`, `[{}]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		answers, err := parseProofAnswers(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: an empty error", data)
			}
			return
		}
		if len(answers) == 0 {
			t.Fatalf("%q: no answers and no error", data)
		}
		for _, a := range answers {
			if a.res == nil || !strings.HasPrefix(a.where, "line ") {
				t.Fatalf("%q: answer %+v", data, a)
			}
			out := checkAccountProof(stateRoot, a)
			settled := out.Status == proofOK || out.Status == proofAbsent
			if settled == (out.Error != "") {
				t.Fatalf("%q: status %v with error %q", data, out.Status, out.Error)
			}
		}
	})
}

package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGenesisNothingChecked: with --geth=false a genesis file has nothing to
// be checked against, and the command says so instead of "all checks
// passed".
func TestGenesisNothingChecked(t *testing.T) {
	g := randomGenesis(rand.New(rand.NewPCG(2, 2)), 20)
	path := writeFile(t, t.TempDir(), "devnet.json", marshalGenesis(t, g))
	r := keccakroot(t, nil, "genesis", "--runs", "1", "--geth=false", path)
	wantCode(t, r, exitOK)
	wantOutput(t, r.stdout, "nothing was checked", "--geth=false")
	if strings.Contains(r.stdout, "all checks passed") || strings.Contains(r.stdout, "speed-up") {
		t.Fatalf("want no claim of a check or a speed-up:\n%v", r)
	}
	r = keccakroot(t, nil, "genesis", "--runs", "1", path)
	wantCode(t, r, exitOK)
	wantOutput(t, r.stdout, "all checks passed (2 checks)")
}

// TestGenesisTrailingData: what follows the genesis object in its file is
// ignored, as geth init ignores it (it decodes one JSON value).
func TestGenesisTrailingData(t *testing.T) {
	g := randomGenesis(rand.New(rand.NewPCG(3, 3)), 5)
	path := writeFile(t, t.TempDir(), "devnet.json", append(marshalGenesis(t, g), "\nnot JSON"...))
	wantCode(t, keccakroot(t, nil, "genesis", "--runs", "1", path), exitOK)
}

// TestGenesisBinaryTrie: a genesis with enableUBTAtGenesis is computed by
// go-ethereum alone; the command says so and prints no speed-up.
func TestGenesisBinaryTrie(t *testing.T) {
	g := randomGenesis(rand.New(rand.NewPCG(3, 3)), 20)
	g.Config.EnableUBTAtGenesis = true
	block := g.ToBlock()
	path := writeFile(t, t.TempDir(), "ubt.json", marshalGenesis(t, g))
	r := keccakroot(t, nil, "genesis", "--runs", "2", path)
	wantCode(t, r, exitOK)
	wantOutput(t, r.stdout, "block hash  "+block.Hash().Hex(), "binary-trie (UBT) genesis: computed by go-ethereum", "nothing was checked")
	if strings.Contains(r.stdout, "speed-up") || strings.Contains(r.stdout, "keccakroot   ") {
		t.Fatalf("want no keccakroot time and no speed-up:\n%v", r)
	}
	r = keccakroot(t, nil, "genesis", "--json", "--runs", "1", path)
	wantCode(t, r, exitOK)
	var res genesisResult
	decodeJSON(t, r, &res)
	if !res.OK || res.BlockHash != block.Hash() || res.Speedup != 0 || res.KeccakRoot != nil || res.GoEthereum == nil || res.Note == "" {
		t.Fatalf("want go-ethereum's hash %s, its time alone and a note:\n%v", block.Hash().Hex(), r)
	}
}

// TestGenesisBadAccountValue: a bad hex value inside an account is reported
// at its own line, with the account's address, not at "line 1, column 1".
func TestGenesisBadAccountValue(t *testing.T) {
	const good = "0x1000000000000000000000000000000000000001"
	const bad = "0x2000000000000000000000000000000000000002"
	template := `{
  "config": {"chainId": 1337},
  "difficulty": "0x1",
  "gasLimit": "0x1000000",
  "alloc": {
    "` + good + `": {"balance": "0x10"},
    "%s": {
      "balance": "%s",
      "nonce": "0x1",
      "code": "%s",
      "storage": {
        "0x01": "0x02",
        "%s": "%s"
      }
    }
  }
}`
	tests := []struct {
		name                             string
		addr, balance, code, slot, value string
		line                             int
		want                             string
	}{
		{"balance", bad, "0x1g", "0x6000", "0x02", "0x03", 8, "balance"},
		{"code", bad, "0x10", "0x600", "0x02", "0x03", 10, "code"},
		{"storage value", bad, "0x10", "0x6000", "0x02", "0xzz", 13, "storage[0x02]"},
		{"storage key", bad, "0x10", "0x6000", "0xkk", "0x03", 13, "storage[0xkk]"},
		{"address", "0x20000000000000000000000000000000000000zz", "0x10", "0x6000", "0x02", "0x03", 7, "the address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := fmt.Sprintf(template, tt.addr, tt.balance, tt.code, tt.slot, tt.value)
			path := writeFile(t, t.TempDir(), "bad.json", []byte(data))
			r := keccakroot(t, nil, "genesis", path)
			wantCode(t, r, exitUsage)
			wantOutput(t, r.stderr, fmt.Sprintf("bad.json: line %d, column ", tt.line), "alloc account "+tt.addr, tt.want)
		})
	}
}

// TestGenesisBadMember: a bad value among the genesis's own members is
// reported at its line with the member's name, where go-ethereum's decoder
// gives "line 1, column 1" or no place at all.
func TestGenesisBadMember(t *testing.T) {
	template := `{
  "config": {"chainId": 1337, "cancunTime": %s},
  "difficulty": "0x1",
  "gasLimit": "%s",
  "nonce": "%s",
  "extraData": "%s",
  "alloc": {}
}`
	tests := []struct {
		name                                   string
		cancun, gasLimit, nonce, extra, member string
		line                                   int
	}{
		{"extraData", "0", "0x1000000", "0x0", "0xzz", `"extraData"`, 6},
		{"nonce", "0", "0x1000000", "0x10000000000000000", "0x", `"nonce"`, 5},
		{"gasLimit", "0", "lots", "0x0", "0x", `"gasLimit"`, 4},
		{"config", `"abc"`, "0x1000000", "0x0", "0x", `"config"`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := fmt.Sprintf(template, tt.cancun, tt.gasLimit, tt.nonce, tt.extra)
			path := writeFile(t, t.TempDir(), "bad.json", []byte(data))
			r := keccakroot(t, nil, "genesis", path)
			wantCode(t, r, exitUsage)
			wantOutput(t, r.stderr, fmt.Sprintf("bad.json: line %d, column ", tt.line), tt.member)
		})
	}
}

package main

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/params"
)

func TestDefault(t *testing.T) {
	// The main job as a new user first runs it: no arguments.
	r := keccakroot(t, nil)
	wantCode(t, r, exitOK)
	wantOutput(t, r.stdout,
		"mainnet genesis",
		"8,893 accounts",
		"state root  "+mainnetStateRoot.Hex(),
		"block hash  "+params.MainnetGenesisHash.Hex(),
		"the known mainnet state root",
		"params.MainnetGenesisHash",
		"go-ethereum's genesis.ToBlock().Hash()",
		"fastest of 3 runs each, taking turns",
		"keccakroot ", "go-ethereum ", "speed-up",
		"all checks passed")
	if strings.Contains(r.stdout, "MISMATCH") {
		t.Fatalf("a check failed:\n%v", r)
	}

	r = keccakroot(t, nil, "--json", "--runs", "1")
	wantCode(t, r, exitOK)
	var res genesisResult
	decodeJSON(t, r, &res)
	switch {
	case !res.OK || res.Network != "mainnet" || res.Accounts != 8893 || res.Runs != 1:
		t.Fatalf("want mainnet, ok:\n%v", r)
	case res.StateRoot != mainnetStateRoot || res.BlockHash != params.MainnetGenesisHash:
		t.Fatalf("want the mainnet state root and hash:\n%v", r)
	case len(res.Checks) != 4 || res.GoEthereum == nil || res.KeccakRoot.Seconds <= 0 || res.GoEthereum.Seconds <= 0:
		t.Fatalf("want 4 checks and both timings:\n%v", r)
	}
	for _, ch := range res.Checks {
		if !ch.OK || ch.Want != ch.Got {
			t.Errorf("check %+v failed", ch)
		}
	}
}

func TestGenesisFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	g := randomGenesis(rng, 300)
	path := writeFile(t, t.TempDir(), "devnet.json", marshalGenesis(t, g))

	// go-ethereum's values, from the file as go-ethereum reads it.
	var back core.Genesis
	if err := json.Unmarshal(marshalGenesis(t, g), &back); err != nil {
		t.Fatal(err)
	}
	block := back.ToBlock()

	r := keccakroot(t, nil, "genesis", "--runs", "1", path)
	wantCode(t, r, exitOK)
	wantOutput(t, r.stdout, "devnet.json: 300 accounts", "state root  "+block.Root().Hex(),
		"block hash  "+block.Hash().Hex(), "all checks passed")

	for _, workers := range []string{"1", "0", "3"} {
		r = keccakroot(t, nil, "genesis", "--json", "--runs", "1", "--workers", workers, path)
		wantCode(t, r, exitOK)
		var res genesisResult
		decodeJSON(t, r, &res)
		if !res.OK || res.StateRoot != block.Root() || res.BlockHash != block.Hash() || len(res.Checks) != 2 || res.File != path {
			t.Fatalf("--workers %s: want go-ethereum's root %s and hash %s:\n%v", workers, block.Root().Hex(), block.Hash().Hex(), r)
		}
	}

	// Without go-ethereum: keccakroot alone, no checks.
	r = keccakroot(t, nil, "genesis", "--json", "--geth=false", path)
	wantCode(t, r, exitOK)
	var res genesisResult
	decodeJSON(t, r, &res)
	if res.GoEthereum != nil || len(res.Checks) != 0 || res.BlockHash != block.Hash() {
		t.Fatalf("want keccakroot's hash alone:\n%v", r)
	}
}

func TestGenesisNetworks(t *testing.T) {
	for _, n := range networks {
		r := keccakroot(t, nil, "genesis", "--json", "--runs", "1", "--network", n.name)
		wantCode(t, r, exitOK)
		var res genesisResult
		decodeJSON(t, r, &res)
		if !res.OK || res.BlockHash != n.blockHash {
			t.Fatalf("%s: want block hash %s:\n%v", n.name, n.blockHash.Hex(), r)
		}
	}
}

func TestGenesisBadInput(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, data string
		want       []string
	}{
		{"syntax.json", "{\n  \"config\": {\"chainId\": 1},\n  \"alloc\": {,}\n}", []string{"syntax.json", "line 3, column", "invalid genesis JSON"}},
		{"noconfig.json", `{"gasLimit": "0x1000", "difficulty": "0x1", "alloc": {}}`, []string{`no "config" object`}},
		{"balance.json", `{"config": {"chainId": 1}, "gasLimit": "0x1", "difficulty": "0x1", "alloc": {"0x0000000000000000000000000000000000000001": {"balance": "zz"}}}`, []string{"invalid"}},
		{"list.json", `[1, 2]`, []string{"invalid genesis JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, dir, tt.name, []byte(tt.data))
			r := keccakroot(t, nil, "genesis", path)
			wantCode(t, r, exitUsage)
			wantOutput(t, r.stderr, tt.want...)
			r = keccakroot(t, nil, "genesis", "--json", path)
			wantCode(t, r, exitUsage)
			var res errorResult
			decodeJSON(t, r, &res)
			if res.OK || res.ExitCode != exitUsage || !strings.Contains(res.Error, tt.want[0]) {
				t.Fatalf("want an error result:\n%v", r)
			}
		})
	}
	r := keccakroot(t, nil, "genesis", dir+"/missing.json")
	wantCode(t, r, exitUsage)
	wantOutput(t, r.stderr, "missing.json", "no such file")
	r = keccakroot(t, nil, "genesis", "--network", "goerli")
	wantCode(t, r, exitUsage)
	wantOutput(t, r.stderr, `unknown network "goerli"`, "mainnet, sepolia, hoodi")
}

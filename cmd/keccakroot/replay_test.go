package main

import (
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// writeGenesis writes g as a genesis JSON file in dir.
func writeGenesis(t *testing.T, dir, name string, g *core.Genesis) string {
	t.Helper()
	// A genesis file needs every account's balance, zero included, and
	// the difficulty that ToBlock defaults to.
	withBalances := *g
	if withBalances.Difficulty == nil {
		withBalances.Difficulty = g.ToBlock().Difficulty()
	}
	withBalances.Alloc = types.GenesisAlloc{}
	for addr, acc := range g.Alloc {
		if acc.Balance == nil {
			acc.Balance = new(big.Int)
		}
		withBalances.Alloc[addr] = acc
	}
	data, err := json.Marshal(&withBalances)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name, data)
}

// TestReplay replays the generated proof-of-work chain (uncles, three
// transaction types) on keccakroot's and go-ethereum's state databases,
// and the Amsterdam chain (block access lists, go-ethereum's parallel
// execution) from its export, gzip on standard input, into a pebble
// store: every block executed and validated, the head's state root
// reached.
func TestReplay(t *testing.T) {
	chain := mustChain(t)
	dir := t.TempDir()
	genesis := writeGenesis(t, dir, "genesis.json", chain.genesis)
	path := writeFile(t, dir, "chain.rlp", chain.export)
	head := chain.blocks[len(chain.blocks)-1]

	r := keccakroot(t, nil, "replay", "--json", "--geth", "--genesis", genesis, path)
	wantCode(t, r, exitOK)
	var res replayResult
	decodeJSON(t, r, &res)
	switch {
	case !res.OK || res.Blocks != chainBlocks || *res.FirstBlock != 1 || *res.LastBlock != chainBlocks:
		t.Fatalf("want blocks 1 to %d replayed:\n%v", chainBlocks, r)
	case *res.LastHash != head.Hash() || *res.StateRoot != head.Root() || res.Genesis != chain.blocks[0].Hash():
		t.Fatalf("want head %x with state root %x:\n%v", head.Hash(), head.Root(), r)
	case res.Geth == nil || res.Keccakroot.StateHash <= 0 || res.Geth.StateHash <= 0 || res.Keccakroot.Execution <= 0:
		t.Fatalf("want both sides timed:\n%v", r)
	}

	ams, err := generateAmsterdamChain()
	if err != nil {
		t.Fatal(err)
	}
	amsGenesis := writeGenesis(t, dir, "amsterdam.json", ams.genesis)
	r = keccakroot(t, gzipBytes(t, ams.export), "replay", "--geth", "--datadir", filepath.Join(dir, "state"), "--node-cache", "1", "--genesis", amsGenesis, "-")
	wantCode(t, r, exitOK)
	wantOutput(t, r.stdout, fmt.Sprintf("%d blocks executed and validated", amsterdamBlocks), "keccakroot", "go-ethereum",
		ams.blocks[len(ams.blocks)-1].Root().Hex(), "state hash + commit")
}

// TestReplayFailures checks the replay's refusals: a block whose header
// has another state root than its execution gives (exit 1, the block named
// with both roots), a chain of another genesis (exit 1), a truncated file
// and bad usage (exit 2).
func TestReplayFailures(t *testing.T) {
	chain := mustChain(t)
	dir := t.TempDir()
	genesis := writeGenesis(t, dir, "genesis.json", chain.genesis)

	// The last block with another state root in its header.
	last := chain.blocks[len(chain.blocks)-1]
	header := last.Header()
	header.Root = common.Hash{0xba, 0xd}
	forged := types.NewBlockWithHeader(header).WithBody(*last.Body())
	enc, err := rlp.EncodeToBytes(forged)
	if err != nil {
		t.Fatal(err)
	}
	export := append(chain.export[:chain.offsets[len(chain.offsets)-1]:chain.offsets[len(chain.offsets)-1]], enc...)
	path := writeFile(t, dir, "forged.rlp", export)
	r := keccakroot(t, nil, "replay", "--json", "--geth", "--genesis", genesis, path)
	wantCode(t, r, exitMismatch)
	var res replayResult
	decodeJSON(t, r, &res)
	bad := res.BadBlock
	switch {
	case res.OK || bad == nil || bad.Number != chainBlocks || bad.Position != len(chain.blocks) || bad.Hash != forged.Hash():
		t.Fatalf("want block %d named:\n%v", chainBlocks, r)
	case bad.Side != "chain":
		t.Fatalf("want the block refused by both sides, side \"chain\":\n%v", r)
	case bad.Header == nil || *bad.Header != header.Root || bad.Roots["keccakroot"] != last.Root() || bad.Roots["go-ethereum"] != last.Root():
		t.Fatalf("want the header's root and both computed roots:\n%v", r)
	case res.Blocks != chainBlocks-1:
		t.Fatalf("want %d blocks replayed before the failure:\n%v", chainBlocks-1, r)
	}
	r = keccakroot(t, nil, "replay", "--genesis", genesis, path)
	wantCode(t, r, exitMismatch)
	wantOutput(t, r.stdout, "FAILED: block", "invalid merkle root", "state root in the header", last.Root().Hex())

	// Another genesis.
	good := writeFile(t, dir, "chain.rlp", chain.export)
	r = keccakroot(t, nil, "replay", "--network", "mainnet", good)
	wantCode(t, r, exitMismatch)
	wantOutput(t, r.stderr, "is not the genesis given")
	r = keccakroot(t, nil, "replay", "--json", "--network", "mainnet", good)
	res = replayResult{}
	decodeJSON(t, r, &res)
	if bad := res.BadBlock; bad == nil || bad.Position != 1 || bad.Hash != chain.blocks[0].Hash() || bad.Side != "chain" {
		t.Fatalf("want the file's genesis block named as the bad block:\n%v", r)
	}

	// Input that cannot be read, and bad usage.
	truncated := writeFile(t, dir, "truncated.rlp", chain.export[:chain.offsets[3]+10])
	for _, args := range [][]string{
		{"replay", "--genesis", genesis, truncated},
		{"replay", good},
		{"replay", "--genesis", genesis, "--network", "mainnet", good},
		{"replay", "--network", "nonet", good},
		{"replay", "--genesis", genesis, "--datadir", dir, good},
		{"replay", "--genesis", genesis, "--node-cache", "-1", good},
		{"replay", "--genesis", filepath.Join(dir, "missing.json"), good},
	} {
		r := keccakroot(t, nil, args...)
		wantCode(t, r, exitUsage)
	}
}

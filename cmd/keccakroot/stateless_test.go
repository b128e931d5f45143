package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/stateless"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/rlp"
)

// amsterdamWitness executes the Amsterdam chain up to block n on
// go-ethereum's own state database and returns block n's witness, made by
// go-ethereum's StateDB with witness collection.
func amsterdamWitness(t *testing.T, ams *amsterdamChain, n int) *stateless.Witness {
	t.Helper()
	r, err := newReplayer(ams.genesis, false, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	for _, block := range ams.blocks[1:n] {
		if err := r.execute(block); err != nil {
			t.Fatal(err)
		}
	}
	block := ams.blocks[n]
	parent := r.head
	w, err := stateless.NewWitness(block.Header(), r, false)
	if err != nil {
		t.Fatal(err)
	}
	statedb, err := state.New(parent.Root, state.NewMPTDatabase(r.sides[0].tdb, state.NewCodeDB(r.sides[0].disk)))
	if err != nil {
		t.Fatal(err)
	}
	statedb.StartPrefetcher("witness", w)
	defer statedb.StopPrefetcher()
	res, err := core.NewStateProcessor(r).Process(context.Background(), block, statedb, nil, nil, vm.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := core.NewBlockValidator(r.config, nil).ValidateState(block, statedb, res, false); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestStateless verifies an Amsterdam block from its witness, in both wire
// forms, by execution and from its access list, beside go-ethereum; a
// witness without one of its nodes fails; unreadable input is exit 2.
func TestStateless(t *testing.T) {
	ams, err := generateAmsterdamChain()
	if err != nil {
		t.Fatal(err)
	}
	n := len(ams.blocks) - 3
	block := ams.blocks[n]
	w := amsterdamWitness(t, ams, n)
	dir := t.TempDir()
	genesis := writeGenesis(t, dir, "genesis.json", ams.genesis)
	enc, err := rlp.EncodeToBytes(w)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": w.ToExtWitness()})
	if err != nil {
		t.Fatal(err)
	}
	witnessRLP := writeFile(t, dir, "witness.rlp", enc)
	blockFile := writeFile(t, dir, "block.rlp", ams.export[ams.offsets[n]:ams.offsets[n+1]])
	blockHex := writeFile(t, dir, "block.hex", []byte(fmt.Sprintf("0x%x\n", ams.export[ams.offsets[n]:ams.offsets[n+1]])))

	r := keccakroot(t, nil, "stateless", "--json", "--genesis", genesis, "--witness", witnessRLP, blockFile)
	wantCode(t, r, exitOK)
	var res statelessResult
	decodeJSON(t, r, &res)
	switch {
	case !res.OK || res.StateRoot != block.Root() || res.ReceiptRoot == nil || *res.ReceiptRoot != block.ReceiptHash():
		t.Fatalf("want the header's roots:\n%v", r)
	case res.Geth == nil || res.Geth.StateRoot != block.Root() || res.Geth.Error != "":
		t.Fatalf("want go-ethereum's roots beside:\n%v", r)
	}
	r = keccakroot(t, js, "stateless", "--genesis", genesis, "--witness", "-", blockHex)
	wantCode(t, r, exitOK)
	wantOutput(t, r.stdout, "executed from its witness", block.Root().Hex(), "go-ethereum", "ok")

	r = keccakroot(t, nil, "stateless", "--json", "--access-list", "--genesis", genesis, "--witness", witnessRLP, blockFile)
	wantCode(t, r, exitOK)
	res = statelessResult{}
	decodeJSON(t, r, &res)
	if !res.OK || res.Mode != "access-list" || res.StateRoot != block.Root() || res.Geth == nil || res.Geth.StateRoot != block.Root() {
		t.Fatalf("want the header's root from the access list:\n%v", r)
	}

	// A node missing.
	nodes := slices.Sorted(maps.Keys(w.State))
	delete(w.State, nodes[len(nodes)/2])
	spoilt, err := rlp.EncodeToBytes(w)
	if err != nil {
		t.Fatal(err)
	}
	spoiltFile := writeFile(t, dir, "spoilt.rlp", spoilt)
	r = keccakroot(t, nil, "stateless", "--genesis", genesis, "--witness", spoiltFile, blockFile)
	wantCode(t, r, exitMismatch)
	wantOutput(t, r.stderr, "execution witness")
	// The same failure as JSON: not ok, the error said, the exit code kept.
	r = keccakroot(t, nil, "stateless", "--json", "--genesis", genesis, "--witness", spoiltFile, blockFile)
	wantCode(t, r, exitMismatch)
	res = statelessResult{}
	decodeJSON(t, r, &res)
	if res.OK || !strings.Contains(res.Error, "execution witness") || res.Block != block.NumberU64() {
		t.Fatalf("want a failed result naming the witness:\n%v", r)
	}
	// A built-in network's config in place of the genesis: mainnet's forks
	// at this block's number and time are not the chain's, so the block
	// does not verify (its header fails the checks), a mismatch and not a
	// usage error; an unknown network is a usage error.
	r = keccakroot(t, nil, "stateless", "--network", "mainnet", "--witness", witnessRLP, blockFile)
	wantCode(t, r, exitMismatch)
	wantOutput(t, r.stderr, "invalid header")

	for _, args := range [][]string{
		{"stateless", "--genesis", genesis, blockFile},
		{"stateless", "--network", "no-such-network", "--witness", witnessRLP, blockFile},
		{"stateless", "--witness", witnessRLP, blockFile},
		{"stateless", "--genesis", genesis, "--witness", writeFile(t, dir, "junk", []byte("junk")), blockFile},
		{"stateless", "--genesis", genesis, "--witness", witnessRLP, writeFile(t, dir, "junk.rlp", common.FromHex("c0"))},
		{"stateless", "--genesis", genesis, "--witness", filepath.Join(dir, "missing"), blockFile},
		{"stateless", "--access-list", "--genesis", genesis, "--witness", witnessRLP, writeFile(t, dir, "old.rlp", mustRLP(t, ams.blocks[n].WithAccessListUnsafe(nil)))},
	} {
		r := keccakroot(t, nil, args...)
		wantCode(t, r, exitUsage)
	}
}

func mustRLP(t *testing.T, v any) []byte {
	t.Helper()
	enc, err := rlp.EncodeToBytes(v)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

package adapter

import (
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/tests"
)

// blockchainFixture is the part of an ethereum/tests blockchain test that
// executing its blocks needs.
type blockchainFixture struct {
	Network    string             `json:"network"`
	GenesisRLP hexutil.Bytes      `json:"genesisRLP"`
	Pre        types.GenesisAlloc `json:"pre"`
	Blocks     []struct {
		RLP             string `json:"rlp"`
		ExpectException string `json:"expectException"`
	} `json:"blocks"`
	LastBlockHash common.Hash `json:"lastblockhash"`
}

// fixtureDir holds the ethereum/tests blockchain fixtures (MIT, see the
// LICENSE beside them).
const fixtureDir = "testdata/ethereum-tests/BlockchainTests"

// TestFixturesLockstep executes every valid block of the shipped
// ethereum/tests blockchain fixtures in lockstep on go-ethereum's state
// database and on NewStateDatabase's (see lockstep), path scheme, and
// hash scheme with witnesses (with -short, one of the two a fixture, in
// turn): each block reaches its header's state root on both with the same
// node set, and the last block is the fixture's.
// Blocks the fixture expects to fail are executed too, for the same
// decision on both sides, and then left out of the chain; a block whose parent is not executed (the side chains some
// fixtures hold past such a block) is left out too.
func TestFixturesLockstep(t *testing.T) {
	var files []string
	err := filepath.WalkDir(fixtureDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 70 {
		t.Fatalf("%d fixture files, want the 70 shipped", len(files))
	}
	var executed, tests int
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var fixtures map[string]blockchainFixture
		if err := json.Unmarshal(raw, &fixtures); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, name := range slices.Sorted(maps.Keys(fixtures)) {
			modes := []lockstepMode{{scheme: 1}, {scheme: 0, witness: true}}
			if testing.Short() {
				// One mode a fixture, taking turns: every block still
				// runs in lockstep, in the legs that run with -short
				// (under -race, half of this test's time).
				modes = modes[tests%2 : tests%2+1]
			}
			for _, mode := range modes {
				executed += runFixture(t, file+"/"+name, fixtures[name], mode)
			}
			tests++
		}
	}
	if executed == 0 {
		t.Fatal("no block executed")
	}
	t.Logf("%d fixtures, %d block executions in lockstep", tests, executed)
}

// runFixture executes the valid blocks of f and returns their number.
func runFixture(t *testing.T, name string, f blockchainFixture, mode lockstepMode) int {
	config, ok := tests.Forks[f.Network]
	if !ok {
		t.Fatalf("%s: unknown network %q", name, f.Network)
	}
	var genesisBlock types.Block
	if err := rlp.DecodeBytes(f.GenesisRLP, &genesisBlock); err != nil {
		t.Fatalf("%s: genesis: %v", name, err)
	}
	h := genesisBlock.Header()
	genesis := &core.Genesis{
		Config: config, Nonce: h.Nonce.Uint64(), Timestamp: h.Time, ParentHash: h.ParentHash, ExtraData: h.Extra,
		GasLimit: h.GasLimit, GasUsed: h.GasUsed, Difficulty: h.Difficulty, Mixhash: h.MixDigest, Coinbase: h.Coinbase,
		Alloc: f.Pre, BaseFee: h.BaseFee, BlobGasUsed: h.BlobGasUsed, ExcessBlobGas: h.ExcessBlobGas,
	}
	if got := genesis.ToBlock().Hash(); got != genesisBlock.Hash() {
		t.Fatalf("%s: genesis hash %x, fixture %x", name, got, genesisBlock.Hash())
	}
	l := newLockstep(t, genesis, beacon.New(ethash.NewFaker()), mode)
	executed := 0
	last := genesisBlock.Hash()
	for i, b := range f.Blocks {
		var block types.Block
		if err := rlp.DecodeBytes(common.FromHex(b.RLP), &block); err != nil {
			if b.ExpectException != "" {
				continue
			}
			t.Fatalf("%s: block %d of the fixture, expected valid: %v", name, i, err)
		}
		if l.headers[block.ParentHash()] == nil {
			continue
		}
		if b.ExpectException != "" {
			// Executed for the same decision on both sides (execute
			// checks it); one the state accepts is invalid for reasons
			// of the header or body that a lockstep does not check.
			head := l.head
			_ = l.execute(&block)
			delete(l.headers, block.Hash())
			l.head = head
			continue
		}
		if err := l.execute(&block); err != nil {
			t.Fatalf("%s %v: block %d, expected valid: %v", name, mode, block.NumberU64(), err)
		}
		executed++
		if block.NumberU64() >= l.headers[last].Number.Uint64() {
			last = block.Hash()
		}
	}
	if last != f.LastBlockHash && executed > 0 {
		t.Fatalf("%s: the last block executed is %x, the fixture's %x", name, last, f.LastBlockHash)
	}
	return executed
}

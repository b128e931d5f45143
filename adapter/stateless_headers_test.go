package adapter

import (
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/stateless"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// blockHashReader is a contract that stores BLOCKHASH(NUMBER-3) in slot
// NUMBER: a block that calls it reads the hash of its parent's
// grandparent, which the EVM finds by walking the headers back from the
// parent, so its witness holds several headers that must link.
var (
	blockHashReader = common.Address{0xb1}
	blockHashCode   = []byte{
		0x60, 0x03, // PUSH1 3
		0x43, // NUMBER
		0x03, // SUB
		0x40, // BLOCKHASH
		0x43, // NUMBER
		0x55, // SSTORE
		0x00, // STOP
	}
)

// TestExecuteStatelessHeaderChain verifies blocks that read BLOCKHASH from
// witnesses whose headers are spoiled. The grandparent's header dropped or
// altered (so that it no longer links to the parent): go-ethereum's
// ExecuteStateless, given a header chain that does not reach the block
// BLOCKHASH names, executes with a zero hash and returns a root the header
// does not have; keccakroot's refuses the witness with an error that names
// the header. A header the walk does not need dropped (the oldest, whose
// hash the grandparent holds), or an unrelated one added: accepted by both.
func TestExecuteStatelessHeaderChain(t *testing.T) {
	config := *params.MergedTestChainConfig
	genesis := chainGenesis(&config)
	genesis.Alloc[blockHashReader] = types.Account{Code: blockHashCode, Balance: new(big.Int)}
	blocks := blockHashChain(t, genesis, 8)
	l := newLockstep(t, genesis, beacon.New(ethash.NewFaker()), lockstepMode{scheme: 1, witness: true})
	checked := 0
	for i, block := range blocks {
		if i >= 4 {
			w := buildWitness(t, l, block)
			// The headers, newest first: the parent, the grandparent, whose
			// parent hash is the one BLOCKHASH returns, and that block's
			// own header, which go-ethereum's witness holds too.
			if len(w.Headers) < 3 {
				t.Fatalf("block %d: the witness holds %d headers, want 3", block.NumberU64(), len(w.Headers))
			}
			const linking, oldest = 1, 2
			edit := func(f func(c *stateless.Witness)) func() *stateless.Witness {
				return func() *stateless.Witness {
					c := &stateless.Witness{Headers: slices.Clone(w.Headers), Codes: w.Codes, State: w.State}
					f(c)
					return c
				}
			}
			for name, tampered := range map[string]func() *stateless.Witness{
				"the grandparent's header dropped": edit(func(c *stateless.Witness) {
					c.Headers = slices.Delete(c.Headers, linking, linking+1)
				}),
				"the grandparent's header altered": edit(func(c *stateless.Witness) {
					h := types.CopyHeader(c.Headers[linking])
					h.Extra = append(h.Extra, 1)
					c.Headers[linking] = h
				}),
			} {
				if decision := compareStateless(t, l, block, name, tampered); decision != byBoth {
					t.Fatalf("block %d, %s: %s, want refused by both", block.NumberU64(), name, decision)
				}
				_, _, err := ExecuteStateless(t.Context(), l.config, vm.Config{}, block, tampered())
				if !strings.Contains(err.Error(), "header of block") {
					t.Fatalf("block %d, %s: %v, want an error that names the header", block.NumberU64(), name, err)
				}
			}
			for name, tampered := range map[string]func() *stateless.Witness{
				"the oldest header dropped": edit(func(c *stateless.Witness) { c.Headers = c.Headers[:oldest] }),
				"an unrelated header added": edit(func(c *stateless.Witness) { c.Headers = append(c.Headers, blocks[0].Header()) }),
			} {
				if decision := compareStateless(t, l, block, name, tampered); decision != byNone {
					t.Fatalf("block %d, %s: %s, want accepted by both", block.NumberU64(), name, decision)
				}
			}
			checked++
		}
		if err := l.execute(block); err != nil {
			t.Fatal(err)
		}
	}
	if checked == 0 {
		t.Fatal("no block checked")
	}
}

// blockHashChain makes n blocks on genesis that each call blockHashReader.
// go-ethereum's chain maker serves BLOCKHASH only from a BlockChain that
// holds the blocks before, so the blocks are made one at a time and each
// inserted into one before the next is made.
func blockHashChain(t *testing.T, genesis *core.Genesis, n int) []*types.Block {
	t.Helper()
	engine := beacon.New(ethash.NewFaker())
	bc, err := core.NewBlockChain(rawdb.NewMemoryDatabase(), genesis, engine, core.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Stop()
	config := genesis.Config
	call := func(_ int, b *core.BlockGen) {
		b.AddTxWithChain(bc, types.MustSignNewTx(senderKey, types.LatestSigner(config), &types.DynamicFeeTx{
			ChainID: config.ChainID, Nonce: b.TxNonce(sender), GasTipCap: stateChainTip, GasFeeCap: stateChainFeeCap,
			Gas: 100_000, To: &blockHashReader,
		}))
	}
	db, blocks, _ := core.GenerateChainWithGenesis(genesis, engine, 1, call)
	for len(blocks) < n {
		if _, err := bc.InsertChain(blocks[len(blocks)-1:]); err != nil {
			t.Fatal(err)
		}
		next, _ := core.GenerateChain(config, blocks[len(blocks)-1], engine, db, 1, call)
		blocks = append(blocks, next...)
	}
	return blocks
}

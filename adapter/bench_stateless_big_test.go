package adapter

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/stateless"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"

	"github.com/keccakroot/keccakroot/internal/benchturns"
)

// BenchmarkExecuteStatelessLarge verifies one large block from its witness
// with core.ExecuteStateless and ExecuteStateless taking turns: a state of
// KECCAKROOT_STATE_ACCOUNTS accounts (200,000 by default, 5,000 with
// -short) and a block of 2,000 transfers from 2,000 senders to existing
// accounts and 50 calls that write 100 slots each of a contract holding
// 20,000, the witness made by go-ethereum's StateDB. Reported per block,
// with the witness's size, and each side's time by phase (statelessSplit),
// from turns of their own.
func BenchmarkExecuteStatelessLarge(b *testing.B) {
	config, block, witness := largeStatelessBlock(b)
	// The state the witness was made from is garbage now: collect it, so
	// that the collector's work on a heap of gigabytes does not land on
	// the turns, as it would not in a stateless verifier.
	runtime.GC()
	check := func(who string, stateRoot, receiptRoot [32]byte, err error) {
		if err != nil || stateRoot != block.Root() || receiptRoot != block.ReceiptHash() {
			b.Fatalf("%s: roots %x, %x, %v; header %x, %x", who, stateRoot, receiptRoot, err, block.Root(), block.ReceiptHash())
		}
	}
	ctx := context.Background()
	var split [2]statelessSplit
	// Each turn starts on a collected heap, so that it pays for collecting
	// its own garbage and not the turn's before it.
	collect := func() { runtime.GC() }
	perBlock := benchturns.Measure(b, 1, []benchturns.Turn{
		{Prepare: collect, Call: func(int) {
			stateRoot, receiptRoot, err := core.ExecuteStateless(ctx, config, vm.Config{}, block, witness)
			check("go-ethereum", stateRoot, receiptRoot, err)
		}},
		{Prepare: collect, Call: func(int) {
			stateRoot, receiptRoot, err := ExecuteStateless(ctx, config, vm.Config{}, block, witness)
			check("keccakroot", stateRoot, receiptRoot, err)
		}},
		{Prepare: collect, Call: func(int) {
			stateRoot, receiptRoot, err := split[0].geth(ctx, config, block, witness)
			check("go-ethereum by phase", stateRoot, receiptRoot, err)
		}},
		{Prepare: collect, Call: func(int) {
			stateRoot, receiptRoot, err := split[1].keccakroot(ctx, config, block, witness)
			check("keccakroot by phase", stateRoot, receiptRoot, err)
		}},
	})
	for i, name := range []string{"geth", "keccakroot"} {
		b.ReportMetric(perBlock[i]/1e6, "ms/block-"+name)
		split[i].report(b, name)
	}
	b.ReportMetric(perBlock[0]/perBlock[1], "speedup")
	b.ReportMetric(float64(len(witness.State)), "witness-nodes")
	b.ReportMetric(float64(len(block.Transactions())), "txs")
}

// statelessSplit adds up the phases of a stateless verification, timed in
// turns of their own beside the whole calls: loading the witness (its nodes
// and codes hashed, the parent's state opened on them), executing the block
// (go-ethereum's StateProcessor and the stateless validation, the tries'
// reads included) and hashing (the post-state root and the receipts root).
type statelessSplit struct {
	load, execute, hash time.Duration
	runs                int
}

// keccakroot is ExecuteStateless by phase.
func (s *statelessSplit) keccakroot(ctx context.Context, config *params.ChainConfig, block *types.Block, witness *stateless.Witness) (stateRoot, receiptRoot common.Hash, err error) {
	start := time.Now()
	run, err := loadStateless(config, witness)
	if err != nil {
		return common.Hash{}, common.Hash{}, err
	}
	loaded := time.Now()
	res, err := run.execute(ctx, block, vm.Config{})
	if err != nil {
		return common.Hash{}, common.Hash{}, err
	}
	executed := time.Now()
	stateRoot, receiptRoot, err = run.roots(block, res)
	s.add(start, loaded, executed)
	return stateRoot, receiptRoot, err
}

// geth is core.ExecuteStateless by phase, its steps as go-ethereum
// v1.17.10's core/stateless.go takes them: the witness copied into a
// memory database, each node and code hashed; the parent's state opened on
// a hash-scheme trie database over it; the block processed and validated;
// the receipts root through a StackTrie and IntermediateRoot. Its chain
// context serves the witness's headers from a map, where go-ethereum's
// reads them from the memory database (a handful of lookups a block).
func (s *statelessSplit) geth(ctx context.Context, config *params.ChainConfig, block *types.Block, witness *stateless.Witness) (stateRoot, receiptRoot common.Hash, err error) {
	start := time.Now()
	memdb := witness.MakeHashDB()
	statedb, err := state.New(witness.Root(), state.NewDatabase(triedb.NewDatabase(memdb, triedb.HashDefaults), state.NewCodeDB(memdb)))
	if err != nil {
		return common.Hash{}, common.Hash{}, err
	}
	chain := newWitnessChain(config, witness)
	loaded := time.Now()
	res, err := core.NewStateProcessor(chain).Process(ctx, block, statedb, nil, nil, vm.Config{}, nil)
	if err == nil {
		err = core.NewBlockValidator(config, nil).ValidateState(block, statedb, res, true)
	}
	if err != nil {
		return common.Hash{}, common.Hash{}, err
	}
	executed := time.Now()
	receiptRoot = types.DeriveSha(res.Receipts, trie.NewStackTrie(nil))
	stateRoot = statedb.IntermediateRoot(config.Rules(block.Number(), block.Difficulty().Sign() == 0, block.Time()))
	s.add(start, loaded, executed)
	return stateRoot, receiptRoot, nil
}

func (s *statelessSplit) add(start, loaded, executed time.Time) {
	s.load += loaded.Sub(start)
	s.execute += executed.Sub(loaded)
	s.hash += time.Since(executed)
	s.runs++
}

func (s *statelessSplit) report(b *testing.B, name string) {
	if s.runs == 0 {
		return
	}
	for _, phase := range []struct {
		name string
		d    time.Duration
	}{{"load", s.load}, {"execute", s.execute}, {"hash", s.hash}} {
		b.ReportMetric(float64(phase.d)/float64(s.runs)/1e6, "ms/"+phase.name+"-"+name)
	}
}

// largeStatelessBlock makes the state, the block and its witness of
// BenchmarkExecuteStatelessLarge.
func largeStatelessBlock(b *testing.B) (*params.ChainConfig, *types.Block, *stateless.Witness) {
	accounts := 200_000
	if testing.Short() {
		accounts = 5_000
	}
	if n := envInt("KECCAKROOT_STATE_ACCOUNTS"); n > 0 {
		accounts = n
	}
	const senders, calls, slotsPerCall, contractSlots = 2000, 50, 100, 20_000
	config := *params.MergedTestChainConfig
	genesis := chainGenesis(&config)
	genesis.GasLimit = 300_000_000
	r := rand.New(rand.NewPCG(9, 9))
	existing := make([]common.Address, 0, accounts)
	for range accounts {
		addr := randAddress(r)
		genesis.Alloc[addr] = types.Account{Balance: big.NewInt(int64(1 + r.IntN(1e9))), Nonce: uint64(r.IntN(100))}
		existing = append(existing, addr)
	}
	keys := make([]*ecdsa.PrivateKey, senders)
	for i := range keys {
		k, err := crypto.ToECDSA(common.LeftPadBytes(big.NewInt(int64(1000+i)).Bytes(), 32))
		if err != nil {
			b.Fatal(err)
		}
		keys[i] = k
		genesis.Alloc[crypto.PubkeyToAddress(k.PublicKey)] = types.Account{Balance: new(big.Int).Mul(big.NewInt(params.Ether), big.NewInt(10))}
	}
	slots := map[common.Hash]common.Hash{}
	for len(slots) < contractSlots {
		slots[randHash(r)] = common.Hash{31: 1}
	}
	genesis.Alloc[storeA] = types.Account{Code: storeCode, Storage: slots, Balance: new(big.Int)}
	signer := types.LatestSigner(&config)
	feeCap, tip := big.NewInt(100*params.GWei), big.NewInt(params.GWei)
	_, blocks, _ := core.GenerateChainWithGenesis(genesis, beacon.New(ethash.NewFaker()), 1, func(_ int, g *core.BlockGen) {
		for i, k := range keys {
			to := existing[r.IntN(len(existing))]
			g.AddTx(types.MustSignNewTx(k, signer, &types.DynamicFeeTx{ChainID: config.ChainID, Nonce: 0, GasTipCap: tip,
				GasFeeCap: feeCap, Gas: 100_000, To: &to, Value: big.NewInt(int64(1 + i))}))
		}
		for c := range calls {
			var data []byte
			for range slotsPerCall {
				slot, value := randHash(r), randHash(r)
				data = append(append(data, slot[:]...), value[:]...)
			}
			g.AddTx(types.MustSignNewTx(keys[c], signer, &types.DynamicFeeTx{ChainID: config.ChainID, Nonce: 1, GasTipCap: tip,
				GasFeeCap: feeCap, Gas: 5_000_000, To: &storeA, Data: data}))
		}
	})
	block := blocks[0]
	l := newLockstep(b, genesis, beacon.New(ethash.NewFaker()), lockstepMode{scheme: 0, witness: true})
	run, err := l.run(l.geth, l.headers[block.ParentHash()], block)
	if err != nil {
		b.Fatal(err)
	}
	return &config, block, run.witness
}

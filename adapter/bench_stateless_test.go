package adapter

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/stateless"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/keccakroot/keccakroot/internal/benchturns"
)

// BenchmarkExecuteStateless verifies the state chain's blocks from their
// witnesses (made by go-ethereum's StateDB with witness collection) with
// go-ethereum's core.ExecuteStateless and with ExecuteStateless, taking
// turns (benchturns), one round a pass over forkBlocks blocks of every
// fork, each result checked against the header. Reported per block.
func BenchmarkExecuteStateless(b *testing.B) {
	chain := makeStateChain()
	l := newLockstep(b, chain.genesis, beacon.New(ethash.NewFaker()), lockstepMode{scheme: 1, witness: true})
	var (
		blocks    []*types.Block
		witnesses []*stateless.Witness
	)
	for i, block := range chain.blocks {
		if i%stateChainForkBlocks >= stateChainForkBlocks-10 {
			run, err := l.run(l.geth, l.headers[block.ParentHash()], block)
			if err != nil {
				b.Fatal(err)
			}
			blocks, witnesses = append(blocks, block), append(witnesses, run.witness)
		}
		if err := l.execute(block); err != nil {
			b.Fatal(err)
		}
	}
	check := func(who string, block *types.Block, stateRoot, receiptRoot [32]byte, err error) {
		if err != nil || stateRoot != block.Root() || receiptRoot != block.ReceiptHash() {
			b.Fatalf("%s, block %d: roots %x, %x, %v; header %x, %x", who, block.NumberU64(), stateRoot, receiptRoot, err, block.Root(), block.ReceiptHash())
		}
	}
	ctx := context.Background()
	turns := []benchturns.Turn{
		{Call: func(i int) {
			stateRoot, receiptRoot, err := core.ExecuteStateless(ctx, l.config, vm.Config{}, blocks[i], witnesses[i])
			check("go-ethereum", blocks[i], stateRoot, receiptRoot, err)
		}},
		{Call: func(i int) {
			stateRoot, receiptRoot, err := ExecuteStateless(ctx, l.config, vm.Config{}, blocks[i], witnesses[i])
			check("keccakroot", blocks[i], stateRoot, receiptRoot, err)
		}},
	}
	perBlock := benchturns.Measure(b, len(blocks), turns)
	for i, name := range []string{"geth", "keccakroot"} {
		b.ReportMetric(perBlock[i]/1e3, "us/block-"+name)
	}
	b.ReportMetric(perBlock[0]/perBlock[1], "speedup")
}

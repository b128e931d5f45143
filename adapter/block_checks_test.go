package adapter

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core/stateless"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
)

// withHeader returns block with its header changed by edit and its body
// and access list as they were.
func withHeader(block *types.Block, edit func(h *types.Header)) *types.Block {
	h := block.Header()
	edit(h)
	b := types.NewBlockWithHeader(h).WithBody(*block.Body())
	if list := block.AccessList(); list != nil {
		b = b.WithAccessListUnsafe(list)
	}
	return b
}

// withBody returns block with its body changed by edit.
func withBody(block *types.Block, edit func(b *types.Body)) *types.Block {
	body := *block.Body()
	edit(&body)
	b := types.NewBlockWithHeader(block.Header()).WithBody(body)
	if list := block.AccessList(); list != nil {
		b = b.WithAccessListUnsafe(list)
	}
	return b
}

// TestValidateBody checks every block of the state chain (Shanghai to
// Amsterdam) and blocks spoilt in each way ValidateBody looks for: every
// valid block passes, every spoilt one fails with the error it documents.
func TestValidateBody(t *testing.T) {
	chain := makeStateChain()
	config := chain.genesis.Config
	checked := map[string]int{}
	for _, block := range chain.blocks {
		if err := ValidateBody(config, block); err != nil {
			t.Fatalf("block %d: %v", block.NumberU64(), err)
		}
		bad := map[string]struct {
			block *types.Block
			want  error
		}{}
		if txs := block.Transactions(); len(txs) > 0 {
			bad["a transaction dropped"] = struct {
				block *types.Block
				want  error
			}{withBody(block, func(b *types.Body) { b.Transactions = slices.Clone(txs[1:]) }), ErrTxRootMismatch}
		}
		bad["an uncle in a proof-of-stake block"] = struct {
			block *types.Block
			want  error
		}{withBody(block, func(b *types.Body) { b.Uncles = []*types.Header{block.Header()} }), ErrInvalidBody}
		bad["the withdrawals dropped"] = struct {
			block *types.Block
			want  error
		}{withBody(block, func(b *types.Body) { b.Withdrawals = nil }), ErrMissingWithdrawals}
		bad["no withdrawals root"] = struct {
			block *types.Block
			want  error
		}{withHeader(block, func(h *types.Header) { h.WithdrawalsHash = nil }), ErrUnexpectedWithdrawals}
		if h := block.Header(); h.BlobGasUsed != nil {
			bad["another blob gas used"] = struct {
				block *types.Block
				want  error
			}{withHeader(block, func(h *types.Header) { *h.BlobGasUsed += 1 << 17 }), ErrInvalidBody}
		}
		if list := block.AccessList(); list != nil {
			wrong := common.Hash{0xba, 0xd}
			bad["another access list hash"] = struct {
				block *types.Block
				want  error
			}{withHeader(block, func(h *types.Header) { h.BlockAccessListHash = &wrong }), ErrAccessListHashMismatch}
		} else if block.Header().BlockAccessListHash == nil {
			if list := chain.blocks[len(chain.blocks)-1].AccessList(); list != nil {
				bad["an access list before Amsterdam"] = struct {
					block *types.Block
					want  error
				}{block.WithAccessListUnsafe(list), ErrUnexpectedAccessList}
			}
		}
		for name, c := range bad {
			err := ValidateBody(config, c.block)
			if !errors.Is(err, c.want) {
				t.Fatalf("block %d, %s: %v, want %v", block.NumberU64(), name, err, c.want)
			}
			checked[name]++
		}
	}
	for _, name := range []string{"a transaction dropped", "another blob gas used", "another access list hash", "an access list before Amsterdam"} {
		if checked[name] == 0 {
			t.Errorf("%s: no block of the chain to try it on", name)
		}
	}
	if err := ValidateBody(nil, chain.blocks[0]); !errors.Is(err, ErrNilArgument) {
		t.Errorf("a nil config: %v", err)
	}
}

// TestVerifyStateless verifies a block of each fork of the state chain from
// the witness go-ethereum builds for it: the header's roots; and refuses
// the same block with a header or a witness go-ethereum's import refuses,
// each with an error that says which check failed.
func TestVerifyStateless(t *testing.T) {
	chain := makeStateChain()
	l := newLockstep(t, chain.genesis, beacon.New(ethash.NewFaker()), lockstepMode{scheme: 1, witness: true})
	ctx := context.Background()
	verified := 0
	for i, block := range chain.blocks {
		if i%stateChainForkBlocks == stateChainForkBlocks/2 {
			w := buildWitness(t, l, block)
			stateRoot, receiptRoot, err := VerifyStateless(ctx, l.config, vm.Config{}, block, w)
			if err != nil || stateRoot != block.Root() || receiptRoot != block.ReceiptHash() {
				t.Fatalf("block %d: %x, %x, %v; the header has %x, %x", block.NumberU64(), stateRoot, receiptRoot, err, block.Root(), block.ReceiptHash())
			}
			verified++
			wrong := common.Hash{0xba, 0xd}
			grandparent := l.headers[l.headers[block.ParentHash()].ParentHash]
			spoilt := map[string]struct {
				block   *types.Block
				witness *stateless.Witness
				want    string
			}{
				"another state root":    {withHeader(block, func(h *types.Header) { h.Root = wrong }), w, "invalid merkle root"},
				"another receipts root": {withHeader(block, func(h *types.Header) { h.ReceiptHash = wrong }), w, "invalid receipt root hash"},
				"another gas limit":     {withHeader(block, func(h *types.Header) { h.GasLimit /= 2 }), w, "invalid header"},
				"a transaction dropped": {withBody(block, func(b *types.Body) { b.Transactions = b.Transactions[:0] }), w, "transactions root mismatch"},
				"the grandparent first": {block, &stateless.Witness{Headers: append([]*types.Header{grandparent}, w.Headers...), Codes: w.Codes, State: w.State}, "is not the parent of block"},
			}
			if block.Header().RequestsHash != nil {
				spoilt["another requests hash"] = struct {
					block   *types.Block
					witness *stateless.Witness
					want    string
				}{withHeader(block, func(h *types.Header) { h.RequestsHash = &wrong }), w, "invalid requests hash"}
			}
			for name, c := range spoilt {
				_, _, err := VerifyStateless(ctx, l.config, vm.Config{}, c.block, c.witness)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("block %d, %s: %v; want an error saying %q", block.NumberU64(), name, err, c.want)
				}
			}
		}
		if err := l.execute(block); err != nil {
			t.Fatal(err)
		}
	}
	if verified < 4 {
		t.Fatalf("verified %d blocks, want one of each fork", verified)
	}
}

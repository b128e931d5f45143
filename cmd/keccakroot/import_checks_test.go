package main

import (
	"bytes"
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/adapter"
)

// The checks replay and stateless make where go-ethereum's import makes
// them, on blocks that its import refuses and that would pass, or crash,
// without them.

// TestForgedAccessListRefused: an Amsterdam block whose attached access
// list has one balance raised by 1 wei, so that it no longer hashes to the
// header's blockAccessListHash, and whose header state root is that list's
// post-state root. go-ethereum's import refuses it in ValidateBody; replay
// and both modes of stateless must too (go-ethereum's parallel execution
// takes the post-state from the attached list, so the roots alone agree).
func TestForgedAccessListRefused(t *testing.T) {
	ams := mustAmsterdamChain(t)
	n := -1
	var forged bal.BlockAccessList
	for i, block := range ams.blocks {
		if block.AccessList() == nil {
			continue
		}
		forged = bal.BlockAccessList{}
		if err := rlp.DecodeBytes(mustRLP(t, block.AccessList()), &forged); err != nil {
			t.Fatal(err)
		}
		for j := range forged {
			if changes := forged[j].BalanceChanges; len(changes) > 0 && len(forged[j].StorageChanges) == 0 {
				last := &changes[len(changes)-1]
				last.PostBalance = new(uint256.Int).AddUint64(last.PostBalance, 1)
				n = i
				break
			}
		}
		if n >= 0 {
			break
		}
	}
	if n < 0 {
		t.Fatal("no Amsterdam block with a balance change to forge")
	}
	block := ams.blocks[n]
	w := amsterdamWitness(t, ams, n)
	forgedRoot, err := adapter.AccessListStateRoot(w.Root(), &forged, adapter.WitnessNodes(w))
	if err != nil {
		t.Fatal(err)
	}
	header := block.Header()
	header.Root = forgedRoot // the blockAccessListHash stays the executed list's
	bad := types.NewBlockWithHeader(header).WithBody(*block.Body()).WithAccessListUnsafe(&forged)
	if bad.AccessList().Hash() == *header.BlockAccessListHash || forgedRoot == block.Root() {
		t.Fatal("the forgery changed nothing")
	}
	enc, err := adapter.EncodeExportedBlock(bad)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	genesis := writeGenesis(t, dir, "genesis.json", ams.genesis)
	chainPath := writeFile(t, dir, "chain.rlp", append(bytes.Clone(ams.export[:ams.offsets[n]]), enc...))
	blockPath := writeFile(t, dir, "block.rlp", enc)
	witnessPath := writeFile(t, dir, "witness.rlp", mustRLP(t, w))
	for _, args := range [][]string{
		{"replay", "--geth", "--genesis", genesis, chainPath},
		{"stateless", "--genesis", genesis, "--witness", witnessPath, blockPath},
		{"stateless", "--access-list", "--genesis", genesis, "--witness", witnessPath, blockPath},
	} {
		r := keccakroot(t, nil, args...)
		wantCode(t, r, exitMismatch)
		wantOutput(t, r.stdout+r.stderr, "block access list hash mismatch")
	}
}

// TestHeaderWithoutBaseFeeRefused: a London block, and an Amsterdam one,
// with the header's fields from the base fee on dropped (valid RLP, the
// shape of an older header). go-ethereum's import refuses them in header
// verification, and its EVM dereferences the missing base fee: replay and
// stateless refuse them, naming the header, without a panic.
func TestHeaderWithoutBaseFeeRefused(t *testing.T) {
	chain := mustChain(t)
	dir := t.TempDir()
	k := len(chain.blocks) - 2 // a block with transactions
	last := chain.blocks[k]
	header := last.Header()
	header.BaseFee = nil
	bad := types.NewBlockWithHeader(header).WithBody(*last.Body())
	if len(bad.Transactions()) == 0 {
		t.Fatal("want a block with transactions")
	}
	genesis := writeGenesis(t, dir, "genesis.json", chain.genesis)
	path := writeFile(t, dir, "chain.rlp", append(bytes.Clone(chain.export[:chain.offsets[k]]), mustRLP(t, bad)...))
	r := keccakroot(t, nil, "replay", "--json", "--geth", "--genesis", genesis, path)
	wantCode(t, r, exitMismatch)
	var res replayResult
	decodeJSON(t, r, &res)
	if b := res.BadBlock; b == nil || b.Number != bad.NumberU64() || b.Side != "chain" || len(b.Roots) != 0 {
		t.Fatalf("want block %d refused before execution:\n%v", bad.NumberU64(), r)
	}
	wantOutput(t, res.BadBlock.Reason, "invalid header")

	ams := mustAmsterdamChain(t)
	const n = 39
	h := ams.blocks[n].Header()
	h.BaseFee, h.WithdrawalsHash, h.BlobGasUsed, h.ExcessBlobGas, h.ParentBeaconRoot, h.RequestsHash, h.BlockAccessListHash, h.SlotNumber = nil, nil, nil, nil, nil, nil, nil, nil
	old := types.NewBlockWithHeader(h).WithBody(*ams.blocks[n].Body()).WithAccessListUnsafe(ams.blocks[n].AccessList())
	enc, err := adapter.EncodeExportedBlock(old)
	if err != nil {
		t.Fatal(err)
	}
	amsGenesis := writeGenesis(t, dir, "amsterdam.json", ams.genesis)
	witness := writeFile(t, dir, "w.rlp", mustRLP(t, amsterdamWitness(t, ams, n)))
	r = keccakroot(t, nil, "stateless", "--genesis", amsGenesis, "--witness", witness, writeFile(t, dir, "b.rlp", enc))
	wantCode(t, r, exitMismatch)
	wantOutput(t, r.stderr, "invalid header")
}

// TestStatelessWitnessOfAnotherParent: block 40's witness with one more
// header, numbered 1000 and carrying block 29's state root, and block 30's
// nodes: the witness's pre-state is its highest-numbered header's (as
// go-ethereum's Witness.Root reads it), so the block runs on block 29's
// state, and its header carries the root that gives. stateless refuses the
// witness in both modes: its first header is not the block's parent.
func TestStatelessWitnessOfAnotherParent(t *testing.T) {
	ams := mustAmsterdamChain(t)
	const n, old = 40, 30
	block := ams.blocks[n]
	w := amsterdamWitness(t, ams, n)
	wOld := amsterdamWitness(t, ams, old)
	fake := types.CopyHeader(ams.blocks[old-1].Header())
	fake.Number = big.NewInt(1000)
	for k := range wOld.State {
		w.State[k] = struct{}{}
	}
	for k := range wOld.Codes {
		w.Codes[k] = struct{}{}
	}
	w.Headers = append(w.Headers, fake)
	data := mustRLP(t, w)
	decoded, err := adapter.DecodeWitness(data)
	if err != nil {
		t.Fatal(err)
	}
	if decoded.Root() != fake.Root {
		t.Fatalf("pre-state root %x, want the added header's", decoded.Root())
	}
	root, err := adapter.AccessListStateRoot(decoded.Root(), block.AccessList(), adapter.WitnessNodes(decoded))
	if err != nil {
		t.Fatal(err)
	}
	header := block.Header()
	header.Root = root
	bad := types.NewBlockWithHeader(header).WithBody(*block.Body()).WithAccessListUnsafe(block.AccessList())
	enc, err := adapter.EncodeExportedBlock(bad)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	genesis := writeGenesis(t, dir, "genesis.json", ams.genesis)
	blockPath := writeFile(t, dir, "block.rlp", enc)
	witnessPath := writeFile(t, dir, "witness.rlp", data)
	for _, mode := range [][]string{nil, {"--access-list"}} {
		args := append([]string{"stateless", "--genesis", genesis, "--witness", witnessPath}, mode...)
		r := keccakroot(t, nil, append(args, blockPath)...)
		wantCode(t, r, exitMismatch)
		wantOutput(t, r.stderr, "is not the parent of block")
	}
}

// TestStatelessHeaderHashes: block 39 of the Amsterdam chain with a wrong
// requestsHash, or a wrong blockAccessListHash, in its header. go-ethereum's
// import refuses both; core.ExecuteStateless leaves them to its caller,
// which stateless is.
func TestStatelessHeaderHashes(t *testing.T) {
	ams := mustAmsterdamChain(t)
	const n = 39
	block := ams.blocks[n]
	dir := t.TempDir()
	genesis := writeGenesis(t, dir, "genesis.json", ams.genesis)
	witnessPath := writeFile(t, dir, "w.rlp", mustRLP(t, amsterdamWitness(t, ams, n)))
	wrong := common.Hash{0xba, 0xd}
	for _, c := range []struct {
		field, want string
		edit        func(h *types.Header)
		withList    bool
	}{
		{"requestsHash", "invalid requests hash", func(h *types.Header) { h.RequestsHash = &wrong }, true},
		{"blockAccessListHash", "block access list hash mismatch", func(h *types.Header) { h.BlockAccessListHash = &wrong }, true},
		{"blockAccessListHash, the list not attached", "access list hash mismatch", func(h *types.Header) { h.BlockAccessListHash = &wrong }, false},
	} {
		h := block.Header()
		c.edit(h)
		bad := types.NewBlockWithHeader(h).WithBody(*block.Body())
		if c.withList {
			bad = bad.WithAccessListUnsafe(block.AccessList())
		}
		enc, err := adapter.EncodeExportedBlock(bad)
		if err != nil {
			t.Fatal(err)
		}
		r := keccakroot(t, nil, "stateless", "--genesis", genesis, "--witness", witnessPath, writeFile(t, dir, "b.rlp", enc))
		wantCode(t, r, exitMismatch)
		wantOutput(t, r.stderr, c.want)
	}
}

// TestReplayFailureBeforeRoot: a block with two transactions swapped (the
// second sender's nonce comes first) fails in execution on both sides
// before any state root: it is the chain's fault, and no computed root is
// reported.
func TestReplayFailureBeforeRoot(t *testing.T) {
	chain := mustChain(t)
	dir := t.TempDir()
	genesis := writeGenesis(t, dir, "genesis.json", chain.genesis)
	k := len(chain.blocks) - 2
	block := chain.blocks[k]
	txs := slices.Clone(block.Transactions())
	if len(txs) < 2 {
		t.Fatal("want a block with two transactions")
	}
	txs[0], txs[1] = txs[1], txs[0]
	body := *block.Body()
	body.Transactions = txs
	header := block.Header()
	header.TxHash = adapter.DeriveSha(txs)
	swapped := types.NewBlockWithHeader(header).WithBody(body)
	path := writeFile(t, dir, "chain.rlp", append(bytes.Clone(chain.export[:chain.offsets[k]]), mustRLP(t, swapped)...))
	r := keccakroot(t, nil, "replay", "--json", "--geth", "--genesis", genesis, path)
	wantCode(t, r, exitMismatch)
	var res replayResult
	decodeJSON(t, r, &res)
	if b := res.BadBlock; b == nil || b.Number != swapped.NumberU64() || b.Side != "chain" || len(b.Roots) != 0 || b.Header != nil {
		t.Fatalf("want block %d refused by both sides without computed roots:\n%v", swapped.NumberU64(), r)
	}
}

// TestReplayInvalidUncleRefused: a block of the proof-of-work chain whose
// uncle's gas limit is changed past what its parent allows (the block's
// uncle hash made to match): its execution gives the header's state root,
// but go-ethereum's import refuses the uncle, and so does replay.
func TestReplayInvalidUncleRefused(t *testing.T) {
	chain := mustChain(t)
	k := -1
	for i, block := range chain.blocks {
		if len(block.Uncles()) > 0 {
			k = i
			break
		}
	}
	if k < 0 {
		t.Fatal("the chain has no block with an uncle")
	}
	block := chain.blocks[k]
	uncles := make([]*types.Header, len(block.Uncles()))
	for i, u := range block.Uncles() {
		uncles[i] = types.CopyHeader(u)
	}
	uncles[0].GasLimit *= 3
	header := block.Header()
	header.UncleHash = types.CalcUncleHash(uncles)
	body := *block.Body()
	body.Uncles = uncles
	bad := types.NewBlockWithHeader(header).WithBody(body)
	dir := t.TempDir()
	genesis := writeGenesis(t, dir, "genesis.json", chain.genesis)
	path := writeFile(t, dir, "chain.rlp", append(bytes.Clone(chain.export[:chain.offsets[k]]), mustRLP(t, bad)...))
	r := keccakroot(t, nil, "replay", "--json", "--genesis", genesis, path)
	wantCode(t, r, exitMismatch)
	var res replayResult
	decodeJSON(t, r, &res)
	if b := res.BadBlock; b == nil || b.Number != bad.NumberU64() || b.Side != "chain" {
		t.Fatalf("want block %d refused for its uncle:\n%v", bad.NumberU64(), r)
	}
	wantOutput(t, res.BadBlock.Reason, "invalid uncles")
}

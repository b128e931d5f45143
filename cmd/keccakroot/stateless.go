package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/stateless"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/urfave/cli/v2"

	"github.com/keccakroot/keccakroot/adapter"
)

// statelessCommand is the stateless command.
func statelessCommand() *cli.Command {
	return &cli.Command{
		Name:  "stateless",
		Usage: "verify a block from its execution witness, or its state root from its block access list",
		UsageText: `keccakroot stateless [flags] --witness FILE (--genesis FILE.json | --network NAME) BLOCK

Examples:
   keccakroot stateless --network mainnet --witness witness.json block.rlp
   keccakroot stateless --genesis devnet.json --witness witness.rlp --access-list block.rlp`,
		Description: `Reads an execution witness (FILE, or - for standard input) in either of
go-ethereum's wire forms: the RLP of its ExtWitness, or the JSON that
debug_executionWitness returns (bare or as a JSON-RPC response). BLOCK is a file
holding the block's RLP, as 'geth export' writes it (an Amsterdam block's access
list as a fifth item) or as hex text.

Verifies the block as go-ethereum's import does, with the witness in place of the
chain and its state (adapter.VerifyStateless): the witness's first header must be
the block's parent; the header is checked against it by go-ethereum's consensus
engine and the body against the header; the block is executed on the witness's
state (go-ethereum's EVM on keccakroot's tries, straight from the witness's nodes)
and its gas used, bloom, receipts root, requests, block access list and state root
checked against the header. Times it beside go-ethereum's core.ExecuteStateless on
the same input (which executes and returns the roots, without those checks) unless
--geth=false.

--access-list computes the post-state root of an Amsterdam block from the access list
it carries, on the witness's nodes, without executing it (adapter.AccessListStateRoot),
beside go-ethereum's StateDB.ApplyBlockAccessList and IntermediateRoot, after the
same checks of the parent, the header and the body (the access list's hash).

Exit codes: 0 the block passes; 1 it fails a check (the roots, the header, the body,
the parent), or the witness lacks what the block needs; 2 bad usage, or a witness or
block that cannot be read or parsed.`,
		Flags: []cli.Flag{
			jsonFlag(),
			&cli.StringFlag{Name: "witness", Usage: "the execution witness, a `FILE` (- for standard input)"},
			&cli.StringFlag{Name: "genesis", Usage: "the chain's genesis, for its chain config, a go-ethereum genesis JSON `FILE`"},
			&cli.StringFlag{Name: "network", Usage: "a built-in network's chain config instead: " + strings.Join(networkNames(), ", ")},
			&cli.BoolFlag{Name: "access-list", Usage: "the post-state root from the block's access list, without execution"},
			&cli.BoolFlag{Name: "geth", Value: true, Usage: "also run go-ethereum's side, compare and time it (--geth=false to skip)"},
		},
		Action: statelessAction,
	}
}

// statelessResult is the result of stateless.
type statelessResult struct {
	Command string      `json:"command"`
	Mode    string      `json:"mode"` // "execute" or "access-list"
	Block   uint64      `json:"block"`
	Hash    common.Hash `json:"hash"`
	// StateRoot and ReceiptRoot are keccakroot's (no receipt root from an
	// access list); the header's beside them.
	StateRoot         common.Hash  `json:"stateRoot"`
	ReceiptRoot       *common.Hash `json:"receiptRoot,omitempty"`
	HeaderStateRoot   common.Hash  `json:"headerStateRoot"`
	HeaderReceiptRoot *common.Hash `json:"headerReceiptRoot,omitempty"`
	Seconds           seconds      `json:"seconds"`
	// Geth is go-ethereum's side, with --geth.
	Geth  *gethStateless `json:"geth,omitempty"`
	OK    bool           `json:"ok"`
	Error string         `json:"error,omitempty"`
}

// gethStateless is go-ethereum's result on the same input.
type gethStateless struct {
	StateRoot   common.Hash  `json:"stateRoot"`
	ReceiptRoot *common.Hash `json:"receiptRoot,omitempty"`
	Seconds     seconds      `json:"seconds"`
	Error       string       `json:"error,omitempty"`
}

// statelessAction runs stateless.
func statelessAction(c *cli.Context) error {
	if err := checkArgs(c, 1, 1); err != nil {
		return err
	}
	config, err := chainConfig(c)
	if err != nil {
		return err
	}
	if c.String("witness") == "" {
		return usageErrorf("stateless: --witness FILE is needed")
	}
	witness, err := readWitness(c.String("witness"))
	if err != nil {
		return err
	}
	block, err := readBlock(c.Args().First())
	if err != nil {
		return err
	}
	res := &statelessResult{Command: "stateless", Mode: "execute", Block: block.NumberU64(), Hash: block.Hash(), HeaderStateRoot: block.Root()}
	if c.Bool("access-list") {
		err = accessListRoot(res, config, block, witness, c.Bool("geth"))
	} else {
		err = executeStateless(res, config, block, witness, c.Bool("geth"))
	}
	if err != nil {
		res.Error = err.Error()
	}
	res.OK = err == nil
	return report(c, res, err)
}

// chainConfig returns the chain config of --genesis or --network.
func chainConfig(c *cli.Context) (*params.ChainConfig, error) {
	g, err := flagGenesis(c)
	if err != nil {
		return nil, err
	}
	return g.Config, nil
}

// readWitness reads and decodes a witness file, or standard input for "-".
func readWitness(path string) (*stateless.Witness, error) {
	data, err := readAll(path)
	if err != nil {
		return nil, err
	}
	w, err := adapter.DecodeWitness(data)
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: %w", path, err))
	}
	return w, nil
}

// readBlock reads a block file: its RLP, raw or as hex text.
func readBlock(path string) (*types.Block, error) {
	data, err := readAll(path)
	if err != nil {
		return nil, err
	}
	if text := bytes.TrimSpace(data); len(text) > 0 && isHexText(text) {
		data = common.FromHex(string(text))
	}
	block, err := adapter.DecodeExportedBlock(data)
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: not a block: %w", path, err))
	}
	return block, nil
}

// isHexText reports whether b is hex digits, with or without 0x.
func isHexText(b []byte) bool {
	b = bytes.TrimPrefix(bytes.TrimPrefix(b, []byte("0x")), []byte("0X"))
	if len(b) == 0 || len(b)%2 != 0 {
		return false
	}
	_, err := hex.DecodeString(string(b))
	return err == nil
}

// executeStateless verifies block from witness with keccakroot
// (adapter.VerifyStateless: every check of go-ethereum's import) and, with
// geth, executes it with go-ethereum's core.ExecuteStateless.
func executeStateless(res *statelessResult, config *params.ChainConfig, block *types.Block, witness *stateless.Witness, geth bool) error {
	headerReceipts := block.ReceiptHash()
	res.HeaderReceiptRoot = &headerReceipts
	start := time.Now()
	stateRoot, receiptRoot, err := adapter.VerifyStateless(context.Background(), config, vm.Config{}, block, witness)
	elapsed := time.Since(start)
	// A block that fails the checks before execution goes to neither
	// side: go-ethereum's EVM may panic on a header its import refuses,
	// in goroutines no recover reaches. Only a refused block is asked
	// which checks it failed.
	if err != nil && adapter.CheckWitnessBlock(config, block, witness) != nil {
		return &exitError{code: exitMismatch, err: fmt.Errorf("block %d (%x): %w", block.NumberU64(), block.Hash(), err)}
	}
	res.Seconds = seconds(elapsed)
	if geth {
		res.Geth = &gethStateless{}
		start := time.Now()
		gethState, gethReceipts, gethErr := gethExecuteStateless(config, block, witness)
		res.Geth.Seconds = seconds(time.Since(start))
		res.Geth.StateRoot, res.Geth.ReceiptRoot = gethState, &gethReceipts
		if gethErr != nil {
			res.Geth.Error = gethErr.Error()
		}
	}
	if stateRoot != (common.Hash{}) {
		res.StateRoot, res.ReceiptRoot = stateRoot, &receiptRoot
	}
	if err != nil {
		// VerifyStateless checked the roots against the header among the
		// rest: a block it passes has the header's.
		return &exitError{code: exitMismatch, err: fmt.Errorf("block %d (%x): %w", block.NumberU64(), block.Hash(), err)}
	}
	return nil
}

// gethExecuteStateless is go-ethereum's core.ExecuteStateless, its panic on
// a witness without headers an error.
func gethExecuteStateless(config *params.ChainConfig, block *types.Block, witness *stateless.Witness) (stateRoot, receiptRoot common.Hash, err error) {
	defer recoverPanic("go-ethereum's ExecuteStateless", &err)
	return core.ExecuteStateless(context.Background(), config, vm.Config{}, block, witness)
}

// accessListRoot computes the post-state root of block from its access
// list on the witness's nodes, with keccakroot and, with geth, with
// go-ethereum.
func accessListRoot(res *statelessResult, config *params.ChainConfig, block *types.Block, witness *stateless.Witness, geth bool) error {
	res.Mode = "access-list"
	list := block.AccessList()
	if list == nil {
		return inputError(fmt.Errorf("block %d carries no block access list (an Amsterdam block exported with its fifth item)", block.NumberU64()))
	}
	if len(witness.Headers) == 0 {
		return inputError(errors.New("the witness has no headers"))
	}
	// The block's link to the witness's parent, its header and its body
	// (the access list's hash among them), as an import checks them.
	if err := adapter.CheckWitnessBlock(config, block, witness); err != nil {
		return &exitError{code: exitMismatch, err: fmt.Errorf("block %d (%x): %w", block.NumberU64(), block.Hash(), err)}
	}
	start := time.Now()
	root, err := adapter.AccessListStateRoot(witness.Root(), list, adapter.WitnessNodes(witness))
	res.Seconds = seconds(time.Since(start))
	if geth {
		res.Geth = &gethStateless{}
		start := time.Now()
		gethRoot, gethErr := gethAccessListRoot(config, block, witness)
		res.Geth.Seconds = seconds(time.Since(start))
		res.Geth.StateRoot = gethRoot
		if gethErr != nil {
			res.Geth.Error = gethErr.Error()
		}
	}
	if err != nil {
		return &exitError{code: exitMismatch, err: fmt.Errorf("block %d (%x): %w", block.NumberU64(), block.Hash(), err)}
	}
	res.StateRoot = root
	if root != block.Root() {
		return mismatchErrorf("block %d: state root %x from the access list, the header has %x", block.NumberU64(), root, block.Root())
	}
	return nil
}

// gethAccessListRoot is go-ethereum's post-state root from the block's
// access list on the witness's state: StateDB.ApplyBlockAccessList, then
// IntermediateRoot, on the hash database its stateless execution builds.
func gethAccessListRoot(config *params.ChainConfig, block *types.Block, witness *stateless.Witness) (root common.Hash, err error) {
	defer recoverPanic("go-ethereum's ApplyBlockAccessList", &err)
	memdb := witness.MakeHashDB()
	statedb, err := state.New(witness.Root(), state.NewDatabase(triedb.NewDatabase(memdb, triedb.HashDefaults), state.NewCodeDB(memdb)))
	if err != nil {
		return common.Hash{}, err
	}
	if err := statedb.ApplyBlockAccessList(block.AccessList()); err != nil {
		return common.Hash{}, err
	}
	root = statedb.IntermediateRoot(config.Rules(block.Number(), block.Difficulty().Sign() == 0, block.Time()))
	return root, statedb.Error()
}

// writeText prints the result for people.
func (r *statelessResult) writeText(w io.Writer) {
	what := "executed from its witness"
	if r.Mode == "access-list" {
		what = "state root from its access list"
	}
	fmt.Fprintf(w, "block %d %s: %s\n", r.Block, r.Hash.Hex(), what)
	fmt.Fprintf(w, "state root    %s (header %s)\n", r.StateRoot.Hex(), r.HeaderStateRoot.Hex())
	if r.ReceiptRoot != nil && r.HeaderReceiptRoot != nil {
		fmt.Fprintf(w, "receipts root %s (header %s)\n", r.ReceiptRoot.Hex(), r.HeaderReceiptRoot.Hex())
	}
	fmt.Fprintf(w, "keccakroot    %s\n", formatDuration(time.Duration(r.Seconds)))
	if g := r.Geth; g != nil {
		fmt.Fprintf(w, "go-ethereum   %s, state root %s", formatDuration(time.Duration(g.Seconds)), g.StateRoot.Hex())
		if g.Error != "" {
			fmt.Fprintf(w, ", %s", g.Error)
		}
		fmt.Fprintf(w, "\nkeccakroot %.2fx go-ethereum's\n", ratio(float64(g.Seconds), float64(r.Seconds)))
	}
	fmt.Fprintln(w, okWord(r.OK))
}

// recoverPanic turns a panic of who into *err.
func recoverPanic(who string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s panicked: %v", who, r)
	}
}

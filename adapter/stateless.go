package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/stateless"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/triedb/database"

	"github.com/keccakroot/keccakroot/triehash"
)

// ErrWitness is returned, wrapped with what is wrong and where, for a
// witness that cannot serve the block: no headers, a node missing for a
// path the block reads (also a *trie.MissingNodeError), a code missing, or
// a header missing that BLOCKHASH needs.
var ErrWitness = errors.New("adapter: execution witness")

// ExecuteStateless executes block on the state its execution witness holds
// and returns the post-state root and the receipts root, with the contract
// of go-ethereum's core.ExecuteStateless: the same roots, the same checks
// (gas used and bloom against the header; the caller compares the roots),
// on go-ethereum's EVM. The state is served by keccakroot's tries straight
// from the witness's nodes, each hashed once, in batches, with no key-value
// store built in between, and the state root is hashed by them.
//
// Where go-ethereum goes on with an empty value and returns a root that
// the header will not match, ExecuteStateless returns an ErrWitness that
// names what is missing: a trie node (by hash and path, also as go-ethereum's
// *trie.MissingNodeError), a code (by hash and account) or a header that
// BLOCKHASH needs (by number and hash; a header altered no longer links). Extra nodes and
// codes are ignored, as go-ethereum ignores them. It never panics on a
// witness, where go-ethereum's Witness.Root does on one without headers.
//
// One decision differs, on purpose: a witness that lacks a node on the path
// of a slot the block reads but neither holds nor writes. go-ethereum's
// StateDB records the missing node as its error, reads an empty value,
// which here is the right one, and accepts the block, since neither its
// processing nor its ValidateState looks at that error. ExecuteStateless
// refuses the witness: it does not prove what the block read. And a London
// header without a base fee is an error where go-ethereum's EVM panics.
//
// Like go-ethereum's, it trusts the caller for the rest: the pre-state is
// that of the witness's first header (the highest-numbered one), whether or
// not that header is the block's parent, and nothing checks the header
// against its parent, the body against the header, or the requests and
// block access list the execution yields. VerifyStateless does all of it.
func ExecuteStateless(ctx context.Context, config *params.ChainConfig, vmConfig vm.Config, block *types.Block, witness *stateless.Witness) (stateRoot, receiptRoot common.Hash, err error) {
	run, res, err := executeStateless(ctx, config, vmConfig, block, witness)
	if err != nil {
		return common.Hash{}, common.Hash{}, err
	}
	return run.roots(block, res)
}

// VerifyStateless verifies block from its execution witness as go-ethereum
// verifies a block it imports, with the witness in place of the chain and
// its state: first CheckWitnessBlock's checks, then the block executed as
// ExecuteStateless executes it, with the gas used, the bloom, the receipts
// root, the requests hash, the block access list and the state root checked
// against the header (go-ethereum's BlockValidator.ValidateState). It
// returns the state and receipts roots computed, also when a check fails
// after they are (the error naming the field and both values); a block
// that passes has the header's.
func VerifyStateless(ctx context.Context, config *params.ChainConfig, vmConfig vm.Config, block *types.Block, witness *stateless.Witness) (stateRoot, receiptRoot common.Hash, err error) {
	if err := CheckWitnessBlock(config, block, witness); err != nil {
		return common.Hash{}, common.Hash{}, err
	}
	run, res, err := executeStateless(ctx, config, vmConfig, block, witness)
	if err != nil {
		return common.Hash{}, common.Hash{}, err
	}
	if stateRoot, receiptRoot, err = run.roots(block, res); err != nil {
		return common.Hash{}, common.Hash{}, err
	}
	// The roots again (hashed already, they cost little), the requests and
	// the access list, as an import checks them.
	if err := core.NewBlockValidator(config, nil).ValidateState(block, run.statedb, res, false); err != nil {
		return stateRoot, receiptRoot, fmt.Errorf("block %d: %w", block.NumberU64(), err)
	}
	return stateRoot, receiptRoot, nil
}

// CheckWitnessBlock makes the checks of a block that go-ethereum's import
// makes before executing it, with the witness's headers in place of the
// chain: the witness's first header must be the block's parent (so that
// the block runs on its parent's state, which ExecuteStateless does not
// check), the header is checked against it by go-ethereum's consensus
// engine (number, time, gas limit, base fee, the fork's fields), and the
// body against the header (ValidateBody). A witness whose first header is
// not the parent is an ErrWitness.
func CheckWitnessBlock(config *params.ChainConfig, block *types.Block, witness *stateless.Witness) error {
	if err := checkStatelessArgs(config, block, witness); err != nil {
		return err
	}
	if len(witness.Headers) == 0 || witness.Headers[0] == nil {
		return fmt.Errorf("%w: no parent header", ErrWitness)
	}
	parent := witness.Headers[0]
	if hash := HeaderHash(parent); hash != block.ParentHash() || parent.Number == nil || parent.Number.Uint64()+1 != block.NumberU64() {
		return fmt.Errorf("%w: its first header, block %v (%x), is not the parent of block %d (%x)",
			ErrWitness, parent.Number, hash, block.NumberU64(), block.ParentHash())
	}
	chain := newWitnessChain(config, witness)
	if err := chain.engine.VerifyHeader(chain, block.Header()); err != nil {
		return fmt.Errorf("block %d: invalid header: %w", block.NumberU64(), err)
	}
	return ValidateBody(config, block)
}

// checkStatelessArgs refuses nil arguments, and a London header without a
// base fee, which go-ethereum's EVM reads without a check.
func checkStatelessArgs(config *params.ChainConfig, block *types.Block, witness *stateless.Witness) error {
	switch {
	case config == nil:
		return nilArgument("chain config")
	case block == nil:
		return nilArgument("block")
	case witness == nil:
		return nilArgument("witness")
	case config.IsLondon(block.Number()) && block.BaseFee() == nil:
		return fmt.Errorf("block %d: invalid header: no base fee in a London header", block.NumberU64())
	}
	return nil
}

// executeStateless is ExecuteStateless up to the roots.
func executeStateless(ctx context.Context, config *params.ChainConfig, vmConfig vm.Config, block *types.Block, witness *stateless.Witness) (*statelessRun, *core.ProcessResult, error) {
	if err := checkStatelessArgs(config, block, witness); err != nil {
		return nil, nil, err
	}
	run, err := loadStateless(config, witness)
	if err != nil {
		return nil, nil, err
	}
	res, err := run.execute(ctx, block, vmConfig)
	if err != nil {
		return nil, nil, err
	}
	return run, res, nil
}

// statelessRun is ExecuteStateless's work in its three phases, which its
// benchmark times apart: loading the witness (loadStateless), executing the
// block (execute) and hashing the post-state (roots).
type statelessRun struct {
	ws      *witnessState
	statedb *state.StateDB
}

// loadStateless hashes the witness's nodes and codes and opens the parent's
// state on them.
func loadStateless(config *params.ChainConfig, witness *stateless.Witness) (*statelessRun, error) {
	ws, err := newWitnessState(config, witness)
	if err != nil {
		return nil, err
	}
	statedb, err := state.New(ws.root, ws)
	if err != nil {
		return nil, err
	}
	return &statelessRun{ws: ws, statedb: statedb}, nil
}

// execute runs block on the state with go-ethereum's StateProcessor and
// validates what a stateless validation checks.
func (r *statelessRun) execute(ctx context.Context, block *types.Block, vmConfig vm.Config) (*core.ProcessResult, error) {
	res, err := core.NewStateProcessor(r.ws).Process(ctx, block, r.statedb, nil, nil, vmConfig, nil)
	if err == nil {
		err = core.NewBlockValidator(r.ws.config, nil).ValidateState(block, r.statedb, res, true)
	}
	if err != nil {
		return nil, r.ws.explain(err, r.statedb)
	}
	return res, nil
}

// roots hashes the post-state and the receipts.
func (r *statelessRun) roots(block *types.Block, res *core.ProcessResult) (stateRoot, receiptRoot common.Hash, err error) {
	receiptRoot = DeriveSha(res.Receipts)
	stateRoot = r.statedb.IntermediateRoot(r.ws.config.Rules(block.Number(), block.Difficulty().Sign() == 0, block.Time()))
	if err := r.ws.explain(nil, r.statedb); err != nil {
		return common.Hash{}, common.Hash{}, err
	}
	return stateRoot, receiptRoot, nil
}

// DecodeWitness decodes an execution witness in either of go-ethereum's
// wire forms: the RLP of a stateless.ExtWitness (what
// engine_executeStatelessPayload carries), or the JSON that
// debug_executionWitness returns (a JSON-RPC response's "result" too).
// Leading and trailing white space is ignored.
func DecodeWitness(data []byte) (*stateless.Witness, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: no data", ErrWitness)
	}
	var ext stateless.ExtWitness
	if data[0] == '{' {
		// One pass reads either form: the witness's own fields, or a
		// JSON-RPC response's result.
		var doc struct {
			stateless.ExtWitness
			Result *stateless.ExtWitness `json:"result"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%w: JSON: %w", ErrWitness, err)
		}
		ext = doc.ExtWitness
		if doc.Result != nil {
			ext = *doc.Result
		}
	} else if err := rlp.DecodeBytes(data, &ext); err != nil {
		return nil, fmt.Errorf("%w: RLP: %w", ErrWitness, err)
	}
	for i, h := range ext.Headers {
		if h == nil || h.Number == nil || h.Difficulty == nil {
			return nil, fmt.Errorf("%w: header %d is incomplete", ErrWitness, i)
		}
	}
	w := new(stateless.Witness)
	if err := w.FromExtWitness(&ext); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWitness, err)
	}
	return w, nil
}

// WitnessNodes returns the trie nodes of an execution witness as a
// go-ethereum node database, each node hashed once, in batches, and looked
// up by hash whatever the state root, owner or path: the database over a
// witness's nodes that AccessListStateRoot and OpenSecureTrie take. A node
// the witness lacks is not found (no blob, no error), as go-ethereum's
// readers report it. A nil witness has no nodes.
func WitnessNodes(w *stateless.Witness) database.NodeDatabase {
	return witnessNodes{witnessSource(w)}
}

// witnessSource returns the trie nodes of w keyed by their hashes, each
// hashed once, in batches.
func witnessSource(w *stateless.Witness) triehash.NodeSource {
	if w == nil {
		return triehash.NewProofSource(nil)
	}
	nodes := make([][]byte, 0, len(w.State))
	for node := range w.State {
		nodes = append(nodes, []byte(node))
	}
	return triehash.NewProofSource(nodes)
}

// witnessNodes is a node database over a witness's nodes, and its own
// reader for every state root.
type witnessNodes struct{ src triehash.NodeSource }

func (w witnessNodes) NodeReader(common.Hash) (database.NodeReader, error) { return w, nil }

func (w witnessNodes) Node(_ common.Hash, path []byte, hash common.Hash) ([]byte, error) {
	blob, _ := w.src.Node(path, hash) // nil when missing
	return blob, nil
}

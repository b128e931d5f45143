package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/pathdb"

	"github.com/keccakroot/keccakroot/adapter"
)

// recentHeaders is how many headers a replayer keeps back from the head:
// BLOCKHASH reaches 256 blocks back.
const recentHeaders = 300

// replayer executes blocks in order with go-ethereum's StateProcessor on one
// or two state databases (keccakroot's, and go-ethereum's own with --geth),
// each over a path-scheme trie database of its own, and validates each as
// core.BlockChain does after execution. It is the chain context of the
// processor: the last recentHeaders headers it executed, the head last.
type replayer struct {
	config   *params.ChainConfig
	engine   consensus.Engine
	recent   [recentHeaders]knownHeader // by number modulo recentHeaders
	head     *types.Header
	headHash common.Hash
	sides    []*replaySide // keccakroot's first
}

// knownHeader is a header the replayer executed, with its hash and its
// block's uncles (which the next blocks may not include again).
type knownHeader struct {
	header *types.Header
	hash   common.Hash
	uncles []*types.Header
}

// replaySide is one state database of a replay and the time it spent.
type replaySide struct {
	name  string
	disk  ethdb.Database
	tdb   *triedb.Database
	sdb   state.Database
	times replayTimes
}

// replayTimes splits a side's time: executing the transactions, the
// state hash (ValidateState, which hashes the state last), and the commit
// into the trie database.
type replayTimes struct {
	Execution seconds `json:"execution"`
	StateHash seconds `json:"stateHash"`
	Commit    seconds `json:"commit"`
}

func (t replayTimes) total() time.Duration {
	return time.Duration(t.Execution) + time.Duration(t.StateHash) + time.Duration(t.Commit)
}

// newReplayer commits genesis on each side: keccakroot's, and go-ethereum's
// too with geth. With a datadir, each side's state goes into a pebble store
// of its own under it; otherwise into memory. cacheMB, if not zero, is the
// size of keccakroot's node cache in MiB.
func newReplayer(genesis *core.Genesis, geth bool, datadir string, cacheMB int) (*replayer, error) {
	r := &replayer{config: genesis.Config, engine: beacon.New(ethash.NewFaker())}
	names := []string{"keccakroot"}
	if geth {
		names = append(names, "go-ethereum")
	}
	for _, name := range names {
		disk := rawdb.NewMemoryDatabase()
		if datadir != "" {
			kv, err := pebble.New(datadir+"/"+name, 512, 256, "", false)
			if err != nil {
				return nil, inputError(fmt.Errorf("--datadir: %w", err))
			}
			disk = rawdb.NewDatabase(kv)
		}
		tdb := triedb.NewDatabase(disk, &triedb.Config{PathDB: pathdb.Defaults})
		block, err := genesis.Commit(disk, tdb, nil)
		if err != nil {
			return nil, fmt.Errorf("the genesis: %w", err)
		}
		var sdb state.Database = state.NewMPTDatabase(tdb, state.NewCodeDB(disk))
		if name == "keccakroot" {
			sdb = adapter.NewStateDatabaseWithNodeCache(sdb, adapter.NewNodeCache(cacheMB<<20))
		}
		r.sides = append(r.sides, &replaySide{name: name, disk: disk, tdb: tdb, sdb: sdb})
		r.advance(block)
	}
	return r, nil
}

// close closes the sides' stores.
func (r *replayer) close() {
	for _, s := range r.sides {
		s.tdb.Close()
		s.disk.Close()
	}
}

// Config, Engine and the header lookups make the replayer the chain
// context of go-ethereum's StateProcessor.
func (r *replayer) Config() *params.ChainConfig  { return r.config }
func (r *replayer) Engine() consensus.Engine     { return r.engine }
func (r *replayer) CurrentHeader() *types.Header { return r.head }
func (r *replayer) GetHeaderByHash(hash common.Hash) *types.Header {
	for _, k := range r.recent {
		if k.header != nil && k.hash == hash {
			return k.header
		}
	}
	return nil
}
func (r *replayer) GetHeader(hash common.Hash, number uint64) *types.Header {
	if k := r.recent[number%recentHeaders]; k.header != nil && k.hash == hash && k.header.Number.Uint64() == number {
		return k.header
	}
	return nil
}
func (r *replayer) GetHeaderByNumber(number uint64) *types.Header {
	if k := r.recent[number%recentHeaders]; k.header != nil && k.header.Number.Uint64() == number {
		return k.header
	}
	return nil
}

// GetBlock returns a recent block with its uncles alone, which is all the
// consensus engine's check of a block's uncles reads of its ancestors.
func (r *replayer) GetBlock(hash common.Hash, number uint64) *types.Block {
	header := r.GetHeader(hash, number)
	if header == nil {
		return nil
	}
	return types.NewBlockWithHeader(header).WithBody(types.Body{Uncles: r.recent[number%recentHeaders].uncles})
}

// advance makes block the head, in place of the header recentHeaders
// below it.
func (r *replayer) advance(block *types.Block) {
	r.head, r.headHash = block.Header(), block.Hash()
	r.recent[r.head.Number.Uint64()%recentHeaders] = knownHeader{header: r.head, hash: r.headHash, uncles: block.Uncles()}
}

// blockFailure is a block that failed a check: on which side, and why.
type blockFailure struct {
	side   string
	reason string
	// roots are the state roots each side computed, where they differ
	// from the header's.
	roots map[string]common.Hash
}

func (f *blockFailure) Error() string { return f.side + ": " + f.reason }

// execute checks block as go-ethereum's import does before executing it
// (its link to the head, its header against the head and its uncles
// against its ancestors by the consensus engine, its body against its
// header), runs it on every side and makes it
// the head. A block that fails is a *blockFailure: of the "chain" if it
// fails a check before execution or on every side, else of the side it
// fails on; with two sides, both must reach the same state root.
func (r *replayer) execute(block *types.Block) error {
	parent := r.head
	if block.ParentHash() != r.headHash {
		return &blockFailure{side: "chain", reason: fmt.Sprintf("parent %x is not the block before (%x)", block.ParentHash(), r.headHash)}
	}
	if err := r.engine.VerifyHeader(r, block.Header()); err != nil {
		return &blockFailure{side: "chain", reason: "invalid header: " + err.Error()}
	}
	if err := r.engine.VerifyUncles(r, block); err != nil {
		return &blockFailure{side: "chain", reason: "invalid uncles: " + err.Error()}
	}
	if err := adapter.ValidateBody(r.config, block); err != nil {
		return &blockFailure{side: "chain", reason: err.Error()}
	}
	roots := map[string]common.Hash{}
	var failure *blockFailure
	failed := 0
	for i := range r.sides {
		// The sides take turns going first, so that neither always meets
		// the caches the other left.
		side := r.sides[(i+int(block.NumberU64()%2))%len(r.sides)]
		root, err := r.run(side, parent, block)
		if root != (common.Hash{}) {
			roots[side.name] = root
		}
		if err != nil {
			failed++
			if failure == nil {
				failure = &blockFailure{side: side.name, reason: err.Error()}
			}
		}
	}
	switch {
	case failure != nil && failed == len(r.sides) && len(r.sides) > 1:
		failure.side = "chain" // both implementations refuse it
	case failure == nil && len(r.sides) > 1 && roots["keccakroot"] != roots["go-ethereum"]:
		failure = &blockFailure{side: "keccakroot", reason: "a state root other than go-ethereum's"}
	}
	if failure != nil {
		failure.roots = roots
		return failure
	}
	r.advance(block)
	return nil
}

// run executes block on side as core.BlockChain does: a StateDB on the
// parent's root with the trie prefetcher on, go-ethereum's StateProcessor,
// ValidateState (gas used, bloom, receipts root, requests, block access
// list, state root) and Commit. It returns the state root computed, zero
// if the execution failed before one was.
func (r *replayer) run(side *replaySide, parent *types.Header, block *types.Block) (common.Hash, error) {
	start := time.Now()
	statedb, err := state.New(parent.Root, side.sdb)
	if err != nil {
		return common.Hash{}, fmt.Errorf("opening the parent's state %x: %w", parent.Root, err)
	}
	statedb.StartPrefetcher("replay", nil)
	defer statedb.StopPrefetcher()
	res, err := core.NewStateProcessor(r).Process(context.Background(), block, statedb, nil, nil, vm.Config{}, nil)
	executed := time.Now()
	side.times.Execution += seconds(executed.Sub(start))
	if err != nil {
		return common.Hash{}, withStateError(err, statedb)
	}
	err = core.NewBlockValidator(r.config, nil).ValidateState(block, statedb, res, false)
	validated := time.Now()
	side.times.StateHash += seconds(validated.Sub(executed))
	rules := r.config.Rules(block.Number(), block.Difficulty().Sign() == 0, block.Time())
	if err != nil {
		return statedb.IntermediateRoot(rules), withStateError(err, statedb)
	}
	root, err := statedb.Commit(rules, block.NumberU64())
	side.times.Commit += seconds(time.Since(validated))
	if err != nil {
		return root, fmt.Errorf("commit: %w", err)
	}
	return root, nil
}

// withStateError adds the StateDB's first database error, which may have
// made the block fail another check first.
func withStateError(err error, statedb *state.StateDB) error {
	if dbErr := statedb.Error(); dbErr != nil {
		return fmt.Errorf("%w; state error: %w", err, dbErr)
	}
	return err
}

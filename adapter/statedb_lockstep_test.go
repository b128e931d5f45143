package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/state/snapshot"
	"github.com/ethereum/go-ethereum/core/stateless"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"
)

// A lockstep executes blocks with go-ethereum's StateProcessor twice, on
// go-ethereum's own state database and on NewStateDatabase over a database
// of its own, each block on its parent's state, and checks after each
// block that both reach the header's state root, commit the same node set
// (owner by owner, path by path, leaves included), and, when asked, build
// the same witness.
type lockstep struct {
	t       testing.TB
	config  *params.ChainConfig
	engine  consensus.Engine
	headers map[common.Hash]*types.Header
	head    *types.Header
	mode    lockstepMode
	geth    *stateSide
	ours    *stateSide
	// seen counts what the committed node sets held: "storage trie
	// removed" for a storage trie whose root node was deleted (a
	// destroyed account, or one whose every slot was cleared), "storage
	// trie changed", "account trie changed".
	seen map[string]int
}

// lockstepMode is how a lockstep sets up each block's StateDB.
type lockstepMode struct {
	scheme   int  // index into schemes
	snapshot bool // a snapshot tree beside the trie database (hash scheme)
	// warm sets up the StateDB as core.BlockChain does with its
	// prefetching reader (ReadersWithCacheStats); otherwise state.New.
	warm bool
	// witness builds each block's witness on both sides, checks that they
	// hold the same nodes, and has go-ethereum's ExecuteStateless verify
	// the block from keccakroot's witness.
	witness bool
	// nodeCache, if not zero, is the size of a NodeCache that keccakroot's
	// side reads and commits through (NewStateDatabaseWithNodeCache).
	nodeCache int
}

func (m lockstepMode) String() string {
	s := schemes[m.scheme].name
	if m.snapshot {
		s += "+snapshot"
	}
	if m.warm {
		s += "+warm"
	}
	if m.witness {
		s += "+witness"
	}
	if m.nodeCache != 0 {
		s += "+nodecache"
	}
	return s
}

// stateSide is one side of a lockstep: a key-value store, a trie database
// over it and a state database over that.
type stateSide struct {
	name string
	disk ethdb.Database
	tdb  *triedb.Database
	sdb  state.Database
}

// newLockstep commits genesis on both sides.
func newLockstep(t testing.TB, genesis *core.Genesis, engine consensus.Engine, mode lockstepMode) *lockstep {
	t.Helper()
	l := &lockstep{t: t, config: genesis.Config, engine: engine, headers: map[common.Hash]*types.Header{}, mode: mode, seen: map[string]int{}}
	for _, wrap := range []bool{false, true} {
		disk := rawdb.NewMemoryDatabase()
		tdb := triedb.NewDatabase(disk, schemes[mode.scheme].config)
		block, err := genesis.Commit(disk, tdb, nil)
		if err != nil {
			t.Fatalf("committing the genesis: %v", err)
		}
		mpt := state.NewMPTDatabase(tdb, state.NewCodeDB(disk))
		var sdb state.Database = mpt
		if mode.snapshot {
			snaps, err := snapshot.New(snapshot.Config{CacheSize: 16, NoBuild: false, AsyncBuild: false}, disk, tdb, block.Root())
			if err != nil {
				t.Fatalf("snapshot: %v", err)
			}
			sdb = mpt.WithSnapshot(snaps)
		}
		side := &stateSide{name: "go-ethereum", disk: disk, tdb: tdb, sdb: sdb}
		if wrap {
			side.name, side.sdb = "keccakroot", NewStateDatabaseWithNodeCache(sdb, NewNodeCache(mode.nodeCache))
			l.ours = side
		} else {
			l.geth = side
		}
		l.head = block.Header()
	}
	l.headers[l.head.Hash()] = l.head
	return l
}

// The chain context of the StateProcessor: the headers executed so far.
func (l *lockstep) Config() *params.ChainConfig                 { return l.config }
func (l *lockstep) Engine() consensus.Engine                    { return l.engine }
func (l *lockstep) CurrentHeader() *types.Header                { return l.head }
func (l *lockstep) GetHeaderByHash(h common.Hash) *types.Header { return l.headers[h] }
func (l *lockstep) GetHeader(h common.Hash, number uint64) *types.Header {
	if hd := l.headers[h]; hd != nil && hd.Number.Uint64() == number {
		return hd
	}
	return nil
}
func (l *lockstep) GetHeaderByNumber(number uint64) *types.Header {
	for h := l.head; h != nil; h = l.headers[h.ParentHash] {
		if h.Number.Uint64() == number {
			return h
		}
	}
	return nil
}

// blockRun is what one side made of a block.
type blockRun struct {
	root    common.Hash
	nodes   *trienode.MergedNodeSet
	witness *stateless.Witness
}

// execute runs block on both sides and compares them; an error is a
// block one side rejected, the same on both or the test fails.
func (l *lockstep) execute(block *types.Block) error {
	l.t.Helper()
	parent := l.headers[block.ParentHash()]
	if parent == nil {
		return fmt.Errorf("block %d: unknown parent %x", block.NumberU64(), block.ParentHash())
	}
	want, wantErr := l.run(l.geth, parent, block)
	got, gotErr := l.run(l.ours, parent, block)
	if (wantErr == nil) != (gotErr == nil) {
		l.t.Fatalf("%v block %d: keccakroot: %v; go-ethereum: %v", l.mode, block.NumberU64(), gotErr, wantErr)
	}
	if wantErr != nil {
		return wantErr
	}
	if got.root != block.Root() || want.root != block.Root() {
		l.t.Fatalf("%v block %d: state root %x, go-ethereum %x, header %x", l.mode, block.NumberU64(), got.root, want.root, block.Root())
	}
	if err := sameMergedNodeSet(got.nodes, want.nodes); err != nil {
		l.t.Fatalf("%v block %d: %v", l.mode, block.NumberU64(), err)
	}
	countCommitted(l.seen, want.nodes)
	if l.mode.witness {
		l.checkWitness(block, got.witness, want.witness)
	}
	l.headers[block.Hash()] = block.Header()
	if block.NumberU64() > l.head.Number.Uint64() {
		l.head = block.Header()
	}
	return nil
}

// countCommitted counts in seen what a committed node set held: "account
// trie changed", "storage trie removed" for a storage trie whose root node
// was deleted, "storage trie changed" for the others.
func countCommitted(seen map[string]int, nodes *trienode.MergedNodeSet) {
	for owner, set := range nodes.Sets {
		switch root := set.Nodes[""]; {
		case owner == (common.Hash{}):
			seen["account trie changed"]++
		case root != nil && root.IsDeleted():
			seen["storage trie removed"]++
		default:
			seen["storage trie changed"]++
		}
	}
}

// run executes block on side as core.BlockChain does: a StateDB on the
// parent's root with the trie prefetcher on, go-ethereum's StateProcessor
// (which takes its parallel path for an Amsterdam block with an access
// list when no witness is built), ValidateState, and a Commit into the
// trie database.
func (l *lockstep) run(side *stateSide, parent *types.Header, block *types.Block) (blockRun, error) {
	var statedb *state.StateDB
	var err error
	if l.mode.warm {
		warmer, ok := side.sdb.(cacheStatsReaders)
		if !ok {
			l.t.Fatalf("%s database has no ReadersWithCacheStats", side.name)
		}
		_, process, rerr := warmer.ReadersWithCacheStats(parent.Root)
		if rerr != nil {
			return blockRun{}, rerr
		}
		statedb, err = state.NewWithReader(parent.Root, side.sdb, process)
	} else {
		statedb, err = state.New(parent.Root, side.sdb)
	}
	if err != nil {
		return blockRun{}, err
	}
	var witness *stateless.Witness
	if l.mode.witness {
		if witness, err = stateless.NewWitness(block.Header(), l, false); err != nil {
			return blockRun{}, err
		}
	}
	statedb.StartPrefetcher("lockstep", witness)
	defer statedb.StopPrefetcher()
	res, err := core.NewStateProcessor(l).Process(context.Background(), block, statedb, nil, nil, vm.Config{}, nil)
	if err == nil {
		err = core.NewBlockValidator(l.config, nil).ValidateState(block, statedb, res, false)
	}
	if err != nil {
		// StateDB records the first error of its tries and readers, which
		// may have made the block fail in another way first.
		if dbErr := statedb.Error(); dbErr != nil {
			err = fmt.Errorf("%w; state error: %w", err, dbErr)
		}
		return blockRun{}, err
	}
	rules := l.config.Rules(block.Number(), block.Difficulty().Sign() == 0, block.Time())
	root, update, err := statedb.CommitWithUpdate(rules, block.NumberU64())
	if err != nil {
		return blockRun{}, err
	}
	if _, ours := statedb.GetTrie().(*SecureTrie); ours != (side == l.ours) {
		l.t.Fatalf("%s state database: the StateDB's account trie is a %T", side.name, statedb.GetTrie())
	}
	return blockRun{root: root, nodes: update.Nodes, witness: witness}, nil
}

// checkWitness compares the witnesses both sides built for block, and has
// go-ethereum's stateless execution verify the block from keccakroot's.
func (l *lockstep) checkWitness(block *types.Block, got, want *stateless.Witness) {
	l.t.Helper()
	if err := sameWitnessNodes(got, want); err != nil {
		l.t.Fatalf("%v block %d: %v", l.mode, block.NumberU64(), err)
	}
	stateRoot, receiptRoot, err := core.ExecuteStateless(context.Background(), l.config, vm.Config{}, block, got)
	if err != nil {
		l.t.Fatalf("%v block %d: go-ethereum's stateless execution on the witness: %v", l.mode, block.NumberU64(), err)
	}
	if stateRoot != block.Root() || receiptRoot != block.ReceiptHash() {
		l.t.Fatalf("%v block %d: stateless execution gives roots %x and %x, header %x and %x", l.mode, block.NumberU64(), stateRoot, receiptRoot, block.Root(), block.ReceiptHash())
	}
	// keccakroot's stateless execution, on the witness and on its two wire
	// forms decoded.
	witnesses := []*stateless.Witness{got}
	if block.NumberU64()%10 == 0 {
		witnesses = append(witnesses, wireWitnesses(l.t, got)...)
	}
	if list := block.AccessList(); list != nil {
		root, err := AccessListStateRoot(got.Root(), list, WitnessNodes(got))
		if err != nil || root != block.Root() {
			l.t.Fatalf("%v block %d: AccessListStateRoot on the witness's nodes: %x, %v; header %x", l.mode, block.NumberU64(), root, err, block.Root())
		}
	}
	for _, w := range witnesses {
		stateRoot, receiptRoot, err := ExecuteStateless(context.Background(), l.config, vm.Config{}, block, w)
		if err != nil || stateRoot != block.Root() || receiptRoot != block.ReceiptHash() {
			l.t.Fatalf("%v block %d: ExecuteStateless gives roots %x and %x, %v; header %x and %x", l.mode, block.NumberU64(), stateRoot, receiptRoot, err, block.Root(), block.ReceiptHash())
		}
	}
}

// sameWitnessNodes compares the trie nodes of two witnesses as sets.
func sameWitnessNodes(got, want *stateless.Witness) error {
	for node := range want.State {
		if _, ok := got.State[node]; !ok {
			return fmt.Errorf("the witness lacks node %x that go-ethereum's has", Keccak256([]byte(node)))
		}
	}
	if len(got.State) != len(want.State) {
		return fmt.Errorf("the witness has %d nodes, go-ethereum's %d", len(got.State), len(want.State))
	}
	return nil
}

// wireWitnesses returns w through its two wire forms, the RLP of its
// ExtWitness and the JSON of debug_executionWitness (as a JSON-RPC
// response), each decoded by DecodeWitness.
func wireWitnesses(t testing.TB, w *stateless.Witness) []*stateless.Witness {
	t.Helper()
	enc, err := rlp.EncodeToBytes(w)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": w.ToExtWitness()})
	if err != nil {
		t.Fatal(err)
	}
	var out []*stateless.Witness
	for _, data := range [][]byte{enc, js} {
		decoded, err := DecodeWitness(data)
		if err != nil {
			t.Fatalf("DecodeWitness: %v", err)
		}
		out = append(out, decoded)
	}
	return out
}

// sameMergedNodeSet compares two merged node sets owner by owner with
// sameNodeSet, and their leaves as sets (go-ethereum's order of leaves
// depends on its goroutines).
func sameMergedNodeSet(got, want *trienode.MergedNodeSet) error {
	if len(got.Sets) != len(want.Sets) {
		return fmt.Errorf("node sets of %d tries, go-ethereum %d", len(got.Sets), len(want.Sets))
	}
	for owner, w := range want.Sets {
		g := got.Sets[owner]
		if err := sameNodeSet(g, w); err != nil {
			return fmt.Errorf("trie of owner %x: %w", owner, err)
		}
		if err := sameLeaves(g, w); err != nil {
			return fmt.Errorf("trie of owner %x: %w", owner, err)
		}
	}
	return nil
}

// sameLeaves compares the leaves of two node sets, in any order.
func sameLeaves(got, want *trienode.NodeSet) error {
	key := func(set *trienode.NodeSet) []string {
		var keys []string
		for _, leaf := range set.Leaves {
			keys = append(keys, string(leaf.Parent[:])+string(leaf.Blob))
		}
		slices.Sort(keys)
		return keys
	}
	g, w := key(got), key(want)
	if len(g) != len(w) {
		return fmt.Errorf("%d leaves, go-ethereum %d", len(g), len(w))
	}
	for i := range w {
		if !bytes.Equal([]byte(g[i]), []byte(w[i])) {
			return fmt.Errorf("leaf %x, go-ethereum %x", g[i], w[i])
		}
	}
	return nil
}

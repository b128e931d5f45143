package adapter

import (
	"context"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/database"

	"github.com/keccakroot/keccakroot/internal/benchturns"
)

// benchProcs are the GOMAXPROCS values the StateDB benchmark runs at.
var benchProcs = []int{1, 2}

// BenchmarkStateDBBlock times go-ethereum's StateDB on go-ethereum's state
// database and on NewStateDatabase, taking turns (benchturns) on the same
// pebble store, for each scheme, with the trie database's caches of
// go-ethereum's core.DefaultConfig (clientTrieConfig), a fresh block each
// round (2,000 accounts, 5,000 slots, new accounts and cleared slots among
// them), at GOMAXPROCS 1 and 2:
//
//   - op=hash: the block's changes are made untimed with the trie
//     prefetcher on, then IntermediateRoot is timed, loading the nodes the
//     prefetcher has not;
//   - op=hash+commit: the same, IntermediateRoot then Commit into the trie
//     database's memory, as a client does each block;
//   - op=block: the whole block, its transactions (a transfer to each
//     account, calls writing the slots) executed by go-ethereum's EVM, then
//     IntermediateRoot and Commit; every receipt is checked to succeed;
//   - op=accesslist: the post-state root from the block's access list,
//     StateDB.ApplyBlockAccessList and IntermediateRoot against
//     AccessListStateRoot.
//
// Both roots are checked against each other every round. Reported per
// block: each side's time, the split go-ethereum's StateDB times itself,
// and the bytes each side allocates during its timed part.
//
// With KECCAKROOT_STATE_LAYERS=n the rounds build on the head of a chain of
// n blocks (see benchHead): 128 is a client at the head of its chain;
// op=accesslist's keccakroot side rolls its chain forward from access lists
// (AccessListStateUpdate) through its node cache. With
// KECCAKROOT_STATE_NODE_CACHE_MB=m keccakroot's side of the first three ops
// is a NewStateDatabaseWithNodeCache with a NodeCache of m MiB (default:
// none); op=accesslist has its own cache (see benchAccessListTurns).
func BenchmarkStateDBBlock(b *testing.B) {
	for _, scheme := range []string{rawdb.HashScheme, rawdb.PathScheme} {
		b.Run("scheme="+scheme, func(b *testing.B) {
			s, err := benchStates[scheme]()
			if err != nil {
				b.Fatal(err)
			}
			for _, op := range []string{"hash", "hash+commit", "block"} {
				benchturns.AtProcs(b, "op="+op, benchProcs, func(b *testing.B) { benchStateDBTurns(b, s, op) })
			}
			benchturns.AtProcs(b, "op=accesslist", benchProcs, func(b *testing.B) { benchAccessListTurns(b, s) })
		})
	}
}

// benchTrieDatabases opens n trie databases over the state's store with a
// client's caches, closed when b ends.
func benchTrieDatabases(b *testing.B, s *benchStateDB, n int) []*triedb.Database {
	tdbs := make([]*triedb.Database, n)
	for i := range tdbs {
		tdbs[i] = triedb.NewDatabase(s.disk, clientTrieConfig(s.scheme))
	}
	b.Cleanup(func() {
		for _, tdb := range tdbs {
			tdb.Close()
		}
	})
	return tdbs
}

// accessList returns the block's changes as an EIP-7928 access list, each
// change made by the block's first transaction.
func (blk *stateBlock) accessList() *bal.BlockAccessList {
	list := bal.NewConstructionBlockAccessList()
	for addr, balance := range blk.balances {
		list.BalanceChange(1, addr, balance)
	}
	for addr, slots := range blk.slots {
		for slot, value := range slots {
			list.StorageWrite(1, addr, slot, value)
		}
	}
	return list.ToEncodingObj()
}

// benchAccessListTurns times the post-state root of a block from its access
// list: go-ethereum's StateDB.ApplyBlockAccessList then IntermediateRoot,
// with the trie prefetcher on, against AccessListStateRoot on a
// CachedNodeDatabase whose NodeCache (64 MiB, or KECCAKROOT_NODE_CACHE_MB)
// lasts from block to block as a client's would, a fresh block each round,
// the roots checked against each other.
func benchAccessListTurns(b *testing.B, s *benchStateDB) {
	tdbs := benchTrieDatabases(b, s, 2)
	cacheMB := 64
	if mb := envInt("KECCAKROOT_NODE_CACHE_MB"); mb > 0 {
		cacheMB = mb
	}
	cached := CachedNodeDatabase(tdbs[1], NewNodeCache(cacheMB<<20))
	sdb := state.NewDatabase(tdbs[0], state.NewCodeDB(s.disk))
	// keccakroot's side rolls its chain forward from the blocks' access
	// lists through its cache, as a client syncing that way does.
	parent, _ := benchHead(b, s, []headBuilder{stateDBHead(sdb), accessListHead(cached, state.NewDatabase(tdbs[1], state.NewCodeDB(s.disk)))})
	var (
		round uint64
		list  *bal.BlockAccessList
		roots sideRoots
		alloc allocCounter
	)
	newRound := func() {
		alloc.stop()
		round++
		list = newStateBlock(s, round, 2000, 5000).accessList()
		roots.reset()
	}
	turns := []benchturns.Turn{
		{
			Prepare: func() { alloc.stop(); alloc.start(0) },
			Call: func(int) {
				statedb, err := state.New(parent, sdb)
				if err != nil {
					b.Fatal(err)
				}
				statedb.StartPrefetcher("bench", nil)
				if err := statedb.ApplyBlockAccessList(list); err != nil {
					b.Fatal(err)
				}
				roots.set(b, round, 0, statedb.IntermediateRoot(benchRules))
				statedb.StopPrefetcher()
			},
		},
		{
			Prepare: func() { alloc.stop(); alloc.start(1) },
			Call: func(int) {
				root, err := AccessListStateRoot(parent, list, cached)
				if err != nil {
					b.Fatal(err)
				}
				roots.set(b, round, 1, root)
			},
		},
	}
	perBlock := benchturns.MeasureRounds(b, 1, newRound, turns)
	alloc.stop()
	for i, name := range []string{"geth", "keccakroot"} {
		b.ReportMetric(perBlock[i]/1e6, "ms/block-"+name)
		alloc.report(b, i, name)
	}
	b.ReportMetric(perBlock[0]/perBlock[1], "speedup")
}

// benchStateDBTurns is BenchmarkStateDBBlock for op hash, hash+commit or
// block.
func benchStateDBTurns(b *testing.B, s *benchStateDB, op string) {
	names := []string{"geth", "keccakroot"}
	tdbs := benchTrieDatabases(b, s, 2)
	dbs := make([]state.Database, 2)
	for i := range dbs {
		dbs[i] = state.NewDatabase(tdbs[i], state.NewCodeDB(s.disk))
	}
	cache := NewNodeCache(envInt("KECCAKROOT_STATE_NODE_CACHE_MB") << 20)
	dbs[1] = NewStateDatabaseWithNodeCache(dbs[1], cache)
	parent, number := benchHead(b, s, []headBuilder{stateDBHead(dbs[0]), stateDBHead(dbs[1])})
	hits0, misses0 := cache.Stats() // the chain's, before the rounds
	var (
		round   uint64
		blk     *stateBlock
		txs     types.Transactions
		statedb [2]*state.StateDB
		roots   sideRoots
		split   [2]stateDBSplit
		alloc   allocCounter
	)
	commit := op != "hash"
	newRound := func() {
		alloc.stop()
		round++
		blk = newStateBlock(s, round, 2000, 5000)
		if op == "block" {
			var err error
			if txs, err = blk.transactions(s); err != nil {
				b.Fatal(err)
			}
		}
		roots.reset()
	}
	turn := func(impl int) benchturns.Turn {
		return benchturns.Turn{
			Prepare: func() {
				alloc.stop()
				if last := roots.roots[impl]; commit && s.scheme == rawdb.HashScheme && last != (common.Hash{}) {
					tdbs[impl].Dereference(last)
				}
				sdb, err := state.New(parent, dbs[impl])
				if err != nil {
					b.Fatal(err)
				}
				sdb.StartPrefetcher("bench", nil)
				if op != "block" {
					blk.apply(sdb)
				}
				statedb[impl] = sdb
				alloc.start(impl)
			},
			Call: func(int) {
				if op == "block" {
					start := time.Now()
					executeBenchBlock(b, statedb[impl], parent, txs)
					split[impl].execution += time.Since(start)
				}
				root := statedb[impl].IntermediateRoot(benchRules)
				if commit {
					var err error
					if root, err = statedb[impl].Commit(benchRules, number+1); err != nil {
						b.Fatal(err)
					}
				}
				statedb[impl].StopPrefetcher()
				split[impl].add(statedb[impl])
				roots.set(b, round, impl, root)
			},
		}
	}
	perBlock := benchturns.MeasureRounds(b, 1, newRound, []benchturns.Turn{turn(0), turn(1)})
	alloc.stop()
	for i, name := range names {
		b.ReportMetric(perBlock[i]/1e6, "ms/block-"+name)
	}
	b.ReportMetric(perBlock[0]/perBlock[1], "speedup")
	for i, name := range names {
		split[i].report(b, name, commit)
		alloc.report(b, i, name)
	}
	if hits, misses := cache.Stats(); hits+misses > hits0+misses0 { // a nil cache counts none
		// The share of keccakroot's node reads the cache answered.
		b.ReportMetric(float64(hits-hits0)/float64(hits+misses-hits0-misses0), "cache-hits")
	}
}

// executeBenchBlock runs txs on statedb with go-ethereum's EVM, as
// core.StateProcessor runs a block's transactions, and fails b unless
// every one succeeds.
func executeBenchBlock(b *testing.B, statedb *state.StateDB, parent common.Hash, txs types.Transactions) {
	header := benchBlockHeader(parent)
	evm := vm.NewEVM(core.NewEVMBlockContext(header, nil, &header.Coinbase), statedb, benchChainConfig, vm.Config{})
	gp := core.NewGasPool(header.GasLimit)
	for i, tx := range txs {
		statedb.SetTxContext(tx.Hash(), i, uint32(i+1))
		receipt, _, err := core.ApplyTransaction(context.Background(), evm, gp, statedb, header, tx)
		if err != nil {
			b.Fatalf("transaction %d: %v", i, err)
		}
		if receipt.Status != types.ReceiptStatusSuccessful {
			b.Fatalf("transaction %d failed (gas used %d of %d)", i, receipt.GasUsed, tx.Gas())
		}
	}
}

// stateDBSplit adds up the parts of a block's state work that go-ethereum's
// StateDB times itself, and the execution before them.
type stateDBSplit struct {
	blocks int
	// execution: the transactions (op=block); storage: the storage tries'
	// updates and hashing (StorageUpdates), waiting for their prefetchers
	// included; accounts: the account trie's updates (AccountUpdates),
	// waiting for its prefetcher included; hash: the account trie's Hash
	// (AccountHashes); tries: the tries' Commit, the longer of the account
	// trie's and the slowest storage trie's (they run in parallel);
	// database: the trie database's Update (DatabaseCommits).
	execution, storage, accounts, hash, tries, database time.Duration
}

func (s *stateDBSplit) add(statedb *state.StateDB) {
	s.blocks++
	s.storage += statedb.StorageUpdates
	s.accounts += statedb.AccountUpdates
	s.hash += statedb.AccountHashes
	s.tries += max(statedb.AccountCommits, statedb.StorageCommits)
	s.database += statedb.DatabaseCommits
}

func (s *stateDBSplit) report(b *testing.B, name string, commit bool) {
	if s.blocks == 0 {
		return
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(s.blocks) / 1e6 }
	if s.execution > 0 {
		b.ReportMetric(ms(s.execution), "ms/execution-"+name)
	}
	b.ReportMetric(ms(s.storage), "ms/storage-"+name)
	b.ReportMetric(ms(s.accounts), "ms/accounts-"+name)
	b.ReportMetric(ms(s.hash), "ms/hash-"+name)
	if commit {
		b.ReportMetric(ms(s.tries), "ms/commit-"+name)
		b.ReportMetric(ms(s.database), "ms/database-"+name)
	}
}

// allocCounter adds up the bytes the process allocates while each side's
// turn runs, its trie prefetcher's goroutines included, from the runtime's
// cumulative count (read without stopping the world).
type allocCounter struct {
	since   uint64
	running int // the side counting plus one, 0 for none
	bytes   [2]uint64
	turns   [2]int
}

func heapAllocated() uint64 {
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// start begins counting for side impl; the count goes on after its turn,
// while its prefetcher's goroutines finish, until the next round or turn
// stops it.
func (a *allocCounter) start(impl int) {
	a.since, a.running = heapAllocated(), impl+1
}

// stop ends the count that start began, if any.
func (a *allocCounter) stop() {
	if a.running > 0 {
		impl := a.running - 1
		a.bytes[impl] += heapAllocated() - a.since
		a.turns[impl]++
		a.running = 0
	}
}

func (a *allocCounter) report(b *testing.B, impl int, name string) {
	if a.turns[impl] > 0 {
		b.ReportMetric(float64(a.bytes[impl])/float64(a.turns[impl])/1e6, "MB/block-"+name)
	}
}

// sideRoots are the state roots both sides computed, checked against each
// other once both have in a round (the sides take turns in either order).
// Until a side computes its root of the round, roots holds its root of the
// round before, which the hash scheme's Dereference lets go.
type sideRoots struct {
	roots [2]common.Hash
	done  int // the sides that computed their root this round
}

// reset starts a round.
func (r *sideRoots) reset() { r.done = 0 }

// set records side impl's root and, for the round's second side, fails b
// unless the two are the same.
func (r *sideRoots) set(b *testing.B, round uint64, impl int, root common.Hash) {
	r.roots[impl] = root
	if r.done++; r.done == 2 && r.roots[0] != r.roots[1] {
		b.Fatalf("round %d: keccakroot's root %x, go-ethereum's %x", round, r.roots[1], r.roots[0])
	}
}

// benchHead returns the state root the rounds build on, and its block
// number: the state's own, whose nodes are all in the store, or with
// KECCAKROOT_STATE_LAYERS=n the head of a chain of n blocks like the
// rounds', built on it untimed by each side's builder, as a client at the
// head of its chain has them (the path scheme keeps the last 128 as diff
// layers in memory, which every node read looks through before the store,
// and a node cache holds what the side committed).
func benchHead(b *testing.B, s *benchStateDB, builders []headBuilder) (common.Hash, uint64) {
	n := envInt("KECCAKROOT_STATE_LAYERS")
	head := s.root
	for i, build := range builders {
		root := s.root
		for k := range n {
			var err error
			if root, err = build(root, uint64(k+1), newStateBlock(s, 1<<40+uint64(k), 2000, 5000)); err != nil {
				b.Fatal(err)
			}
		}
		if i > 0 && root != head {
			b.Fatalf("the chains' heads differ: %x and %x", head, root)
		}
		head = root
	}
	return head, uint64(n)
}

// headBuilder commits blk as block number on the state root and returns
// the new root.
type headBuilder func(root common.Hash, number uint64, blk *stateBlock) (common.Hash, error)

// stateDBHead builds a chain with go-ethereum's StateDB on sdb.
func stateDBHead(sdb state.Database) headBuilder {
	return func(root common.Hash, number uint64, blk *stateBlock) (common.Hash, error) {
		statedb, err := state.New(root, sdb)
		if err != nil {
			return common.Hash{}, err
		}
		blk.apply(statedb)
		return statedb.Commit(benchRules, number)
	}
}

// accessListHead builds a chain from the blocks' access lists with
// AccessListStateUpdate on db, committed through sdb.
func accessListHead(db database.NodeDatabase, sdb state.Database) headBuilder {
	return func(root common.Hash, number uint64, blk *stateBlock) (common.Hash, error) {
		update, err := AccessListStateUpdate(root, blk.accessList(), db, number)
		if err != nil {
			return common.Hash{}, err
		}
		return update.Root, sdb.Commit(update)
	}
}

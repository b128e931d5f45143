package adapter

import (
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/internal/benchturns"
)

// benchStateSize is the state of BenchmarkStateDBBlock: accounts in all,
// contracts among them with storageSlots slots each, and bigContracts
// more with bigSlots each. KECCAKROOT_STATE_ACCOUNTS sets the number of
// accounts (a million is the size of the target; the default keeps a run
// of the package's benchmarks short).
type benchStateSize struct {
	accounts, contracts, storageSlots, bigContracts, bigSlots int
}

func stateBenchSize() benchStateSize {
	size := benchStateSize{accounts: 200_000, contracts: 2_000, storageSlots: 10, bigContracts: 2, bigSlots: 100_000}
	if testing.Short() {
		size = benchStateSize{accounts: 5_000, contracts: 100, storageSlots: 10, bigContracts: 1, bigSlots: 2_000}
	}
	if n, err := strconv.Atoi(os.Getenv("KECCAKROOT_STATE_ACCOUNTS")); err == nil && n > 0 {
		size.accounts, size.contracts = n, n/100
	}
	return size
}

// benchStateDB is a state committed into a pebble store on disk, through
// go-ethereum's hash-scheme trie database.
type benchStateDB struct {
	disk      ethdb.Database
	root      common.Hash
	accounts  []common.Address
	contracts []common.Address // the big ones first
}

var benchStateOnce = sync.OnceValues(func() (*benchStateDB, error) {
	return buildBenchState(stateBenchSize())
})

// buildBenchState writes the state of size into a new pebble store.
func buildBenchState(size benchStateSize) (*benchStateDB, error) {
	dir, err := os.MkdirTemp("", "keccakroot-statedb-bench")
	if err != nil {
		return nil, err
	}
	kv, err := pebble.New(dir, 512, 256, "", false)
	if err != nil {
		return nil, err
	}
	s := &benchStateDB{disk: rawdb.NewDatabase(kv)}
	tdb := triedb.NewDatabase(s.disk, triedb.HashDefaults)
	r := rand.New(rand.NewPCG(7, 7))
	merged := trienode.NewMergedNodeSet()
	accounts, err := trie.NewStateTrie(trie.StateTrieID(types.EmptyRootHash), tdb)
	if err != nil {
		return nil, err
	}
	for i := range size.accounts {
		addr := randAddress(r)
		acc := &types.StateAccount{Nonce: uint64(i % 7), Balance: uint256.NewInt(r.Uint64()), Root: types.EmptyRootHash, CodeHash: types.EmptyCodeHash[:]}
		slots := 0
		switch {
		case i < size.bigContracts:
			slots = size.bigSlots
		case i < size.bigContracts+size.contracts:
			slots = size.storageSlots
		}
		if slots > 0 {
			storage, err := trie.NewStateTrie(trie.StorageTrieID(types.EmptyRootHash, Keccak256Hash(addr[:]), types.EmptyRootHash), tdb)
			if err != nil {
				return nil, err
			}
			for range slots {
				slot := randHash(r)
				if err := storage.UpdateStorage(addr, slot[:], randHash(r).Bytes()[r.IntN(31):]); err != nil {
					return nil, err
				}
			}
			root, set := storage.Commit(false)
			if err := merged.Merge(set); err != nil {
				return nil, err
			}
			acc.Root, acc.CodeHash = root, Keccak256(addr[:])
			s.contracts = append(s.contracts, addr)
		}
		if err := accounts.UpdateAccount(addr, acc, 0); err != nil {
			return nil, err
		}
		s.accounts = append(s.accounts, addr)
	}
	root, set := accounts.Commit(true) // the leaves, by which the hash scheme keeps the storage tries
	if err := merged.Merge(set); err != nil {
		return nil, err
	}
	if err := tdb.Update(root, types.EmptyRootHash, 0, merged, triedb.NewStateSet()); err != nil {
		return nil, err
	}
	if err := tdb.Commit(root, false); err != nil {
		return nil, err
	}
	s.root = root
	return s, nil
}

// stateBlock is a block's state changes: accounts whose balance changes
// (some of them new), and slots written (some cleared) in contracts, the
// big ones among them.
type stateBlock struct {
	balances map[common.Address]*uint256.Int
	slots    map[common.Address]map[common.Hash]common.Hash
}

func newStateBlock(s *benchStateDB, seed uint64, accounts, slots int) *stateBlock {
	r := rand.New(rand.NewPCG(seed, 1))
	blk := &stateBlock{balances: map[common.Address]*uint256.Int{}, slots: map[common.Address]map[common.Hash]common.Hash{}}
	for i := range accounts {
		addr := s.accounts[r.IntN(len(s.accounts))]
		if i%10 == 0 {
			addr = randAddress(r) // a new account
		}
		blk.balances[addr] = uint256.NewInt(r.Uint64())
	}
	for i := range slots {
		var contract common.Address
		if i%5 == 0 {
			contract = s.contracts[0]
		} else {
			contract = s.contracts[r.IntN(min(len(s.contracts), 200))]
		}
		if blk.slots[contract] == nil {
			blk.slots[contract] = map[common.Hash]common.Hash{}
		}
		value := randHash(r)
		if i%8 == 0 {
			value = common.Hash{}
		}
		blk.slots[contract][randHash(r)] = value
	}
	return blk
}

// apply makes the block's changes to statedb, as its transactions would
// have.
func (blk *stateBlock) apply(statedb *state.StateDB) {
	for addr, balance := range blk.balances {
		statedb.SetBalance(addr, balance, tracing.BalanceChangeUnspecified)
	}
	for addr, slots := range blk.slots {
		for slot, value := range slots {
			statedb.SetState(addr, slot, value)
		}
	}
}

// benchProcs are the GOMAXPROCS values the StateDB benchmark runs at.
var benchProcs = []int{1, 2}

// BenchmarkStateDBBlock times go-ethereum's StateDB hashing and committing
// a block's state changes (2,000 accounts, 5,000 slots, new accounts and
// cleared slots among them) on go-ethereum's state database and on
// NewStateDatabase, taking turns (benchturns) on the same pebble store, a
// fresh block each round: the changes are made untimed, with the trie
// prefetcher on, then IntermediateRoot and Commit (into the trie
// database's memory, as a client does each block) are timed, loading the
// nodes the prefetcher has not; op=hash times IntermediateRoot alone,
// op=hash+commit IntermediateRoot then Commit (which finds the state
// hashed and commits it). Both roots are checked against each
// other each round. Reported per block, at GOMAXPROCS 1 and 2.
func BenchmarkStateDBBlock(b *testing.B) {
	s, err := benchStateOnce()
	if err != nil {
		b.Fatal(err)
	}
	for _, op := range []string{"hash", "hash+commit"} {
		benchturns.AtProcs(b, "op="+op, benchProcs, func(b *testing.B) { benchStateDBTurns(b, s, op == "hash+commit") })
	}
	benchturns.AtProcs(b, "op=accesslist", benchProcs, func(b *testing.B) { benchAccessListTurns(b, s) })
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
// with the trie prefetcher on, against AccessListStateRoot, a fresh block
// each round, the roots checked against each other.
func benchAccessListTurns(b *testing.B, s *benchStateDB) {
	tdbs := []*triedb.Database{triedb.NewDatabase(s.disk, triedb.HashDefaults), triedb.NewDatabase(s.disk, triedb.HashDefaults)}
	sdb := state.NewMPTDatabase(tdbs[0], nil)
	rules := params.MergedTestChainConfig.Rules(big.NewInt(1), true, 0)
	var (
		round uint64
		list  *bal.BlockAccessList
		roots [2]common.Hash
	)
	turns := []benchturns.Turn{
		{
			Prepare: func() {
				round++
				list = newStateBlock(s, round, 2000, 5000).accessList()
			},
			Call: func(int) {
				statedb, err := state.New(s.root, sdb)
				if err != nil {
					b.Fatal(err)
				}
				statedb.StartPrefetcher("bench", nil)
				if err := statedb.ApplyBlockAccessList(list); err != nil {
					b.Fatal(err)
				}
				roots[0] = statedb.IntermediateRoot(rules)
				statedb.StopPrefetcher()
			},
		},
		{
			Call: func(int) {
				root, err := AccessListStateRoot(s.root, list, tdbs[1])
				if err != nil {
					b.Fatal(err)
				}
				if roots[1] = root; root != roots[0] {
					b.Fatalf("round %d: keccakroot's root %x, go-ethereum's %x", round, root, roots[0])
				}
			},
		},
	}
	perBlock := benchturns.Measure(b, 1, turns)
	for i, name := range []string{"geth", "keccakroot"} {
		b.ReportMetric(perBlock[i]/1e6, "ms/block-"+name)
	}
	b.ReportMetric(perBlock[0]/perBlock[1], "speedup")
}

// benchStateDBTurns is BenchmarkStateDBBlock for IntermediateRoot alone or
// with Commit.
func benchStateDBTurns(b *testing.B, s *benchStateDB, commit bool) {
	names := []string{"geth", "keccakroot"}
	{
		dbs := make([]state.Database, 2)
		tdbs := make([]*triedb.Database, 2)
		for i := range dbs {
			tdbs[i] = triedb.NewDatabase(s.disk, triedb.HashDefaults)
			dbs[i] = state.NewMPTDatabase(tdbs[i], nil)
		}
		dbs[1] = NewStateDatabase(dbs[1])
		var (
			round   uint64
			blk     *stateBlock
			statedb [2]*state.StateDB
			roots   [2]common.Hash
			split   [2]stateDBSplit
		)
		rules := params.MergedTestChainConfig.Rules(big.NewInt(1), true, 0)
		turn := func(impl int) benchturns.Turn {
			return benchturns.Turn{
				Prepare: func() {
					if impl == 0 {
						round++
						blk = newStateBlock(s, round, 2000, 5000)
					}
					if commit && roots[impl] != (common.Hash{}) {
						tdbs[impl].Dereference(roots[impl])
					}
					sdb, err := state.New(s.root, dbs[impl])
					if err != nil {
						b.Fatal(err)
					}
					sdb.StartPrefetcher("bench", nil)
					blk.apply(sdb)
					statedb[impl] = sdb
				},
				Call: func(int) {
					root := statedb[impl].IntermediateRoot(rules)
					if commit {
						var err error
						if root, err = statedb[impl].Commit(rules, 1); err != nil {
							b.Fatal(err)
						}
					}
					statedb[impl].StopPrefetcher()
					split[impl].add(statedb[impl])
					roots[impl] = root
					if impl == 1 && roots[0] != roots[1] {
						b.Fatalf("round %d: keccakroot's root %x, go-ethereum's %x", round, roots[1], roots[0])
					}
				},
			}
		}
		perBlock := benchturns.Measure(b, 1, []benchturns.Turn{turn(0), turn(1)})
		for i, name := range names {
			b.ReportMetric(perBlock[i]/1e6, "ms/block-"+name)
		}
		b.ReportMetric(perBlock[0]/perBlock[1], "speedup")
		for i, name := range names {
			split[i].report(b, name, commit)
		}
	}
}

// stateDBSplit adds up the parts of a block's state work that go-ethereum's
// StateDB times itself.
type stateDBSplit struct {
	blocks int
	// storage: the storage tries' updates and hashing (StorageUpdates),
	// waiting for their prefetchers included; accounts: the account trie's
	// updates (AccountUpdates), waiting for its prefetcher included; hash:
	// the account trie's Hash (AccountHashes); tries: the tries' Commit,
	// the longer of the account trie's and the slowest storage trie's
	// (they run in parallel); database: the trie database's Update
	// (DatabaseCommits).
	storage, accounts, hash, tries, database time.Duration
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
	b.ReportMetric(ms(s.storage), "ms/storage-"+name)
	b.ReportMetric(ms(s.accounts), "ms/accounts-"+name)
	b.ReportMetric(ms(s.hash), "ms/hash-"+name)
	if commit {
		b.ReportMetric(ms(s.tries), "ms/commit-"+name)
		b.ReportMetric(ms(s.database), "ms/database-"+name)
	}
}

package adapter

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/hashdb"
	"github.com/ethereum/go-ethereum/triedb/pathdb"
	"github.com/holiman/uint256"
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
	if n := envInt("KECCAKROOT_STATE_ACCOUNTS"); n > 0 {
		size.accounts, size.contracts = n, n/100
	}
	return size
}

// benchSenders is the number of funded accounts whose keys the benchmark
// holds, the senders of its blocks' transactions.
const benchSenders = 64

// benchStateDB is a state committed into a pebble store on disk through
// go-ethereum's trie database of one scheme.
type benchStateDB struct {
	scheme    string
	disk      ethdb.Database
	root      common.Hash
	accounts  []common.Address
	contracts []common.Address // the big ones first; each runs slotWriterCode
	slots     [][]common.Hash  // the slots each contract has, by its index
	senders   []*ecdsa.PrivateKey
}

// slotWriterCode is the contracts' code: it stores each 64-byte pair of
// its calldata, a slot then its value, as a contract that keeps a table
// does; a call with n pairs makes n SSTOREs.
var slotWriterCode = []byte{
	0x5f,       // PUSH0: the offset of the first pair
	0x5b,       // JUMPDEST (loop, 0x01)
	0x36, 0x81, // CALLDATASIZE DUP2
	0x10, 0x15, // LT ISZERO: offset >= size
	0x60, 0x17, 0x57, // PUSH1 end JUMPI
	0x80, 0x60, 0x20, 0x01, 0x35, // DUP1 PUSH1 32 ADD CALLDATALOAD: the value
	0x81, 0x35, // DUP2 CALLDATALOAD: the slot
	0x55,             // SSTORE
	0x60, 0x40, 0x01, // PUSH1 64 ADD: the next pair
	0x60, 0x01, 0x56, // PUSH1 loop JUMP
	0x5b, 0x00, // JUMPDEST (end, 0x17) STOP
}

// benchChainConfig is the fork the benchmark's blocks run at: Osaka
// (go-ethereum's merged test chain).
var benchChainConfig = params.MergedTestChainConfig

// benchRules are benchChainConfig's rules at the benchmark's blocks.
var benchRules = benchChainConfig.Rules(big.NewInt(1), true, 0)

// clientTrieConfig is the trie database configuration go-ethereum's chain
// code makes from core.DefaultConfig for scheme (256 MB of clean trie
// nodes, 256 MB of flat states and a 256 MB write buffer on the path
// scheme): the caches a client runs with, so that the nodes near the root,
// which every block reads, are loaded as a client loads them.
func clientTrieConfig(scheme string) *triedb.Config {
	const limit = 256 * 1024 * 1024
	if scheme == rawdb.PathScheme {
		return &triedb.Config{PathDB: &pathdb.Config{
			TrieCleanSize: limit, StateCleanSize: limit, WriteBufferSize: limit,
			StateHistory: params.FullImmutabilityThreshold, TrienodeHistory: -1,
		}}
	}
	return &triedb.Config{HashDB: &hashdb.Config{CleanCacheSize: limit}}
}

var benchStates = map[string]func() (*benchStateDB, error){
	rawdb.HashScheme: sync.OnceValues(func() (*benchStateDB, error) { return settledBenchState(stateBenchSize(), rawdb.HashScheme) }),
	rawdb.PathScheme: sync.OnceValues(func() (*benchStateDB, error) { return settledBenchState(stateBenchSize(), rawdb.PathScheme) }),
}

// settledBenchState builds the state of size, then compacts the store and
// collects the build's garbage, so that the timed rounds find the store and
// the heap as a node that has run for a while has them. Left alone, the
// bulk load leaves pebble a pile of level-0 tables to compact and the
// collector gigabytes of dead objects, and both run beside the first
// rounds: in a process that measured the path scheme right after its build,
// both sides took two to three times as long a block as in one where the
// hash scheme's rounds ran first.
func settledBenchState(size benchStateSize, scheme string) (*benchStateDB, error) {
	s, err := buildBenchState(size, scheme)
	if err != nil {
		return nil, err
	}
	if err := s.disk.Compact(nil, nil); err != nil {
		return nil, err
	}
	runtime.GC()
	return s, nil
}

// buildBenchState writes the state of size into a new pebble store
// through go-ethereum's StateDB and the trie database of scheme.
func buildBenchState(size benchStateSize, scheme string) (*benchStateDB, error) {
	dir, err := os.MkdirTemp("", "keccakroot-statedb-bench")
	if err != nil {
		return nil, err
	}
	kv, err := pebble.New(dir, 512, 256, "", false)
	if err != nil {
		return nil, err
	}
	s := &benchStateDB{scheme: scheme, disk: rawdb.NewDatabase(kv)}
	config := &triedb.Config{HashDB: hashdb.Defaults}
	if scheme == rawdb.PathScheme {
		// The flat states are written with the nodes, so the generator
		// (run to its end on the empty store) has nothing left to do.
		config = &triedb.Config{PathDB: &pathdb.Config{NoAsyncGeneration: true, StateHistory: params.FullImmutabilityThreshold, TrienodeHistory: -1}}
	}
	tdb := triedb.NewDatabase(s.disk, config)
	defer tdb.Close()
	statedb, err := state.New(types.EmptyRootHash, state.NewDatabase(tdb, state.NewCodeDB(s.disk)))
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(7, 7))
	for i := range size.accounts {
		addr := randAddress(r)
		statedb.SetNonce(addr, uint64(i%7), tracing.NonceChangeUnspecified)
		statedb.SetBalance(addr, uint256.NewInt(r.Uint64()), tracing.BalanceChangeUnspecified)
		slots := 0
		switch {
		case i < size.bigContracts:
			slots = size.bigSlots
		case i < size.bigContracts+size.contracts:
			slots = size.storageSlots
		}
		if slots > 0 {
			statedb.SetCode(addr, slotWriterCode, tracing.CodeChangeUnspecified)
			keys := make([]common.Hash, slots)
			for j := range keys {
				keys[j] = randHash(r)
				statedb.SetState(addr, keys[j], randHash(r))
			}
			s.contracts = append(s.contracts, addr)
			s.slots = append(s.slots, keys)
		}
		s.accounts = append(s.accounts, addr)
	}
	for i := range benchSenders {
		key, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("keccakroot bench sender %d", i))))
		if err != nil {
			return nil, err
		}
		statedb.SetBalance(crypto.PubkeyToAddress(key.PublicKey), uint256.NewInt(1e18), tracing.BalanceChangeUnspecified)
		s.senders = append(s.senders, key)
	}
	if s.root, err = statedb.Commit(benchRules, 0); err != nil {
		return nil, err
	}
	if err := tdb.Commit(s.root, false); err != nil {
		return nil, err
	}
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
		blk.balances[addr] = uint256.NewInt(r.Uint64() >> 32)
	}
	updates := slotUpdatesPercent()
	for i := range slots {
		c := 0
		if i%5 != 0 {
			c = r.IntN(min(len(s.contracts), 200))
		}
		contract := s.contracts[c]
		if blk.slots[contract] == nil {
			blk.slots[contract] = map[common.Hash]common.Hash{}
		}
		slot := randHash(r)
		if r.IntN(100) < updates {
			slot = s.slots[c][r.IntN(len(s.slots[c]))]
		}
		value := randHash(r)
		if i%8 == 0 {
			value = common.Hash{}
		}
		blk.slots[contract][slot] = value
	}
	return blk
}

// slotUpdatesPercent is the share, in percent, of a block's slot writes
// that go to slots the state has; the others go to new slots. Two thirds
// of the storage writes on Ethereum's mainnet are updates (ethresear.ch,
// "The Anatomy of Ethereum's State Access", 2026);
// KECCAKROOT_STATE_SLOT_UPDATES sets another share (0 for the blocks of
// the project's earlier figures, whose writes all made new slots).
func slotUpdatesPercent() int {
	if v, ok := os.LookupEnv("KECCAKROOT_STATE_SLOT_UPDATES"); ok {
		n, err := strconv.Atoi(v)
		if err == nil && n >= 0 && n <= 100 {
			return n
		}
	}
	return 67
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

// slotsPerCall is how many of a block's slot writes one transaction makes.
const slotsPerCall = 100

// transactions returns the block's changes as signed transactions from the
// state's senders: a value transfer to each account (the amount its balance
// changes by) and calls to the contracts carrying slotsPerCall of their slot
// writes each. The senders are recovered and cached, as a client does
// before it executes a block.
func (blk *stateBlock) transactions(s *benchStateDB) (types.Transactions, error) {
	signer := types.LatestSigner(benchChainConfig)
	var (
		txs    types.Transactions
		nonces = make([]uint64, len(s.senders))
	)
	add := func(to common.Address, value *uint256.Int, data []byte, gas uint64) error {
		i := len(txs) % len(s.senders)
		tx, err := types.SignNewTx(s.senders[i], signer, &types.DynamicFeeTx{
			ChainID: benchChainConfig.ChainID, Nonce: nonces[i], GasTipCap: big.NewInt(0), GasFeeCap: big.NewInt(1),
			Gas: gas, To: &to, Value: value.ToBig(), Data: data,
		})
		if err != nil {
			return err
		}
		if _, err := types.Sender(signer, tx); err != nil {
			return err
		}
		nonces[i]++
		txs = append(txs, tx)
		return nil
	}
	for addr, amount := range blk.balances {
		// Gas enough for a contract's code to run on empty calldata.
		if err := add(addr, amount, nil, params.TxGas+10_000); err != nil {
			return nil, err
		}
	}
	for addr, slots := range blk.slots {
		var data []byte
		flush := func() error {
			if len(data) == 0 {
				return nil
			}
			pairs := uint64(len(data) / 64)
			err := add(addr, new(uint256.Int), data, params.TxGas+pairs*(params.SstoreSetGasEIP2200+params.ColdSloadCostEIP2929+1024)+100_000)
			data = nil
			return err
		}
		for slot, value := range slots {
			data = append(append(data, slot[:]...), value[:]...)
			if len(data) == slotsPerCall*64 {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
		if err := flush(); err != nil {
			return nil, err
		}
	}
	return txs, nil
}

// benchBlockHeader is the header the benchmark's blocks execute under.
func benchBlockHeader(parent common.Hash) *types.Header {
	return &types.Header{
		ParentHash: parent, Number: big.NewInt(1), Time: 1, GasLimit: 1 << 40,
		BaseFee: big.NewInt(1), Difficulty: new(big.Int), Coinbase: common.Address{0xc0},
	}
}

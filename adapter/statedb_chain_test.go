package adapter

import (
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// The contracts of the state chain, as bytecode.
var (
	// storeCode stores each (slot, value) pair of 32-byte words in its
	// call data: a zero value clears the slot.
	storeCode = common.FromHex("6000" + "5b" + "80" + "36" + "11" + "600b" + "57" + "00" + "00" +
		"5b" + "80" + "6020" + "01" + "35" + "81" + "35" + "55" + "6040" + "01" + "6002" + "56")
	// factoryCode runs CREATE2 with the first word of its call data as the
	// salt and the rest as the init code, passing on the call's value.
	factoryCode = common.FromHex("6020" + "36" + "03" + "80" + "6020" + "6000" + "37" + "6000" + "35" +
		"90" + "6000" + "34" + "f5" + "50" + "00")
	// mortalCode, a contract's runtime code: with no call data it
	// self-destructs to its caller; otherwise it stores the value of its
	// second word in the slot of its first.
	mortalCode = common.FromHex("36" + "6007" + "57" + "33" + "ff" + "00" + "5b" + "6020" + "35" + "6000" + "35" + "55" + "00")
	// mortalInit stores 7 in slot 1 and the block number in slot 3, then
	// deploys mortalCode.
	mortalInit = append(common.FromHex("6007"+"6001"+"55"+"43"+"6003"+"55"+"6010"+"80"+"6014"+"6000"+"39"+"6000"+"f3"), mortalCode...)
	// ephemeralInit stores two slots and self-destructs in its own
	// constructor: created and destroyed in one transaction.
	ephemeralInit = common.FromHex("6001" + "6001" + "55" + "6002" + "6002" + "55" + "33" + "ff")
)

// The accounts of the state chain.
var (
	storeA  = common.Address{0x5a}
	storeB  = common.Address{0x5b}
	factory = common.Address{0xfa}
)

// stateChainForks: Shanghai from genesis (SELFDESTRUCT still deletes),
// then Cancun, Prague with Osaka, and Amsterdam, stateChainForkBlocks
// blocks each (GenerateChain spaces blocks 10 seconds apart).
const (
	stateChainForkBlocks = 55
	stateChainBlocks     = 4 * stateChainForkBlocks
)

// stateChain is a chain made with GenerateChain for the StateDB tests:
// its genesis and its blocks, made once per test binary.
type stateChain struct {
	genesis *core.Genesis
	blocks  []*types.Block
}

var makeStateChain = sync.OnceValue(func() *stateChain { return generateStateChain(stateChainBlocks) })

// generateStateChain makes the first n blocks of the state chain.
func generateStateChain(n int) *stateChain {
	config := *params.MergedTestChainConfig
	forkTime := func(fork int) *uint64 { t := uint64(10 * fork * stateChainForkBlocks); return &t }
	config.CancunTime, config.PragueTime, config.OsakaTime, config.AmsterdamTime = forkTime(1), forkTime(2), forkTime(2), forkTime(3)
	genesis := chainGenesis(&config)
	slotsA := map[common.Hash]common.Hash{}
	for i := range 300 {
		slotsA[common.BigToHash(big.NewInt(int64(i)))] = common.Hash{31: byte(i + 1)}
	}
	genesis.Alloc[storeA] = types.Account{Code: storeCode, Storage: slotsA, Balance: new(big.Int)}
	genesis.Alloc[storeB] = types.Account{Code: storeCode, Storage: map[common.Hash]common.Hash{{1}: {1}}, Balance: new(big.Int)}
	genesis.Alloc[factory] = types.Account{Code: factoryCode, Balance: new(big.Int)}

	g := &stateChainGen{r: rand.New(rand.NewPCG(1, 2)), config: &config, live: map[common.Address]*liveSlots{
		storeA: {}, storeB: {},
	}}
	for i := range 300 {
		g.live[storeA].add(common.BigToHash(big.NewInt(int64(i))))
	}
	g.live[storeB].add(common.Hash{1})
	_, blocks, _ := core.GenerateChainWithGenesis(genesis, beacon.New(ethash.NewFaker()), n, g.block)
	return &stateChain{genesis: genesis, blocks: blocks}
}

// stateChainGen makes the transactions of each block of the state chain.
type stateChainGen struct {
	r      *rand.Rand
	config *params.ChainConfig
	live   map[common.Address]*liveSlots // the non-zero slots of storeA, storeB and the authority
	b      *core.BlockGen
	nonce  uint64
}

func (g *stateChainGen) block(i int, b *core.BlockGen) {
	g.b, g.nonce = b, b.TxNonce(sender)
	fork := i / stateChainForkBlocks // 0 Shanghai, 1 Cancun, 2 Prague, 3 Amsterdam
	// Transfers to a new account and to an existing one.
	g.send(common.Address{0xaa, byte(i >> 8), byte(i)}, big.NewInt(1), nil, 500_000)
	g.send(recipient, big.NewInt(int64(i)), nil, 21000)
	// Heavy storage writes, clearing some slots.
	g.send(storeA, nil, g.storeCall(storeA, 40, 4), 8_000_000)
	switch i % 20 {
	case 10: // storeB's storage trie emptied
		g.send(storeB, nil, g.clearCall(storeB), 4_000_000)
	case 11:
		g.send(storeB, nil, g.storeCall(storeB, 30, 0), 6_000_000)
	}
	// Contracts created by CREATE2, destroyed (before Cancun), and created
	// again at the same address, in later blocks and within one block.
	salt := common.Hash{31: 7}
	child := crypto.CreateAddress2(factory, salt, crypto.Keccak256(mortalInit))
	switch i % 10 {
	case 3:
		g.send(factory, big.NewInt(5), append(common.BigToHash(big.NewInt(int64(i))).Bytes(), ephemeralInit...), 300_000)
	case 5, 7:
		g.send(factory, big.NewInt(3), append(salt.Bytes(), mortalInit...), 300_000)
	case 6:
		g.send(child, nil, nil, 100_000)
	case 8:
		g.send(child, nil, append(common.Hash{31: 9}.Bytes(), common.Hash{31: byte(i)}.Bytes()...), 100_000)
	case 9:
		g.send(child, nil, nil, 100_000)
		g.send(factory, big.NewInt(3), append(salt.Bytes(), mortalInit...), 300_000)
	}
	// EIP-7702: the authority delegates to storeA's code, its own storage
	// is written through the delegation, and the delegation is cleared now
	// and then.
	if fork >= 2 {
		switch i % 7 {
		case 0, 4:
			target := storeA
			if i%21 == 14 {
				target = common.Address{}
			}
			g.setCode(target, g.storeCall(authority, 10, 3))
		case 2:
			g.send(authority, nil, g.storeCall(authority, 20, 3), 4_000_000)
		}
	}
	// Withdrawals to new and existing accounts.
	for w := range i % 3 {
		to := common.Address{0x3d, byte(w)}
		if w == 1 {
			to = common.Address{0x3e, byte(i >> 8), byte(i)}
		}
		b.AddWithdrawal(&types.Withdrawal{Validator: uint64(w), Address: to, Amount: uint64(1000 + i)})
	}
}

var (
	stateChainFeeCap = big.NewInt(100 * params.GWei)
	stateChainTip    = big.NewInt(params.GWei)
)

// send adds a dynamic-fee transaction from sender.
func (g *stateChainGen) send(to common.Address, value *big.Int, data []byte, gas uint64) {
	tx := types.MustSignNewTx(senderKey, types.LatestSigner(g.config), &types.DynamicFeeTx{
		ChainID: g.config.ChainID, Nonce: g.nonce, GasTipCap: stateChainTip, GasFeeCap: stateChainFeeCap,
		Gas: gas, To: &to, Value: value, Data: data,
	})
	g.b.AddTx(tx)
	g.nonce++
}

// setCode adds a set-code transaction from sender that delegates the
// authority to target and calls the authority with data.
func (g *stateChainGen) setCode(target common.Address, data []byte) {
	chainID := uint256.MustFromBig(g.config.ChainID)
	auth, err := types.SignSetCode(authorityKey, types.SetCodeAuthorization{ChainID: *chainID, Address: target, Nonce: g.b.TxNonce(authority)})
	if err != nil {
		panic(err)
	}
	tx := types.MustSignNewTx(senderKey, types.LatestSigner(g.config), &types.SetCodeTx{
		ChainID: chainID, Nonce: g.nonce, GasTipCap: uint256.MustFromBig(stateChainTip), GasFeeCap: uint256.MustFromBig(stateChainFeeCap),
		Gas: 4_000_000, To: authority, Data: data, AuthList: []types.SetCodeAuthorization{auth},
	})
	g.b.AddTx(tx)
	g.nonce++
}

// storeCall returns call data for storeCode that writes n slots of addr,
// one in every clearEvery (if not zero) a live slot cleared to zero, the
// rest new slots or live ones overwritten.
func (g *stateChainGen) storeCall(addr common.Address, n, clearEvery int) []byte {
	live := g.live[addr]
	if live == nil {
		live = &liveSlots{}
		g.live[addr] = live
	}
	var data []byte
	for j := range n {
		slot := common.Hash{0: byte(g.r.IntN(4)), 31: byte(g.r.IntN(256)), 30: byte(g.r.IntN(256))}
		value := common.Hash{31: byte(1 + g.r.IntN(255))}
		if len(live.slots) > 0 && (clearEvery > 0 && j%clearEvery == 0 || g.r.IntN(3) == 0) {
			slot = live.slots[g.r.IntN(len(live.slots))]
			if clearEvery > 0 && j%clearEvery == 0 {
				value = common.Hash{}
			}
		}
		if value == (common.Hash{}) {
			live.remove(slot)
		} else {
			live.add(slot)
		}
		data = append(append(data, slot[:]...), value[:]...)
	}
	return data
}

// clearCall returns call data for storeCode that clears every live slot
// of addr.
func (g *stateChainGen) clearCall(addr common.Address) []byte {
	var data []byte
	if live := g.live[addr]; live != nil {
		for _, slot := range live.slots {
			data = append(append(data, slot[:]...), make([]byte, 32)...)
		}
		*live = liveSlots{}
	}
	return data
}

// liveSlots is a set of slots kept in a slice, so that the generator
// picks from it and walks it in an order that only its seed decides: a
// map's order would make every run's chain another one.
type liveSlots struct {
	slots []common.Hash
	index map[common.Hash]int // a slot's place in slots
}

func (l *liveSlots) add(slot common.Hash) {
	if _, ok := l.index[slot]; ok {
		return
	}
	if l.index == nil {
		l.index = map[common.Hash]int{}
	}
	l.index[slot] = len(l.slots)
	l.slots = append(l.slots, slot)
}

// remove takes slot out, moving the last slot into its place.
func (l *liveSlots) remove(slot common.Hash) {
	i, ok := l.index[slot]
	if !ok {
		return
	}
	last := l.slots[len(l.slots)-1]
	l.slots[i], l.index[last] = last, i
	l.slots = l.slots[:len(l.slots)-1]
	delete(l.index, slot)
}

// TestStateDatabaseChain executes the state chain's blocks in lockstep on
// go-ethereum's state database and on NewStateDatabase's, hash and path
// schemes, with and without a snapshot, with the StateDB set up as
// core.BlockChain sets it up for its prefetcher, with witnesses built and
// verified by go-ethereum's stateless execution, and with a node cache
// (small enough to drop nodes) that the tries read and commit through.
func TestStateDatabaseChain(t *testing.T) {
	chain := makeStateChain()
	checkStateChainCoverage(t, chain)
	modes := []lockstepMode{
		{scheme: 0},
		{scheme: 1},
		{scheme: 0, snapshot: true, warm: true},
		{scheme: 1, warm: true},
		{scheme: 1, witness: true},
		{scheme: 0, nodeCache: 256 << 10},
		{scheme: 1, warm: true, witness: true, nodeCache: 256 << 10},
	}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			l := newLockstep(t, chain.genesis, beacon.New(ethash.NewFaker()), mode)
			for _, block := range chain.blocks {
				if err := l.execute(block); err != nil {
					t.Fatalf("block %d: %v", block.NumberU64(), err)
				}
			}
			seen := []string{"account trie changed", "storage trie changed", "storage trie removed"}
			if schemes[mode.scheme].name == "path" { // the hints' scheme
				l.seen["leaf taken from a hint"] = int(hintsTaken(l.ours.sdb))
				seen = append(seen, "leaf taken from a hint")
			}
			for _, what := range seen {
				if l.seen[what] == 0 {
					t.Errorf("no block had a %s", what)
				}
			}
			t.Logf("%d blocks: %v", len(chain.blocks), l.seen)
		})
	}
}

// hintsTaken returns the number of leaves the tries of sdb, a database
// NewStateDatabase made, took from the values its readers read.
func hintsTaken(sdb state.Database) int64 {
	var hints *stateHints
	switch d := sdb.(type) {
	case *StateDatabase:
		hints = d.hints
	case *stateDatabaseWithCacheStats:
		hints = d.hints
	}
	if hints == nil {
		return 0
	}
	return hints.taken.Load()
}

// checkStateChainCoverage checks that the state chain has what it is
// meant to: blocks of every fork, access lists, withdrawals and set-code
// transactions.
func checkStateChainCoverage(t *testing.T, chain *stateChain) {
	t.Helper()
	seen := map[string]int{}
	for _, b := range chain.blocks {
		config := chain.genesis.Config
		switch {
		case config.IsAmsterdam(b.Number(), b.Time()):
			seen["amsterdam"]++
			if b.AccessList() != nil {
				seen["access list"]++
			}
		case config.IsPrague(b.Number(), b.Time()):
			seen["prague"]++
		case config.IsCancun(b.Number(), b.Time()):
			seen["cancun"]++
		default:
			seen["shanghai"]++
		}
		if len(b.Withdrawals()) > 0 {
			seen["withdrawals"]++
		}
		for _, tx := range b.Transactions() {
			if tx.Type() == types.SetCodeTxType {
				seen["set code"]++
			}
		}
	}
	for _, what := range []string{"shanghai", "cancun", "prague", "amsterdam", "access list", "withdrawals", "set code"} {
		if seen[what] == 0 {
			t.Errorf("the state chain has no %s", what)
		}
	}
}

// Command replay makes a chain with go-ethereum's GenerateChain (a
// contract whose storage every block writes and clears, transfers to new
// accounts, withdrawals; Cancun to Prague), then executes its blocks again
// with go-ethereum's EVM on a StateDB whose tries are keccakroot's
// (adapter.NewStateDatabase), validating each block as go-ethereum does and
// committing it into a path-scheme trie database. It writes the chain's
// genesis and export into a folder, for the same replay from the command
// line:
//
//	go run ./examples/replay [DIR]
//	keccakroot replay --geth --genesis DIR/genesis.json DIR/chain.rlp
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/pathdb"

	"github.com/keccakroot/keccakroot/adapter"
)

// blocks is the length of the chain after its genesis block.
const blocks = 64

// storeCode stores each (slot, value) pair of 32-byte words in its call
// data; a zero value clears the slot.
var storeCode = common.FromHex("60005b803611600b570000" + "5b8060200135813555604001600256")

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var dir string
	switch len(args) {
	case 0:
		tmp, err := os.MkdirTemp("", "replay-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	case 1:
		dir = args[0]
	default:
		return errors.New("usage: replay [DIR]")
	}
	genesis, chain := generate()
	fmt.Printf("generated a chain of %d blocks with go-ethereum's GenerateChain\n", len(chain))
	if err := write(dir, genesis, chain); err != nil {
		return err
	}
	root, err := replay(genesis, chain)
	if err != nil {
		return err
	}
	fmt.Printf("replayed %d blocks on keccakroot's tries: state root %s, the header's\n", len(chain), root.Hex())
	if got := chain[len(chain)-1].Root(); got != root {
		return fmt.Errorf("the head's state root is %s, the replay reached %s", got.Hex(), root.Hex())
	}
	fmt.Printf("the same from the command line: keccakroot replay --geth --genesis %s %s\n",
		filepath.Join(dir, "genesis.json"), filepath.Join(dir, "chain.rlp"))
	return nil
}

// generate makes the chain: Cancun from the genesis, Prague from block 32.
func generate() (*core.Genesis, []*types.Block) {
	key, _ := crypto.HexToECDSA("4b00000000000000000000000000000000000000000000000000000000000001")
	sender := crypto.PubkeyToAddress(key.PublicKey)
	store := common.Address{0x5e}
	config := *params.MergedTestChainConfig
	prague := uint64(10 * blocks / 2)
	config.PragueTime, config.OsakaTime = &prague, &prague
	genesis := &core.Genesis{
		Config: &config, GasLimit: 30_000_000, Difficulty: common.Big0, BaseFee: big.NewInt(params.InitialBaseFee),
		Alloc: types.GenesisAlloc{
			sender: {Balance: new(big.Int).Mul(big.NewInt(params.Ether), big.NewInt(1000))},
			store:  {Code: storeCode, Balance: common.Big0},
			// The system contracts that Cancun and Prague call every block.
			params.BeaconRootsAddress:        {Code: params.BeaconRootsCode, Nonce: 1, Balance: common.Big0},
			params.HistoryStorageAddress:     {Code: params.HistoryStorageCode, Nonce: 1, Balance: common.Big0},
			params.WithdrawalQueueAddress:    {Code: params.WithdrawalQueueCode, Nonce: 1, Balance: common.Big0},
			params.ConsolidationQueueAddress: {Code: params.ConsolidationQueueCode, Nonce: 1, Balance: common.Big0},
		},
	}
	signer := types.LatestSigner(&config)
	_, chain, _ := core.GenerateChainWithGenesis(genesis, beacon.New(ethash.NewFaker()), blocks, func(i int, b *core.BlockGen) {
		nonce := b.TxNonce(sender)
		send := func(to common.Address, value int64, data []byte) {
			b.AddTx(types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: config.ChainID, Nonce: nonce,
				GasTipCap: big.NewInt(params.GWei), GasFeeCap: big.NewInt(100 * params.GWei), Gas: 500_000, To: &to,
				Value: big.NewInt(value), Data: data}))
			nonce++
		}
		send(common.Address{0xaa, byte(i)}, 1, nil) // a new account
		// Slot i%8 gets i+1, and the slot written four blocks ago is cleared.
		send(store, 0, append(common.BigToHash(big.NewInt(int64(i%8))).Bytes(), common.BigToHash(big.NewInt(int64(i+1))).Bytes()...))
		send(store, 0, append(common.BigToHash(big.NewInt(int64((i+4)%8))).Bytes(), make([]byte, 32)...))
		b.AddWithdrawal(&types.Withdrawal{Validator: uint64(i), Address: common.Address{0x3d, byte(i % 3)}, Amount: 1000})
	})
	return genesis, chain
}

// write puts the genesis and the chain's export ('geth export' form: the
// genesis block, then every block) into dir.
func write(dir string, genesis *core.Genesis, chain []*types.Block) error {
	data, err := json.MarshalIndent(genesis, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "genesis.json"), data, 0o600); err != nil { // #nosec G703 -- the folder the user names
		return err
	}
	f, err := os.Create(filepath.Join(dir, "chain.rlp")) // #nosec G304 G703 -- a file in the folder the user names
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, b := range append([]*types.Block{genesis.ToBlock()}, chain...) {
		if err := rlp.Encode(w, b); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// replay executes the chain on keccakroot's state database and returns the
// head's state root.
func replay(genesis *core.Genesis, chain []*types.Block) (common.Hash, error) {
	disk := rawdb.NewMemoryDatabase()
	tdb := triedb.NewDatabase(disk, &triedb.Config{PathDB: pathdb.Defaults})
	genesisBlock, err := genesis.Commit(disk, tdb, nil)
	if err != nil {
		return common.Hash{}, err
	}
	// The one line a go-ethereum program changes.
	sdb := adapter.NewStateDatabase(state.NewMPTDatabase(tdb, state.NewCodeDB(disk)))

	headers := &headerChain{config: genesis.Config, engine: beacon.New(ethash.NewFaker()), byNumber: []*types.Header{genesisBlock.Header()}}
	processor := core.NewStateProcessor(headers)
	validator := core.NewBlockValidator(genesis.Config, nil)
	root := genesisBlock.Root()
	for _, block := range chain {
		statedb, err := state.New(root, sdb)
		if err != nil {
			return common.Hash{}, err
		}
		statedb.StartPrefetcher("replay", nil)
		res, err := processor.Process(context.Background(), block, statedb, nil, nil, vm.Config{}, nil)
		if err == nil {
			// Gas, bloom, receipts root, requests, and the state root that
			// keccakroot's tries hash.
			err = validator.ValidateState(block, statedb, res, false)
		}
		if err == nil {
			root, err = statedb.Commit(genesis.Config.Rules(block.Number(), true, block.Time()), block.NumberU64())
		}
		statedb.StopPrefetcher()
		if err != nil {
			return common.Hash{}, fmt.Errorf("block #%d: %w", block.NumberU64(), err)
		}
		headers.byNumber = append(headers.byNumber, block.Header())
		if block.NumberU64()%16 == 0 {
			slot := statedb.GetState(common.Address{0x5e}, common.BigToHash(big.NewInt(int64((block.NumberU64()-1)%8))))
			fmt.Printf("block #%-3d state root %s  %d txs  store slot %d = %d  ok\n", block.NumberU64(), root.Hex(),
				len(block.Transactions()), (block.NumberU64()-1)%8, slot.Big())
		}
	}
	return root, nil
}

// headerChain is the chain context go-ethereum's StateProcessor asks for
// headers (BLOCKHASH, the parent): the headers replayed so far, by number.
type headerChain struct {
	config   *params.ChainConfig
	engine   consensus.Engine
	byNumber []*types.Header
}

func (c *headerChain) Config() *params.ChainConfig  { return c.config }
func (c *headerChain) Engine() consensus.Engine     { return c.engine }
func (c *headerChain) CurrentHeader() *types.Header { return c.byNumber[len(c.byNumber)-1] }
func (c *headerChain) GetHeaderByNumber(n uint64) *types.Header {
	if n < uint64(len(c.byNumber)) {
		return c.byNumber[n]
	}
	return nil
}
func (c *headerChain) GetHeader(hash common.Hash, n uint64) *types.Header {
	if h := c.GetHeaderByNumber(n); h != nil && h.Hash() == hash {
		return h
	}
	return nil
}
func (c *headerChain) GetHeaderByHash(hash common.Hash) *types.Header {
	for _, h := range c.byNumber {
		if h.Hash() == hash {
			return h
		}
	}
	return nil
}

package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/adapter"
)

// testChain is a chain made with go-ethereum's GenerateChain and exported as
// 'geth export' writes it: the RLP of the genesis block and of each block,
// concatenated.
type testChain struct {
	genesis *core.Genesis
	blocks  []*types.Block // the genesis block first
	export  []byte
	offsets []int // where each block starts in export
}

// chainBlocks is the number of blocks after the genesis block.
const chainBlocks = 200

// generateChain makes a proof-of-work chain (every fork up to London, so no
// merge) of chainBlocks blocks with legacy, access-list and dynamic-fee
// transactions and uncles. It is made once per test binary.
var generateChain = sync.OnceValues(func() (*testChain, error) {
	key, err := crypto.ToECDSA(common.LeftPadBytes([]byte{0x4b, 0x01}, 32))
	if err != nil {
		return nil, err
	}
	sender := crypto.PubkeyToAddress(key.PublicKey)
	recipient := common.Address{0xee, 0x01}
	config := *params.AllEthashProtocolChanges
	gspec := &core.Genesis{
		Config:   &config,
		GasLimit: 30_000_000,
		Alloc: types.GenesisAlloc{
			sender:    {Balance: new(big.Int).Mul(big.NewInt(params.Ether), big.NewInt(1_000_000))},
			recipient: {Code: []byte{0x00}, Storage: map[common.Hash]common.Hash{{1}: {2}}},
		},
	}
	signer := types.LatestSigner(&config)
	gasPrice := big.NewInt(10 * params.GWei)
	_, blocks, _ := core.GenerateChainWithGenesis(gspec, ethash.NewFaker(), chainBlocks, func(i int, b *core.BlockGen) {
		b.SetCoinbase(common.Address{0xc0, byte(i)})
		nonce := b.TxNonce(sender)
		add := func(data types.TxData) {
			b.AddTx(types.MustSignNewTx(key, signer, data))
			nonce++
		}
		if i%5 != 4 { // and every fifth block empty
			add(&types.LegacyTx{Nonce: nonce, GasPrice: gasPrice, Gas: 21000, To: &recipient, Value: big.NewInt(int64(i + 1))})
			add(&types.AccessListTx{ChainID: config.ChainID, Nonce: nonce, GasPrice: gasPrice, Gas: 30000, To: &recipient,
				AccessList: types.AccessList{{Address: recipient, StorageKeys: []common.Hash{{1}}}}})
			add(&types.DynamicFeeTx{ChainID: config.ChainID, Nonce: nonce, GasTipCap: big.NewInt(params.GWei), GasFeeCap: gasPrice,
				Gas: 50000, To: &recipient, Data: []byte{byte(i), 0x01, 0x02}})
		}
		if i >= 2 && i%3 == 0 {
			parent := b.PrevBlock(i - 2)
			b.AddUncle(&types.Header{
				ParentHash: parent.Hash(),
				Number:     new(big.Int).Add(parent.Number(), common.Big1),
				Coinbase:   common.Address{0x0c, byte(i)},
				Extra:      []byte("uncle"),
			})
		}
	})
	chain := &testChain{genesis: gspec, blocks: append([]*types.Block{gspec.ToBlock()}, blocks...)}
	for _, b := range chain.blocks {
		enc, err := rlp.EncodeToBytes(b)
		if err != nil {
			return nil, err
		}
		chain.offsets = append(chain.offsets, len(chain.export))
		chain.export = append(chain.export, enc...)
	}
	return chain, nil
})

// amsterdamBlocks is the number of blocks of the Amsterdam chain after its
// genesis block.
const amsterdamBlocks = 40

// amsterdamChain is a proof-of-stake chain with Amsterdam from genesis, made
// with go-ethereum's GenerateChain, which executes every block and attaches
// its block access list. It holds two exports: devp2p, the blocks' network
// encoding (four items, no access lists), and export, the five-item form
// 'geth export' writes. The genesis block is exported without an access
// list in both, as go-ethereum stores none for it.
type amsterdamChain struct {
	genesis                *core.Genesis
	blocks                 []*types.Block // the genesis block first
	devp2p, export         []byte
	devp2pOffsets, offsets []int
}

// generateAmsterdamChain makes the Amsterdam chain once per test binary:
// transfers, calls that write storage, blob and set-code transactions, and
// withdrawals, so that the access lists hold storage, balance, nonce and
// code changes.
var generateAmsterdamChain = sync.OnceValues(func() (*amsterdamChain, error) {
	key, err := crypto.ToECDSA(common.LeftPadBytes([]byte{0x4b, 0x01}, 32))
	if err != nil {
		return nil, err
	}
	authKey, err := crypto.ToECDSA(common.LeftPadBytes([]byte{0x4b, 0x02}, 32))
	if err != nil {
		return nil, err
	}
	sender := crypto.PubkeyToAddress(key.PublicKey)
	authority := crypto.PubkeyToAddress(authKey.PublicKey)
	recipient := common.Address{0xee, 0x01}
	store := common.Address{0x5e, 0x01} // stores its call data's first word at slot 0
	config := *params.MergedTestChainConfig
	config.AmsterdamTime = new(uint64)
	funds := new(big.Int).Mul(big.NewInt(params.Ether), big.NewInt(1_000_000))
	gspec := &core.Genesis{
		Config:   &config,
		GasLimit: 30_000_000,
		Alloc: types.GenesisAlloc{
			sender:    {Balance: funds},
			authority: {Balance: funds},
			store:     {Code: []byte{0x60, 0x00, 0x35, 0x60, 0x00, 0x55, 0x00}},
		},
	}
	// The system contracts that Cancun and later forks call every block.
	for addr, code := range map[common.Address][]byte{
		params.BeaconRootsAddress:        params.BeaconRootsCode,
		params.HistoryStorageAddress:     params.HistoryStorageCode,
		params.WithdrawalQueueAddress:    params.WithdrawalQueueCode,
		params.ConsolidationQueueAddress: params.ConsolidationQueueCode,
		params.BuilderDepositAddress:     params.BuilderDepositCode,
		params.BuilderExitAddress:        params.BuilderExitCode,
	} {
		gspec.Alloc[addr] = types.Account{Code: code, Nonce: 1, Balance: new(big.Int)}
	}
	signer := types.LatestSigner(&config)
	chainID := uint256.MustFromBig(config.ChainID)
	gas, tip := uint256.NewInt(10*params.GWei), uint256.NewInt(params.GWei)
	authNonce := uint64(0)
	_, blocks, _ := core.GenerateChainWithGenesis(gspec, beacon.New(ethash.NewFaker()), amsterdamBlocks, func(i int, b *core.BlockGen) {
		nonce := b.TxNonce(sender)
		add := func(data types.TxData) {
			b.AddTx(types.MustSignNewTx(key, signer, data))
			nonce++
		}
		if i%5 != 4 { // and every fifth block empty
			add(&types.LegacyTx{Nonce: nonce, GasPrice: gas.ToBig(), Gas: 21000, To: &recipient, Value: big.NewInt(int64(i + 1))})
			add(&types.DynamicFeeTx{ChainID: config.ChainID, Nonce: nonce, GasTipCap: tip.ToBig(), GasFeeCap: gas.ToBig(),
				Gas: 60000, To: &store, Data: common.LeftPadBytes([]byte{byte(i + 1)}, 32)})
		}
		if i%2 == 0 {
			add(&types.BlobTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: gas, Gas: 21000, To: recipient,
				BlobFeeCap: gas, BlobHashes: []common.Hash{{0x01, byte(i)}}})
		}
		if i%3 == 1 {
			auth, err := types.SignSetCode(authKey, types.SetCodeAuthorization{ChainID: *chainID, Address: store, Nonce: authNonce})
			if err != nil {
				panic(err)
			}
			authNonce++
			add(&types.SetCodeTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: gas, Gas: 100000, To: authority,
				AuthList: []types.SetCodeAuthorization{auth}})
		}
		for w := range i % 3 {
			b.AddWithdrawal(&types.Withdrawal{Validator: uint64(w), Address: common.Address{0x3d, byte(w)}, Amount: uint64(i * 1000)})
		}
	})
	chain := &amsterdamChain{genesis: gspec, blocks: append([]*types.Block{gspec.ToBlock()}, blocks...)}
	for _, b := range chain.blocks {
		devp2p, err := rlp.EncodeToBytes(b)
		if err != nil {
			return nil, err
		}
		export, err := adapter.EncodeExportedBlock(b)
		if err != nil {
			return nil, err
		}
		chain.devp2pOffsets = append(chain.devp2pOffsets, len(chain.devp2p))
		chain.devp2p = append(chain.devp2p, devp2p...)
		chain.offsets = append(chain.offsets, len(chain.export))
		chain.export = append(chain.export, export...)
	}
	return chain, nil
})

// mustAmsterdamChain returns the Amsterdam chain or fails the test; every
// block after the genesis block carries an access list.
func mustAmsterdamChain(t *testing.T) *amsterdamChain {
	t.Helper()
	c, err := generateAmsterdamChain()
	if err != nil {
		t.Fatalf("generating the Amsterdam chain: %v", err)
	}
	for _, b := range c.blocks[1:] {
		if b.AccessList() == nil || b.Header().BlockAccessListHash == nil {
			t.Fatalf("block %d has no block access list", b.NumberU64())
		}
	}
	return c
}

// mustChain returns the test chain or fails the test.
func mustChain(t *testing.T) *testChain {
	t.Helper()
	c, err := generateChain()
	if err != nil {
		t.Fatalf("generating the test chain: %v", err)
	}
	if c.blocks[1].ParentHash() != c.blocks[0].Hash() {
		t.Fatal("the exported genesis block is not the chain's")
	}
	return c
}

// writeFile writes data to a file in dir and returns its path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// gzipBytes compresses data.
func gzipBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// randomGenesis returns a genesis of a post-merge chain with n random
// accounts, some with code and storage (zero values among the slots, which
// go-ethereum leaves out).
func randomGenesis(rng *rand.Rand, n int) *core.Genesis {
	config := *params.MergedTestChainConfig
	g := &core.Genesis{
		Config:     &config,
		GasLimit:   30_000_000,
		Timestamp:  1_700_000_000,
		ExtraData:  []byte("keccakroot test"),
		Difficulty: big.NewInt(0),
		Alloc:      types.GenesisAlloc{},
	}
	for i := range n {
		var addr common.Address
		fill(rng, addr[:])
		acc := types.Account{Balance: new(big.Int).SetUint64(rng.Uint64()), Nonce: rng.Uint64N(3)}
		if i%4 == 0 {
			acc.Code = make([]byte, 1+rng.IntN(200))
			fill(rng, acc.Code)
			acc.Storage = map[common.Hash]common.Hash{}
			for range rng.IntN(20) {
				var k, v common.Hash
				fill(rng, k[:])
				if rng.IntN(5) != 0 {
					fill(rng, v[32-1-rng.IntN(32):])
				}
				acc.Storage[k] = v
			}
		}
		g.Alloc[addr] = acc
	}
	return g
}

// fill fills p from rng.
func fill(rng *rand.Rand, p []byte) {
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
}

// marshalGenesis writes g as go-ethereum marshals it.
func marshalGenesis(t *testing.T, g *core.Genesis) []byte {
	t.Helper()
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

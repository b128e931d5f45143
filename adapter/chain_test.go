package adapter

import (
	"crypto/ecdsa"
	"math/big"
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
)

// chainBlock is a block of the generated test chains with its RLP
// encodings.
type chainBlock struct {
	block    *types.Block
	receipts types.Receipts
	raw      []byte // rlp.EncodeToBytes(block): the devp2p form, three or four items
	export   []byte // as 'geth export' writes it: with the block access list, if any, as a fifth item
}

// testChain returns the blocks of two chains made with go-ethereum's
// GenerateChain, generated once per test binary:
//
//   - 60 proof-of-work blocks (London) with legacy, access-list and
//     dynamic-fee transactions and uncles;
//   - 60 proof-of-stake blocks (Cancun to Amsterdam) with all five
//     transaction types (blob transactions without sidecars, as blocks hold
//     them; set-code transactions with signed authorizations), withdrawals
//     and, from go-ethereum's execution of each block, block access lists.
var testChain = sync.OnceValues(func() ([]chainBlock, error) {
	var out []chainBlock
	for _, gen := range []func() ([]*types.Block, []types.Receipts){generatePoWChain, generatePoSChain} {
		blocks, receipts := gen()
		for i, b := range blocks {
			raw, err := rlp.EncodeToBytes(b)
			if err != nil {
				return nil, err
			}
			export, err := EncodeExportedBlock(b)
			if err != nil {
				return nil, err
			}
			out = append(out, chainBlock{block: b, receipts: receipts[i], raw: raw, export: export})
		}
	}
	return out, nil
})

// mustTestChain returns testChain's blocks or fails the test.
func mustTestChain(t testing.TB) []chainBlock {
	t.Helper()
	blocks, err := testChain()
	if err != nil {
		t.Fatalf("generating the test chain: %v", err)
	}
	return blocks
}

// chainKey returns the i'th deterministic test key.
func chainKey(i byte) *ecdsa.PrivateKey {
	k, err := crypto.ToECDSA(common.LeftPadBytes([]byte{0x4b, i}, 32))
	if err != nil {
		panic(err)
	}
	return k
}

var (
	senderKey    = chainKey(1)
	authorityKey = chainKey(2)
	sender       = crypto.PubkeyToAddress(senderKey.PublicKey)
	authority    = crypto.PubkeyToAddress(authorityKey.PublicKey)
	recipient    = common.Address{0xee, 0x01}
	delegate     = common.Address{0xde, 0x1e}
	chainFunds   = new(big.Int).Mul(big.NewInt(1e18), big.NewInt(1e6))
)

func chainGenesis(config *params.ChainConfig) *core.Genesis {
	g := &core.Genesis{
		Config:   config,
		GasLimit: 30_000_000,
		Alloc: types.GenesisAlloc{
			sender:    {Balance: chainFunds},
			authority: {Balance: chainFunds},
			// A contract with storage, so that the state has a storage trie.
			delegate: {Code: []byte{0x60, 0x01, 0x60, 0x00, 0x55, 0x00}, Storage: map[common.Hash]common.Hash{{1}: {2}}},
		},
	}
	if config.TerminalTotalDifficulty.Sign() == 0 {
		// The system contracts that Cancun and later forks call every block.
		for addr, code := range map[common.Address][]byte{
			params.BeaconRootsAddress:        params.BeaconRootsCode,
			params.HistoryStorageAddress:     params.HistoryStorageCode,
			params.WithdrawalQueueAddress:    params.WithdrawalQueueCode,
			params.ConsolidationQueueAddress: params.ConsolidationQueueCode,
			params.BuilderDepositAddress:     params.BuilderDepositCode,
			params.BuilderExitAddress:        params.BuilderExitCode,
		} {
			g.Alloc[addr] = types.Account{Code: code, Nonce: 1, Balance: new(big.Int)}
		}
	}
	return g
}

// generatePoWChain makes the proof-of-work chain with uncles.
func generatePoWChain() ([]*types.Block, []types.Receipts) {
	config := *params.AllEthashProtocolChanges
	signer := types.LatestSigner(&config)
	gas := big.NewInt(100 * params.GWei)
	_, blocks, receipts := core.GenerateChainWithGenesis(chainGenesis(&config), ethash.NewFaker(), 60, func(i int, b *core.BlockGen) {
		b.SetCoinbase(common.Address{0xc0, byte(i)})
		nonce := b.TxNonce(sender)
		sign := func(data types.TxData) {
			b.AddTx(types.MustSignNewTx(senderKey, signer, data))
			nonce++
		}
		if i%4 != 3 { // some blocks without transactions
			sign(&types.LegacyTx{Nonce: nonce, GasPrice: gas, Gas: 21000, To: &recipient, Value: big.NewInt(int64(i + 1))})
			sign(&types.AccessListTx{ChainID: config.ChainID, Nonce: nonce, GasPrice: gas, Gas: 30000, To: &recipient,
				AccessList: types.AccessList{{Address: delegate, StorageKeys: []common.Hash{{1}}}}})
			sign(&types.DynamicFeeTx{ChainID: config.ChainID, Nonce: nonce, GasTipCap: big.NewInt(params.GWei), GasFeeCap: gas,
				Gas: 60000, To: nil, Data: []byte{0x60, 0x00, 0x60, 0x00, 0xf3}}) // a contract creation
		}
		if i >= 2 && i%3 != 0 {
			for u := 0; u < 1+i%2; u++ {
				parent := b.PrevBlock(i - 2)
				b.AddUncle(&types.Header{
					ParentHash: parent.Hash(),
					Number:     new(big.Int).Add(parent.Number(), common.Big1),
					Coinbase:   common.Address{0x0c, byte(i), byte(u)},
					Extra:      []byte{byte(u)},
				})
			}
		}
	})
	return blocks, receipts
}

// generatePoSChain makes the proof-of-stake chain with every transaction
// type and withdrawals.
func generatePoSChain() ([]*types.Block, []types.Receipts) {
	config := *params.MergedTestChainConfig
	config.AmsterdamTime = new(uint64)
	signer := types.LatestSigner(&config)
	chainID := uint256.MustFromBig(config.ChainID)
	gas := uint256.NewInt(100 * params.GWei)
	tip := uint256.NewInt(params.GWei)
	authNonce := uint64(0)
	_, blocks, receipts := core.GenerateChainWithGenesis(chainGenesis(&config), beacon.New(ethash.NewFaker()), 60, func(i int, b *core.BlockGen) {
		nonce := b.TxNonce(sender)
		sign := func(data types.TxData) {
			b.AddTx(types.MustSignNewTx(senderKey, signer, data))
			nonce++
		}
		if i%5 != 4 {
			sign(&types.LegacyTx{Nonce: nonce, GasPrice: gas.ToBig(), Gas: 21000, To: &recipient, Value: big.NewInt(1)})
			sign(&types.AccessListTx{ChainID: config.ChainID, Nonce: nonce, GasPrice: gas.ToBig(), Gas: 30000, To: &recipient,
				AccessList: types.AccessList{{Address: delegate, StorageKeys: []common.Hash{{1}, {2}}}}})
			sign(&types.DynamicFeeTx{ChainID: config.ChainID, Nonce: nonce, GasTipCap: tip.ToBig(), GasFeeCap: gas.ToBig(),
				Gas: 50000, To: &delegate, Data: make([]byte, 100)})
		}
		if i%2 == 0 {
			hashes := []common.Hash{{0x01, byte(i)}}
			if i%4 == 0 {
				hashes = append(hashes, common.Hash{0x01, byte(i), 1})
			}
			sign(&types.BlobTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: gas, Gas: 21000, To: recipient,
				BlobFeeCap: gas, BlobHashes: hashes})
		}
		if i%3 == 1 {
			auth, err := types.SignSetCode(authorityKey, types.SetCodeAuthorization{ChainID: *chainID, Address: delegate, Nonce: authNonce})
			if err != nil {
				panic(err)
			}
			authNonce++
			sign(&types.SetCodeTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: gas, Gas: 100000, To: authority,
				AuthList: []types.SetCodeAuthorization{auth}})
		}
		for w := range i % 4 {
			b.AddWithdrawal(&types.Withdrawal{Validator: uint64(w), Address: common.Address{0x3d, byte(w)}, Amount: uint64(i * 1000)})
		}
	})
	return blocks, receipts
}

// TestChainBlocks checks every block of the generated chains: VerifyBlockRLP
// accepts its export and gives go-ethereum's hash, and each hash and root of
// the header is what this package computes from the block's parts.
func TestChainBlocks(t *testing.T) {
	blocks := mustTestChain(t)
	if len(blocks) < 100 {
		t.Fatalf("only %d blocks", len(blocks))
	}
	seen := map[string]int{}
	for _, cb := range blocks {
		b := cb.block
		h := b.Header()
		got, err := VerifyBlockRLP(cb.raw)
		if err != nil {
			t.Fatalf("block %d: VerifyBlockRLP: %v", b.NumberU64(), err)
		}
		if got != b.Hash() {
			t.Fatalf("block %d: VerifyBlockRLP = %x, go-ethereum %x", b.NumberU64(), got, b.Hash())
		}
		info, err := VerifyBlockRLPInfo(cb.export)
		if err != nil {
			t.Fatalf("block %d: VerifyBlockRLPInfo of the export form: %v", b.NumberU64(), err)
		}
		wantInfo := BlockInfo{HeaderRead: true, Hash: b.Hash(), ParentHash: b.ParentHash(), Number: b.NumberU64(),
			Transactions: len(b.Transactions()), AccessListChecked: b.AccessList() != nil, HasAccessListHash: h.BlockAccessListHash != nil}
		if info != wantInfo {
			t.Fatalf("block %d: VerifyBlockRLPInfo = %+v, want %+v", b.NumberU64(), info, wantInfo)
		}
		if b.AccessList() != nil {
			if got := Keccak256Hash(accessListRLP(t, cb)); got != b.AccessList().Hash() || got != *h.BlockAccessListHash {
				t.Fatalf("block %d: the exported access list hashes to %x, go-ethereum %x", b.NumberU64(), got, b.AccessList().Hash())
			}
			seen["block access list"]++
		}
		checks := []struct {
			name      string
			got, want common.Hash
		}{
			{"HeaderHash", HeaderHash(h), b.Hash()},
			{"BlockHash", BlockHash(b), b.Hash()},
			{"TransactionsRoot", TransactionsRoot(b.Transactions()), h.TxHash},
			{"ReceiptsRoot", ReceiptsRoot(cb.receipts), h.ReceiptHash},
			{"UncleHash", UncleHash(b.Uncles()), h.UncleHash},
		}
		if h.WithdrawalsHash != nil {
			checks = append(checks, struct {
				name      string
				got, want common.Hash
			}{"WithdrawalsRoot", WithdrawalsRoot(b.Withdrawals()), *h.WithdrawalsHash})
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Fatalf("block %d: %s = %x, go-ethereum %x", b.NumberU64(), c.name, c.got, c.want)
			}
		}
		for _, tx := range b.Transactions() {
			if got := TxHash(tx); got != tx.Hash() {
				t.Fatalf("block %d: TxHash = %x, go-ethereum %x", b.NumberU64(), got, tx.Hash())
			}
			seen[[...]string{"legacy", "access list", "dynamic fee", "blob", "set code"}[tx.Type()]]++
		}
		if len(b.Uncles()) > 0 {
			seen["uncles"]++
		}
		if len(b.Withdrawals()) > 0 {
			seen["withdrawals"]++
		}
		if h.SlotNumber != nil {
			seen["amsterdam header"]++
		}
	}
	for _, what := range []string{"legacy", "access list", "dynamic fee", "blob", "set code", "uncles", "withdrawals", "amsterdam header", "block access list"} {
		if seen[what] == 0 {
			t.Errorf("the chain has no %s", what)
		}
	}
	t.Logf("%d blocks; %v", len(blocks), seen)
}

package adapter

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
)

// Benchmarks run keccakroot and go-ethereum side by side under names that
// benchstat pairs:
//
//	go test ./adapter -run '^$' -bench . -count 6 -benchmem | tee bench.txt
//	benchstat -col /impl bench.txt
//
// Each checks its result against go-ethereum's, computed in the same
// benchmark, so that no -bench filter can turn the check off.

// checkResult fails the benchmark if got is not want.
func checkResult(b *testing.B, got, want common.Hash) {
	b.Helper()
	if got != want {
		b.Fatalf("got %x, go-ethereum %x", got, want)
	}
}

// benchHeader returns a post-Cancun (Prague) header as mainnet has them.
func benchHeader() *types.Header {
	r := newRand(&testing.B{})
	h := randHeader(r, 0x3f) // BaseFee to RequestsHash
	h.Difficulty = new(big.Int)
	h.Number = big.NewInt(22_000_000)
	h.GasLimit, h.GasUsed, h.Time = 36_000_000, 17_123_456, 1_745_000_000
	h.Extra = []byte("beaverbuild.org")
	h.Nonce = types.BlockNonce{}
	*h.BlobGasUsed, *h.ExcessBlobGas = 393216, 0x4b40000
	h.BaseFee = big.NewInt(1_234_567_890)
	return h
}

func BenchmarkHeaderHash(b *testing.B) {
	h := benchHeader()
	want := h.Hash()
	b.Run("impl=keccakroot", func(b *testing.B) {
		b.ReportAllocs()
		var got common.Hash
		for b.Loop() {
			got = HeaderHash(h)
		}
		checkResult(b, got, want)
	})
	b.Run("impl=go-ethereum", func(b *testing.B) {
		b.ReportAllocs()
		var got common.Hash
		for b.Loop() {
			got = h.Hash()
		}
		checkResult(b, got, want)
	})
}

// benchTx returns a signed transaction of the given type, shaped like a
// mainnet token transfer: a 68-byte call, a contract recipient, a value.
func benchTx(typ byte) *types.Transaction {
	key, _ := crypto.ToECDSA(common.LeftPadBytes([]byte{7}, 32))
	signer := types.LatestSignerForChainID(params.MainnetChainConfig.ChainID)
	to := common.HexToAddress("0xdac17f958d2ee523a2206206994597c13d831ec7")
	data := common.FromHex("a9059cbb000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266000000000000000000000000000000000000000000000000000000003b9aca00")
	value := big.NewInt(123_456_789_000_000)
	var inner types.TxData
	switch typ {
	case types.LegacyTxType:
		inner = &types.LegacyTx{Nonce: 1234, GasPrice: big.NewInt(30e9), Gas: 65000, To: &to, Value: value, Data: data}
	case types.DynamicFeeTxType:
		inner = &types.DynamicFeeTx{ChainID: big.NewInt(1), Nonce: 1234, GasTipCap: big.NewInt(2e9), GasFeeCap: big.NewInt(30e9),
			Gas: 65000, To: &to, Value: value, Data: data}
	}
	return types.MustSignNewTx(key, signer, inner)
}

// freshTxs decodes n copies of a transaction: go-ethereum caches a
// transaction's hash, so its side of the benchmark hashes a fresh one each
// time. The decoding happens with the timer stopped.
type freshTxs struct {
	raw  []byte
	txs  []*types.Transaction
	next int
}

func (f *freshTxs) take(b *testing.B) *types.Transaction {
	if f.next == len(f.txs) {
		b.StopTimer()
		if f.txs == nil {
			f.txs = make([]*types.Transaction, 4096)
		}
		for i := range f.txs {
			f.txs[i] = new(types.Transaction)
			if err := f.txs[i].UnmarshalBinary(f.raw); err != nil {
				b.Fatal(err)
			}
		}
		f.next = 0
		b.StartTimer()
	}
	f.next++
	return f.txs[f.next-1]
}

func BenchmarkTxHash(b *testing.B) {
	for _, c := range []struct {
		name string
		typ  byte
	}{{"dynamic-fee", types.DynamicFeeTxType}, {"legacy", types.LegacyTxType}} {
		tx := benchTx(c.typ)
		raw, err := tx.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		want := tx.Hash()
		b.Run("type="+c.name+"/impl=keccakroot", func(b *testing.B) {
			b.ReportAllocs()
			var got common.Hash
			for b.Loop() {
				got = TxHash(tx)
			}
			checkResult(b, got, want)
		})
		b.Run("type="+c.name+"/impl=go-ethereum", func(b *testing.B) {
			b.ReportAllocs()
			fresh := freshTxs{raw: raw}
			var got common.Hash
			for b.Loop() {
				got = fresh.take(b).Hash()
			}
			checkResult(b, got, want)
		})
	}
}

// benchTxs returns n signed transactions, alternating dynamic-fee and
// legacy.
func benchTxs(n int) types.Transactions {
	base := [2]*types.Transaction{benchTx(types.DynamicFeeTxType), benchTx(types.LegacyTxType)}
	txs := make(types.Transactions, n)
	for i := range txs {
		raw, _ := base[i%2].MarshalBinary()
		txs[i] = new(types.Transaction)
		if err := txs[i].UnmarshalBinary(raw); err != nil {
			panic(err)
		}
	}
	return txs
}

func BenchmarkDeriveSha(b *testing.B) {
	r := newRand(b)
	lists := []struct {
		name string
		list types.DerivableList
	}{
		{"list=200-transactions", benchTxs(200)},
		{"list=200-receipts", randReceipts(r, 200)},
		{"list=16-withdrawals", randWithdrawals(r, 16)},
	}
	for _, l := range lists {
		want := types.DeriveSha(l.list, trie.NewStackTrie(nil))
		b.Run(l.name+"/impl=keccakroot", func(b *testing.B) {
			b.ReportAllocs()
			var got common.Hash
			for b.Loop() {
				got = DeriveSha(l.list)
			}
			checkResult(b, got, want)
		})
		b.Run(l.name+"/impl=go-ethereum", func(b *testing.B) {
			b.ReportAllocs()
			var got common.Hash
			for b.Loop() {
				got = types.DeriveSha(l.list, trie.NewStackTrie(nil))
			}
			checkResult(b, got, want)
		})
	}
}

func BenchmarkGenesisStateRoot(b *testing.B) {
	nets := []struct {
		name string
		g    func() *core.Genesis
	}{
		{"mainnet", core.DefaultGenesisBlock},
		// A synthetic genesis of a million funded accounts without code or
		// storage, as a large devnet or test network would have.
		{"synthetic-1M", func() *core.Genesis { return syntheticGenesis(1_000_000) }},
	}
	for _, net := range nets {
		if testing.Short() && net.name != "mainnet" {
			continue
		}
		g := net.g()
		want := g.ToBlock().Root()
		b.Run("net="+net.name+"/impl=keccakroot", func(b *testing.B) {
			b.ReportAllocs()
			var got common.Hash
			for b.Loop() {
				got = GenesisStateRoot(g.Alloc)
			}
			checkResult(b, got, want)
		})
		b.Run("net="+net.name+"/impl=go-ethereum", func(b *testing.B) {
			b.ReportAllocs()
			var got common.Hash
			for b.Loop() {
				got = g.ToBlock().Root()
			}
			checkResult(b, got, want)
		})
	}
}

// syntheticGenesis returns mainnet's genesis with n random funded accounts
// in place of its allocation.
func syntheticGenesis(n int) *core.Genesis {
	g := core.DefaultGenesisBlock()
	g.Alloc = make(types.GenesisAlloc, n)
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	for range n {
		var addr common.Address
		for i := range addr {
			addr[i] = byte(rng.Uint32())
		}
		g.Alloc[addr] = types.Account{Balance: new(big.Int).SetUint64(rng.Uint64()), Nonce: rng.Uint64N(1000)}
	}
	return g
}

// benchBlock returns the RLP of a block of 200 transactions, with
// withdrawals, as a post-Cancun chain export holds it.
func benchBlock(b *testing.B) ([]byte, common.Hash) {
	body := &types.Body{Transactions: benchTxs(200), Withdrawals: randWithdrawals(newRand(b), 16)}
	block := types.NewBlock(benchHeader(), body, nil, trie.NewStackTrie(nil))
	raw, err := rlp.EncodeToBytes(block)
	if err != nil {
		b.Fatal(err)
	}
	return raw, block.Hash()
}

func BenchmarkVerifyBlockRLP(b *testing.B) {
	raw, want := benchBlock(b)
	b.Run("txs=200/impl=keccakroot", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(raw)))
		var got common.Hash
		for b.Loop() {
			var err error
			if got, err = VerifyBlockRLP(raw); err != nil {
				b.Fatal(err)
			}
		}
		checkResult(b, got, want)
	})
	// go-ethereum's way: decode the block, recompute the roots the header
	// commits the body to, compare them and hash the header.
	b.Run("txs=200/impl=go-ethereum", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(raw)))
		var got common.Hash
		for b.Loop() {
			var block types.Block
			if err := rlp.DecodeBytes(raw, &block); err != nil {
				b.Fatal(err)
			}
			if !gethBodyMatches(&block) {
				b.Fatal("go-ethereum rejects the block")
			}
			got = block.Hash()
		}
		checkResult(b, got, want)
	})
}

func BenchmarkKeccak256Hash(b *testing.B) {
	data := make([]byte, 32)
	want := crypto.Keccak256Hash(data, data)
	b.Run("size=64/impl=keccakroot", func(b *testing.B) {
		b.ReportAllocs()
		var got common.Hash
		for b.Loop() {
			got = Keccak256Hash(data, data)
		}
		checkResult(b, got, want)
	})
	b.Run("size=64/impl=go-ethereum", func(b *testing.B) {
		b.ReportAllocs()
		var got common.Hash
		for b.Loop() {
			got = crypto.Keccak256Hash(data, data)
		}
		checkResult(b, got, want)
	})
}

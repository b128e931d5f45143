package adapter

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// randAlloc returns a random genesis allocation of n accounts, with
// storage (zero values included), code, nonces and balances up to 256 bits.
func randAlloc(r *rand.Rand, n int) types.GenesisAlloc {
	alloc := types.GenesisAlloc{}
	for range n {
		var a types.Account
		if r.IntN(5) != 0 {
			a.Balance = randBig(r, 256)
		}
		if r.IntN(3) == 0 {
			a.Nonce = randUint64(r)
		}
		if r.IntN(3) == 0 {
			a.Code = randBytes(r)
		}
		if r.IntN(3) == 0 {
			a.Storage = map[common.Hash]common.Hash{}
			for range [...]int{0, 1, 2, 5, 40}[r.IntN(5)] {
				var v common.Hash
				if r.IntN(4) != 0 { // a quarter of the slots hold zero
					v = randHash(r)
					if r.IntN(2) == 0 {
						v = common.BigToHash(big.NewInt(int64(r.IntN(300))))
					}
				}
				a.Storage[randHash(r)] = v
			}
		}
		alloc[randAddress(r)] = a
	}
	return alloc
}

// genesisConfigs are chain configurations whose genesis headers differ: no
// fork fields, London, Shanghai to Prague (with Osaka), and Amsterdam.
var genesisConfigs = []struct {
	name   string
	config *params.ChainConfig
}{
	{"frontier", params.NonActivatedConfig},
	{"london ethash", params.AllEthashProtocolChanges},
	{"merged", params.MergedTestChainConfig},
	{"dev", params.AllDevChainProtocolChanges},
	{"amsterdam", amsterdamConfig()},
}

// amsterdamConfig returns a merged configuration with every fork up to
// Amsterdam active from genesis.
func amsterdamConfig() *params.ChainConfig {
	c := *params.MergedTestChainConfig
	c.AmsterdamTime = new(uint64)
	return &c
}

func TestGenesisStateRoot(t *testing.T) {
	r := newRand(t)
	for _, n := range []int{0, 1, 2, 17, 200} {
		alloc := randAlloc(r, n)
		g := &core.Genesis{Config: params.AllEthashProtocolChanges, Alloc: alloc}
		if got, want := GenesisStateRoot(alloc), g.ToBlock().Root(); got != want {
			t.Fatalf("%d accounts: GenesisStateRoot = %x, go-ethereum %x", n, got, want)
		}
	}
}

func TestGenesisStateRootEdgeCases(t *testing.T) {
	max256 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	tests := []struct {
		name    string
		account types.Account
	}{
		{"empty account", types.Account{}},
		{"zero balance", types.Account{Balance: new(big.Int)}},
		{"largest balance", types.Account{Balance: max256}},
		{"negative balance", types.Account{Balance: big.NewInt(-1)}},
		{"only zero storage", types.Account{Storage: map[common.Hash]common.Hash{{1}: {}}}},
		{"empty code", types.Account{Code: []byte{}, Nonce: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			alloc := types.GenesisAlloc{{0x01}: tt.account, {0x02}: {Balance: big.NewInt(1)}}
			g := &core.Genesis{Config: params.AllEthashProtocolChanges, Alloc: alloc}
			if got, want := GenesisStateRoot(alloc), g.ToBlock().Root(); got != want {
				t.Fatalf("GenesisStateRoot = %x, go-ethereum %x", got, want)
			}
		})
	}
}

func TestGenesisBalanceOverflow(t *testing.T) {
	alloc := types.GenesisAlloc{{0x01}: {Balance: new(big.Int).Lsh(big.NewInt(1), 256)}}
	if _, err := GenesisBlockHash(&core.Genesis{Alloc: alloc}); !errors.Is(err, ErrGenesisBalance) {
		t.Fatalf("GenesisBlockHash error %v, want %v", err, ErrGenesisBalance)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("GenesisStateRoot did not panic on a balance over 256 bits")
		}
	}()
	GenesisStateRoot(alloc)
}

// TestGenesisBlockHash compares GenesisBlockHash with ToBlock().Hash() for
// the configurations whose headers differ and the genesis fields ToBlock
// reads or defaults.
func TestGenesisBlockHash(t *testing.T) {
	r := newRand(t)
	alloc := randAlloc(r, 5)
	three := uint64(3)
	for _, c := range genesisConfigs {
		for _, tc := range []struct {
			name string
			g    core.Genesis
		}{
			{"defaults", core.Genesis{}},
			{"fields", core.Genesis{
				Nonce: 66, Timestamp: 1700000000, ExtraData: []byte("genesis"), GasLimit: 30_000_000,
				Difficulty: big.NewInt(17), Mixhash: common.Hash{1}, Coinbase: common.Address{2},
				Number: 5, GasUsed: 7, ParentHash: common.Hash{3}, BaseFee: big.NewInt(9),
				ExcessBlobGas: &three, BlobGasUsed: &three, SlotNumber: &three,
			}},
			{"mix hash without difficulty", core.Genesis{Mixhash: common.Hash{1}}},
		} {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				g := tc.g
				g.Config, g.Alloc = c.config, alloc
				got, err := GenesisBlockHash(&g)
				if err != nil {
					t.Fatal(err)
				}
				if want := g.ToBlock().Hash(); got != want {
					t.Fatalf("GenesisBlockHash = %x, go-ethereum %x", got, want)
				}
			})
		}
	}
}

// TestGenesisWithoutConfig checks the case go-ethereum's ToBlock cannot
// take (it dereferences the configuration): a header without fork fields.
func TestGenesisWithoutConfig(t *testing.T) {
	g := &core.Genesis{Alloc: types.GenesisAlloc{{1}: {Balance: big.NewInt(1)}}}
	h := GenesisHeader(g, GenesisStateRoot(g.Alloc))
	if h.BaseFee != nil || h.WithdrawalsHash != nil || h.Difficulty.Cmp(params.GenesisDifficulty) != 0 {
		t.Fatalf("header without configuration has fork fields or wrong difficulty: %+v", h)
	}
	got, err := GenesisBlockHash(g)
	if err != nil || got != h.Hash() {
		t.Fatalf("GenesisBlockHash = %x, %v; want %x", got, err, h.Hash())
	}
}

// TestGenesisUBT checks that a genesis in a binary trie, whose root this
// package does not compute, gets go-ethereum's.
func TestGenesisUBT(t *testing.T) {
	c := *params.MergedTestChainConfig
	c.EnableUBTAtGenesis = true
	g := &core.Genesis{Config: &c, Alloc: types.GenesisAlloc{{1}: {Balance: big.NewInt(1)}}}
	got, err := GenesisBlockHash(g)
	if err != nil {
		t.Fatal(err)
	}
	if want := g.ToBlock().Hash(); got != want {
		t.Fatalf("GenesisBlockHash = %x, go-ethereum %x", got, want)
	}
}

// TestPublicGenesisBlocks checks the genesis blocks of the public networks
// against their published hashes, which go-ethereum ships as constants.
func TestPublicGenesisBlocks(t *testing.T) {
	tests := []struct {
		name    string
		genesis *core.Genesis
		want    common.Hash
	}{
		{"mainnet", core.DefaultGenesisBlock(), params.MainnetGenesisHash},
		{"sepolia", core.DefaultSepoliaGenesisBlock(), params.SepoliaGenesisHash},
		{"hoodi", core.DefaultHoodiGenesisBlock(), params.HoodiGenesisHash},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := GenesisBlockHash(tt.genesis)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("GenesisBlockHash = %x, want %x", got, tt.want)
			}
		})
	}
}

// TestGenesisHugeNumber: a genesis numbered 2^63 or more has go-ethereum's
// hash, whose fork checks read the number as an int64 (negative: before
// every fork, so only the base fee of London at block 0 is set).
func TestGenesisHugeNumber(t *testing.T) {
	for _, c := range genesisConfigs {
		for _, num := range []uint64{1 << 62, 1 << 63, 1<<64 - 1} {
			g := &core.Genesis{Config: c.config, Number: num, Alloc: types.GenesisAlloc{{1}: {Balance: big.NewInt(1)}}}
			got, err := GenesisBlockHash(g)
			if err != nil {
				t.Fatal(err)
			}
			if want := g.ToBlock().Hash(); got != want {
				t.Errorf("%s, number %d: GenesisBlockHash %x, go-ethereum %x", c.name, num, got, want)
			}
		}
	}
}

// TestGenesisHeaderOwnsItsValues: writing through the header GenesisHeader
// returns changes neither the genesis nor go-ethereum's empty roots.
func TestGenesisHeaderOwnsItsValues(t *testing.T) {
	g := &core.Genesis{Config: params.MergedTestChainConfig, BaseFee: big.NewInt(7), ExtraData: []byte{1}}
	h := GenesisHeader(g, common.Hash{})
	if h.WithdrawalsHash == nil || h.BaseFee == nil || len(h.Extra) == 0 {
		t.Fatalf("want a header with a withdrawals root, a base fee and extra data: %+v", h)
	}
	wantEmpty := types.EmptyWithdrawalsHash
	h.WithdrawalsHash[0] ^= 1
	h.BaseFee.SetUint64(9)
	h.Extra[0] = 2
	if types.EmptyWithdrawalsHash != wantEmpty || g.BaseFee.Uint64() != 7 || g.ExtraData[0] != 1 {
		t.Fatal("a write through the genesis header changed go-ethereum's empty withdrawals root or the genesis")
	}
}

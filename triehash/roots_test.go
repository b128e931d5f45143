package triehash

import (
	"bytes"
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/holiman/uint256"
)

func shuffled(rng *rand.Rand, keys, values [][]byte) ([][]byte, [][]byte) {
	k, v := append([][]byte(nil), keys...), append([][]byte(nil), values...)
	rng.Shuffle(len(k), func(i, j int) { k[i], k[j] = k[j], k[i]; v[i], v[j] = v[j], v[i] })
	return k, v
}

func TestRootAnyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 100 {
		keys, values := randomSet(rng, rng.IntN(300), 1+rng.IntN(8), round%2 == 0, 1+rng.IntN(100))
		want := gethTrieRoot(t, keys, values)
		k, v := shuffled(rng, keys, values)
		got, err := Root(k, v)
		if err != nil || got != want {
			t.Fatalf("round %d: Root = %x, %v; want %x", round, got, err, want)
		}
		// SecureRoot is the trie of hashed keys.
		hk := make([][]byte, len(keys))
		for i := range keys {
			hk[i] = crypto.Keccak256(keys[i])
		}
		want = gethTrieRoot(t, hk, values)
		if got, err := SecureRoot(k, v); err != nil || got != want {
			t.Fatalf("round %d: SecureRoot = %x, %v; want %x", round, got, err, want)
		}
	}
}

func TestRootRejectsBadInput(t *testing.T) {
	keys := [][]byte{[]byte("a"), []byte("b"), []byte("a")}
	values := [][]byte{{1}, {2}, {3}}
	if _, err := Root(keys, values); !errors.Is(err, ErrDuplicateKey) {
		t.Errorf("Root with a repeated key: %v", err)
	}
	if _, err := SecureRoot(keys, values); !errors.Is(err, ErrDuplicateKey) || !bytes.Contains([]byte(err.Error()), []byte("61")) {
		t.Errorf("SecureRoot with a repeated key: %v", err)
	}
	if _, err := Root(keys[:2], [][]byte{{1}, nil}); !errors.Is(err, ErrEmptyValue) {
		t.Errorf("Root with an empty value: %v", err)
	}
	if _, err := Root(keys, values[:1]); !errors.Is(err, ErrLengthMismatch) {
		t.Errorf("Root with fewer values: %v", err)
	}
}

// randomTransactions returns n signed-shape transactions of every type.
func randomTransactions(rng *rand.Rand, n int) types.Transactions {
	txs := make(types.Transactions, n)
	to := common.Address{0xaa}
	for i := range txs {
		data := make([]byte, rng.IntN(300))
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		nonce := rng.Uint64N(1 << 40)
		v, r, s := big.NewInt(int64(rng.IntN(2))), new(big.Int).SetUint64(rng.Uint64()), new(big.Int).SetUint64(rng.Uint64())
		switch i % 5 {
		case 0:
			txs[i] = types.NewTx(&types.LegacyTx{Nonce: nonce, GasPrice: big.NewInt(7), Gas: 21000, To: &to, Value: big.NewInt(int64(i)), Data: data, V: big.NewInt(27), R: r, S: s})
		case 1:
			txs[i] = types.NewTx(&types.AccessListTx{ChainID: big.NewInt(1), Nonce: nonce, GasPrice: big.NewInt(9), Gas: 50000, To: &to, Data: data,
				AccessList: types.AccessList{{Address: to, StorageKeys: []common.Hash{{1}, {2}}}}, V: v, R: r, S: s})
		case 2:
			txs[i] = types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(1), Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(100), Gas: 60000, To: nil, Data: data, V: v, R: r, S: s})
		case 3:
			txs[i] = types.NewTx(&types.BlobTx{ChainID: uint256.NewInt(1), Nonce: nonce, GasTipCap: uint256.NewInt(1), GasFeeCap: uint256.NewInt(50), Gas: 70000, To: to, Data: data,
				BlobFeeCap: uint256.NewInt(3), BlobHashes: []common.Hash{{0x01, 2}}, V: uint256.NewInt(1), R: uint256.NewInt(rng.Uint64()), S: uint256.NewInt(5)})
		case 4:
			txs[i] = types.NewTx(&types.SetCodeTx{ChainID: uint256.NewInt(1), Nonce: nonce, GasTipCap: uint256.NewInt(2), GasFeeCap: uint256.NewInt(40), Gas: 80000, To: to, Data: data,
				AuthList: []types.SetCodeAuthorization{{ChainID: *uint256.NewInt(1), Address: to, Nonce: 3, V: 1, R: *uint256.NewInt(9), S: *uint256.NewInt(8)}}, V: uint256.NewInt(0), R: uint256.NewInt(4), S: uint256.NewInt(6)})
		}
	}
	return txs
}

func TestListRootMatchesDeriveSha(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	lengths := []int{0, 1, 2, 127, 128, 129, 200, 255, 256, 257, 1000, 2000}
	for _, n := range lengths {
		txs := randomTransactions(rng, n)
		want := types.DeriveSha(txs, trie.NewStackTrie(nil))
		got := ListRoot(txs.Len(), func(i int, buf []byte) []byte {
			var w bytes.Buffer
			txs.EncodeIndex(i, &w)
			return append(buf, w.Bytes()...)
		})
		if got != want {
			t.Fatalf("%d transactions: ListRoot %x, DeriveSha %x", n, got, want)
		}
	}
}

func TestStateHelpers(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for round := range 20 {
		n := rng.IntN(200)
		if round == 0 {
			n = parallelMinKeys + 100 // the parallel path
		}
		addresses := make([][20]byte, n)
		accounts := make([]Account, n)
		keys, values := make([][]byte, n), make([][]byte, n)
		for i := range addresses {
			for j := range addresses[i] {
				addresses[i][j] = byte(rng.Uint32())
			}
			a := &accounts[i]
			a.Nonce = rng.Uint64() >> rng.IntN(64)
			a.Balance.SetUint64(rng.Uint64())
			a.Balance.Lsh(&a.Balance, uint(rng.IntN(190)))
			a.StorageRoot, a.CodeHash = EmptyRoot, EmptyCodeHash
			if rng.IntN(2) == 0 {
				a.StorageRoot[3], a.CodeHash[7] = byte(round), byte(i)
			}
			// The reference encoding is go-ethereum's own StateAccount.
			enc, err := rlp.EncodeToBytes(&types.StateAccount{Nonce: a.Nonce, Balance: a.Balance.Clone(), Root: a.StorageRoot, CodeHash: a.CodeHash[:]})
			if err != nil {
				t.Fatal(err)
			}
			if got := AppendAccount(nil, a); !bytes.Equal(got, enc) {
				t.Fatalf("AppendAccount %x, go-ethereum %x", got, enc)
			}
			keys[i], values[i] = crypto.Keccak256(addresses[i][:]), enc
		}
		want := gethTrieRoot(t, keys, values)
		for _, workers := range []int{1, 3} {
			got, err := Options{Workers: workers}.StateRoot(addresses, accounts)
			if err != nil || got != want {
				t.Fatalf("%d accounts, %d workers: StateRoot %x, %v; want %x", n, workers, got, err, want)
			}
		}
	}
}

func TestStorageRoot(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for round := range 20 {
		n := rng.IntN(300)
		if round == 0 {
			n = parallelMinKeys + 1000 // the parallel path
		}
		keys, values := make([][32]byte, n), make([][32]byte, n)
		var hk, hv [][]byte
		for i := range keys {
			keys[i][rng.IntN(32)] = byte(rng.Uint32())
			keys[i][31] = byte(i)
			keys[i][30] = byte(i >> 8)
			if rng.IntN(5) > 0 { // some slots stay zero and are left out
				for j := rng.IntN(32); j < 32; j++ {
					values[i][j] = byte(rng.Uint32())
				}
			}
			trimmed := common.TrimLeftZeroes(values[i][:])
			if len(trimmed) == 0 {
				continue
			}
			enc, _ := rlp.EncodeToBytes(trimmed)
			hk, hv = append(hk, crypto.Keccak256(keys[i][:])), append(hv, enc)
		}
		want := gethTrieRoot(t, hk, hv)
		for _, workers := range []int{1, 2} {
			got, err := Options{Workers: workers}.StorageRoot(keys, values)
			if err != nil || got != want {
				t.Fatalf("%d slots, %d workers: StorageRoot %x, %v; want %x", n, workers, got, err, want)
			}
		}
	}
}

// TestStorageRootRepeatedZeroSlot: a slot given twice is ErrDuplicateKey
// also when one of its values, or both, are zero (and so left out of the
// trie), whatever the order.
func TestStorageRootRepeatedZeroSlot(t *testing.T) {
	k, other := [32]byte{1}, [32]byte{2}
	for _, values := range [][][32]byte{{{}, {31: 5}}, {{31: 5}, {}}, {{}, {}}} {
		keys := [][32]byte{k, other, k}
		vals := [][32]byte{values[0], {31: 1}, values[1]}
		if _, err := StorageRoot(keys, vals); !errors.Is(err, ErrDuplicateKey) {
			t.Errorf("slot %x with values %x and %x: %v, want ErrDuplicateKey", k[:1], values[0][31], values[1][31], err)
		}
	}
}

// TestListRootKeepsNoCallerSlice: a value callback that returns a slice of
// its own rather than appending to buf breaks ListRoot's contract, but its
// memory must not be written by a later ListRoot, which reuses the pooled
// buffer.
func TestListRootKeepsNoCallerSlice(t *testing.T) {
	table := bytes.Repeat([]byte{0xaa}, 64)
	orig := bytes.Clone(table)
	ListRoot(4, func(i int, _ []byte) []byte { return table[i*4 : i*4+4] })
	ListRoot(3, func(_ int, buf []byte) []byte { return append(buf, 1, 2, 3, 4, 5, 6) })
	if !bytes.Equal(table, orig) {
		t.Fatalf("a later ListRoot wrote into the first caller's memory: %x", table)
	}
}

func FuzzRoot(f *testing.F) {
	f.Add([]byte("\x02do\x04verb\x05horse\x08stallion"))
	f.Add([]byte("\x00\x01\x01\x01\x01\x02\x02\x01\x02\x03"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// data is a sequence of (key length, key, value length, value).
		var keys, values [][]byte
		seen := map[string]bool{}
		for len(data) > 0 {
			kl := int(data[0]) % 40
			data = data[1:]
			if len(data) < kl+1 {
				break
			}
			k := data[:kl]
			vl := int(data[kl]) % 200
			data = data[kl+1:]
			if len(data) < vl {
				break
			}
			v := data[:vl]
			data = data[vl:]
			if len(v) == 0 || seen[string(k)] {
				continue
			}
			seen[string(k)] = true
			keys, values = append(keys, k), append(values, v)
		}
		got, err := Root(keys, values)
		if err != nil {
			t.Fatal(err)
		}
		if want := gethTrieRoot(t, keys, values); got != want {
			t.Fatalf("Root %x, trie.Trie %x", got, want)
		}
	})
}

func TestSortedOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, n := range []int{0, 1, 5, radixThreshold - 1, radixThreshold, 1000, 5000} {
		keys := make([][]byte, n)
		for i := range keys {
			keys[i] = make([]byte, rng.IntN(7))
			for j := range keys[i] {
				keys[i][j] = byte(rng.IntN(3))
			}
		}
		order := sortedOrder(keys, nil)
		if len(order) != n {
			t.Fatalf("n=%d: %d indices", n, len(order))
		}
		seen := make([]bool, n)
		for i, idx := range order {
			if seen[idx] {
				t.Fatalf("n=%d: index %d twice", n, idx)
			}
			seen[idx] = true
			if i > 0 && bytes.Compare(keys[order[i-1]], keys[idx]) > 0 {
				t.Fatalf("n=%d: %x sorted before %x", n, keys[order[i-1]], keys[idx])
			}
		}
	}
}

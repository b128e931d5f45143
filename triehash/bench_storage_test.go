package triehash

import (
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
)

// storageSlots is the number of slots of BenchmarkStorageRoot: a large
// contract's storage.
const storageSlots = 10000

// BenchmarkStorageRoot: StorageRoot of 10,000 random slots in random order
// against go-ethereum's secure trie as its state updates a storage trie
// (the Keccak-256 of the slot as key, the RLP string of the value without
// its leading zeros as value).
func BenchmarkStorageRoot(b *testing.B) {
	rng := rand.New(rand.NewPCG(41, 42))
	keys := make([][32]byte, storageSlots)
	values := make([][32]byte, storageSlots)
	for i := range keys {
		for j := range keys[i] {
			keys[i][j] = byte(rng.Uint32())
		}
		// Values of 1 to 32 significant bytes, as counters, balances and
		// hashes are.
		for j := 32 - 1 - rng.IntN(32); j < 32; j++ {
			values[i][j] = byte(rng.Uint32() | 1)
		}
	}
	gethStorageRoot := func() [32]byte {
		tr := trie.NewEmpty(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil))
		for i := range keys {
			v, err := rlp.EncodeToBytes(common.TrimLeftZeroes(values[i][:]))
			if err != nil {
				b.Fatal(err)
			}
			if err := tr.Update(crypto.Keccak256(keys[i][:]), v); err != nil {
				b.Fatal(err)
			}
		}
		return tr.Hash()
	}
	want := gethStorageRoot()

	b.Run("slots=10000/impl=keccakroot", func(b *testing.B) {
		b.ReportAllocs()
		var root [32]byte
		for b.Loop() {
			var err error
			if root, err = StorageRoot(keys, values); err != nil {
				b.Fatal(err)
			}
		}
		reportPerKey(b, storageSlots)
		if root != want {
			b.Fatalf("root %x, want %x", root, want)
		}
	})
	b.Run("slots=10000/impl=go-ethereum", func(b *testing.B) {
		b.ReportAllocs()
		var root [32]byte
		for b.Loop() {
			root = gethStorageRoot()
		}
		reportPerKey(b, storageSlots)
		if root != want {
			b.Fatalf("root %x, want %x", root, want)
		}
	})
}

package adapter

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/triehash"
)

// GenesisStateRoot returns the state root of a genesis allocation, in place
// of the root that core.Genesis.ToBlock computes through a state database:
// every account of the allocation, with its nonce, balance, code hash and
// storage root (slots holding zero are left out, as go-ethereum deletes
// them), in a secure trie by address. An account whose fields are all empty
// is still in the trie, as in go-ethereum's genesis. It is the root of a
// Merkle-Patricia genesis: for one that starts on a binary trie
// (enableUBTAtGenesis), ToBlock's root is the binary trie's, which
// GenesisBlockHash computes with go-ethereum.
//
// It panics, as go-ethereum's ToBlock does, if a balance does not fit in 256
// bits; GenesisBlockHash returns an error instead. A negative balance is taken
// modulo 2^256, as go-ethereum takes it.
func GenesisStateRoot(alloc types.GenesisAlloc) common.Hash {
	root, err := genesisStateRoot(alloc)
	if err != nil {
		panic(err)
	}
	return root
}

// genesisStateRoot is GenesisStateRoot with the balance overflow as an error.
func genesisStateRoot(alloc types.GenesisAlloc) (common.Hash, error) {
	addresses := make([][20]byte, 0, len(alloc))
	accounts := make([]triehash.Account, 0, len(alloc))
	var keys, values [][32]byte // reused across accounts
	for addr, a := range alloc {
		acc := triehash.Account{
			Nonce:       a.Nonce,
			StorageRoot: triehash.EmptyRoot,
			CodeHash:    triehash.EmptyCodeHash,
		}
		if a.Balance != nil && acc.Balance.SetFromBig(a.Balance) {
			return common.Hash{}, fmt.Errorf("%w: account %s", ErrGenesisBalance, addr.Hex())
		}
		if len(a.Code) > 0 {
			acc.CodeHash = fastkeccak.Sum256(a.Code)
		}
		if len(a.Storage) > 0 {
			keys, values = keys[:0], values[:0]
			for k, v := range a.Storage {
				keys = append(keys, k)
				values = append(values, v)
			}
			root, err := triehash.StorageRoot(keys, values)
			if err != nil {
				return common.Hash{}, fmt.Errorf("adapter: storage of %s: %w", addr.Hex(), err)
			}
			acc.StorageRoot = root
		}
		addresses = append(addresses, addr)
		accounts = append(accounts, acc)
	}
	root, err := triehash.StateRoot(addresses, accounts)
	if err != nil {
		return common.Hash{}, fmt.Errorf("adapter: state trie: %w", err)
	}
	return root, nil
}

// GenesisBlockHash returns the hash of the genesis block that g describes, in
// place of g.ToBlock().Hash(). The state root comes from GenesisStateRoot;
// the header is built as ToBlock builds it, with the fields each fork active
// at genesis adds, and hashed with HeaderHash.
//
// A genesis whose state is a binary (UBT) trie rather than a Merkle-Patricia
// trie is handed to go-ethereum's ToBlock, which computes that state root. A
// genesis without a chain configuration gets a header without fork fields.
// The error reports a balance that does not fit in 256 bits, or a nil g.
func GenesisBlockHash(g *core.Genesis) (common.Hash, error) {
	if g == nil {
		return common.Hash{}, nilArgument("genesis")
	}
	if g.Config != nil && g.IsUBT() {
		return g.ToBlock().Hash(), nil
	}
	root, err := genesisStateRoot(g.Alloc)
	if err != nil {
		return common.Hash{}, err
	}
	return HeaderHash(GenesisHeader(g, root)), nil
}

// GenesisHeader returns the header of the genesis block that g describes,
// with the given state root, as g.ToBlock() builds it: the fields of g, the
// defaults go-ethereum puts in their place, the empty roots of an empty body,
// and the fork fields of the forks active at genesis (set by
// setGenesisForkFields, generated from the header's field table). The
// header shares no memory with g or go-ethereum. A nil genesis has no
// header: the result is nil.
func GenesisHeader(g *core.Genesis, root common.Hash) *types.Header {
	if g == nil {
		return nil
	}
	h := &types.Header{
		ParentHash:  g.ParentHash,
		UncleHash:   types.EmptyUncleHash,
		Coinbase:    g.Coinbase,
		Root:        root,
		TxHash:      types.EmptyTxsHash,
		ReceiptHash: types.EmptyReceiptsHash,
		Difficulty:  g.Difficulty,
		Number:      new(big.Int).SetUint64(g.Number),
		GasLimit:    g.GasLimit,
		GasUsed:     g.GasUsed,
		Time:        g.Timestamp,
		Extra:       g.ExtraData,
		MixDigest:   g.Mixhash,
		Nonce:       types.EncodeNonce(g.Nonce),
	}
	if g.GasLimit == 0 {
		h.GasLimit = params.GenesisGasLimit
	}
	if g.Difficulty == nil {
		if g.Config != nil && g.Config.Ethash == nil {
			h.Difficulty = new(big.Int)
		} else if g.Mixhash == (common.Hash{}) {
			h.Difficulty = params.GenesisDifficulty
		}
	}
	setGenesisForkFields(h, g)
	// As Block.Header does: the caller gets its own values, not g's nor
	// go-ethereum's empty roots, which a write through the header would
	// change for the whole process.
	return types.CopyHeader(h)
}

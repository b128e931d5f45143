// Command blockstate does what a client does after every block: it opens
// the state trie of Ethereum mainnet's genesis from go-ethereum's trie
// database, loads the paths of the block's accounts (as go-ethereum's state
// prefetcher does while the block executes), applies a block's worth of
// account changes with keccakroot's adapter.StateTrie, commits them into
// the database, and reads every changed account back with go-ethereum. It
// times the same steps with go-ethereum's own StateTrie, and checks that
// the roots agree.
//
//	go run ./examples/blockstate
package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/pathdb"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/adapter"
)

// change is one account change of the block: a new state, or nil to
// delete the account.
type change struct {
	address common.Address
	account *types.StateAccount
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "blockstate:", err)
		os.Exit(1)
	}
}

func run() error {
	db := rawdb.NewMemoryDatabase()
	tdb := triedb.NewDatabase(db, &triedb.Config{PathDB: pathdb.Defaults})
	genesis, err := core.DefaultGenesisBlock().Commit(db, tdb, nil)
	if err != nil {
		return err
	}
	root := genesis.Root()
	fmt.Printf("opened the state of mainnet's genesis: root %x\n", root)

	changes, err := blockChanges(root, tdb, 2000)
	if err != nil {
		return err
	}

	// Each side runs twice and the second run is timed, so that both read
	// the database with its caches warm.
	var (
		ours, theirs       common.Hash
		nodes              *trienode.MergedNodeSet
		oursTime, gethTime time.Duration
	)
	for range 2 {
		start := time.Now()
		if ours, nodes, err = applyKeccakroot(root, tdb, changes); err != nil {
			return err
		}
		oursTime = time.Since(start)
		start = time.Now()
		if theirs, err = applyGeth(root, tdb, changes); err != nil {
			return err
		}
		gethTime = time.Since(start)
	}

	fmt.Printf("applied %d account changes and committed:\n", len(changes))
	fmt.Printf("  keccakroot adapter.StateTrie  %x  %v\n", ours, oursTime.Round(time.Microsecond))
	fmt.Printf("  go-ethereum trie.StateTrie    %x  %v\n", theirs, gethTime.Round(time.Microsecond))
	if ours != theirs {
		return fmt.Errorf("MISMATCH: state roots differ")
	}

	// Hand keccakroot's node set to the database and read the state back
	// with go-ethereum.
	if err := tdb.Update(ours, root, 1, nodes, triedb.NewStateSet()); err != nil {
		return err
	}
	reader, err := trie.NewStateTrie(trie.StateTrieID(ours), tdb)
	if err != nil {
		return err
	}
	for _, c := range changes {
		got, err := reader.GetAccount(c.address)
		if err != nil {
			return err
		}
		if !sameAccount(got, c.account) {
			return fmt.Errorf("MISMATCH: go-ethereum reads account %x as %v, want %v", c.address, got, c.account)
		}
	}
	fmt.Printf("go-ethereum read all %d changed accounts back from the committed state\n", len(changes))
	fmt.Println("all roots match go-ethereum")
	return nil
}

// blockChanges draws a block's changes: 80% of them change accounts of the
// state, 15% create accounts and 5% delete accounts.
func blockChanges(root common.Hash, tdb *triedb.Database, n int) ([]change, error) {
	rng := rand.New(rand.NewPCG(1, 2)) //nolint:gosec // a reproducible example block, not a secret
	var existing []common.Address
	for addr := range core.DefaultGenesisBlock().Alloc {
		existing = append(existing, addr)
	}
	slices.SortFunc(existing, func(a, b common.Address) int { return a.Cmp(b) })
	reader, err := trie.NewStateTrie(trie.StateTrieID(root), tdb)
	if err != nil {
		return nil, err
	}
	seen := map[common.Address]bool{}
	var changes []change
	for len(changes) < n {
		r := rng.IntN(100)
		addr := existing[rng.IntN(len(existing))]
		if r >= 80 && r < 95 {
			for i := range addr {
				addr[i] = byte(rng.Uint32())
			}
		}
		if seen[addr] {
			continue
		}
		seen[addr] = true
		if r >= 95 {
			changes = append(changes, change{address: addr})
			continue
		}
		acc, err := reader.GetAccount(addr)
		if err != nil {
			return nil, err
		}
		if acc == nil {
			acc = types.NewEmptyStateAccount()
		}
		acc.Nonce++
		acc.Balance = new(uint256.Int).AddUint64(acc.Balance, rng.Uint64N(1e18))
		changes = append(changes, change{address: addr, account: acc})
	}
	return changes, nil
}

func applyKeccakroot(root common.Hash, tdb *triedb.Database, changes []change) (common.Hash, *trienode.MergedNodeSet, error) {
	st, err := adapter.OpenStateTrie(root, tdb)
	if err != nil {
		return common.Hash{}, nil, err
	}
	if err := applyChanges(st, changes); err != nil {
		return common.Hash{}, nil, err
	}
	return st.Commit()
}

func applyGeth(root common.Hash, tdb *triedb.Database, changes []change) (common.Hash, error) {
	st, err := trie.NewStateTrie(trie.StateTrieID(root), tdb)
	if err != nil {
		return common.Hash{}, err
	}
	if err := applyChanges(st, changes); err != nil {
		return common.Hash{}, err
	}
	newRoot, _ := st.Commit(false)
	return newRoot, nil
}

// accountWriter is what both state tries offer for a block's changes.
type accountWriter interface {
	PrefetchAccount(addresses []common.Address) error
	UpdateAccount(addr common.Address, acc *types.StateAccount, codeLen int) error
	DeleteAccount(addr common.Address) error
}

// applyChanges loads the paths of the block's accounts into st, then writes
// the changes one by one.
func applyChanges(st accountWriter, changes []change) error {
	addresses := make([]common.Address, len(changes))
	for i, c := range changes {
		addresses[i] = c.address
	}
	if err := st.PrefetchAccount(addresses); err != nil {
		return err
	}
	for _, c := range changes {
		var err error
		if c.account == nil {
			err = st.DeleteAccount(c.address)
		} else {
			err = st.UpdateAccount(c.address, c.account, 0)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// sameAccount compares two accounts by their encodings (nil for none).
func sameAccount(a, b *types.StateAccount) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ea, _ := rlp.EncodeToBytes(a)
	eb, _ := rlp.EncodeToBytes(b)
	return bytes.Equal(ea, eb)
}

package adapter

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb/database"

	"github.com/keccakroot/keccakroot/triehash"
)

// ErrNoAccount is returned by StateTrie's storage methods for an address
// that has no account: create the account first.
var ErrNoAccount = errors.New("adapter: no account at this address")

// StateTrie is the state as a block changes it, for a program that works on
// tries rather than through go-ethereum's StateDB: the account trie and the
// storage tries of the accounts it touches, each a SecureTrie (the tries of
// NewStateDatabase), opened from go-ethereum's trie database. Its methods
// are those of go-ethereum's state.Trie, with storage methods that find
// the account's storage trie themselves. Hash and Commit first rehash the
// changed storage tries, in parallel, and write their roots into their
// accounts, as StateDB's IntermediateRoot does, then rehash the account
// trie.
//
// Deleting an account drops the changes to its storage made here. As with
// go-ethereum's StateDB, removing the stored storage nodes of a destroyed
// account is up to the caller. A StateTrie makes no witness: its tries do
// not record the nodes they read.
//
// A StateTrie is not safe for concurrent use.
type StateTrie struct {
	db        database.NodeDatabase
	stateRoot common.Hash
	accounts  *SecureTrie
	storages  map[common.Address]*storageTrie
}

// storageTrie is an account's storage trie as far as it is loaded.
type storageTrie struct {
	*SecureTrie
	changed bool // since its root was last written into the account
}

// OpenStateTrie opens the state with the given root in db.
func OpenStateTrie(stateRoot common.Hash, db database.NodeDatabase) (*StateTrie, error) {
	// A StateTrie makes no witness: its tries do not record what they read.
	accounts, err := openSecureTrie(triehash.Options{}, trie.StateTrieID(stateRoot), db, false, nil)
	if err != nil {
		return nil, err
	}
	return &StateTrie{db: db, stateRoot: stateRoot, accounts: accounts, storages: map[common.Address]*storageTrie{}}, nil
}

// GetAccount returns the account at addr, nil if there is none.
func (s *StateTrie) GetAccount(addr common.Address) (*types.StateAccount, error) {
	return s.accounts.GetAccount(addr)
}

// UpdateAccount stores acc at addr. codeLen is unused, as in go-ethereum's
// Merkle StateTrie. If this StateTrie changes the account's storage, the
// root it computes replaces acc.Root at the next Hash or Commit. Otherwise
// acc.Root is the account's storage from now on: a storage trie opened
// here at another root (by a read) is dropped, and the next read opens the
// one at acc.Root.
func (s *StateTrie) UpdateAccount(addr common.Address, acc *types.StateAccount, codeLen int) error {
	if err := s.accounts.UpdateAccount(addr, acc, codeLen); err != nil {
		return err
	}
	if st, ok := s.storages[addr]; ok && !st.changed && st.Hash() != acc.Root {
		delete(s.storages, addr)
	}
	return nil
}

// DeleteAccount removes the account at addr, and the changes to its
// storage made here.
func (s *StateTrie) DeleteAccount(addr common.Address) error {
	if err := s.accounts.DeleteAccount(addr); err != nil {
		return err
	}
	delete(s.storages, addr)
	return nil
}

// GetStorage returns the value of slot key of the account at addr, without
// its leading zeros (nil for an empty slot or no account), as go-ethereum's
// StateTrie.GetStorage does.
func (s *StateTrie) GetStorage(addr common.Address, key []byte) ([]byte, error) {
	st, err := s.storage(addr)
	if err != nil || st == nil {
		return nil, err
	}
	return st.GetStorage(addr, key)
}

// UpdateStorage sets slot key of the account at addr to value (its leading
// zeros already trimmed, as go-ethereum's StateDB trims them). The account
// must exist.
func (s *StateTrie) UpdateStorage(addr common.Address, key, value []byte) error {
	st, err := s.mustStorage(addr)
	if err != nil {
		return err
	}
	st.changed = true
	return st.UpdateStorage(addr, key, value)
}

// DeleteStorage clears slot key of the account at addr. The account must
// exist.
func (s *StateTrie) DeleteStorage(addr common.Address, key []byte) error {
	st, err := s.mustStorage(addr)
	if err != nil {
		return err
	}
	st.changed = true
	return st.DeleteStorage(addr, key)
}

// storage returns the storage trie of addr, opening it at the account's
// storage root; nil if there is no account.
func (s *StateTrie) storage(addr common.Address) (*storageTrie, error) {
	if st, ok := s.storages[addr]; ok {
		return st, nil
	}
	acc, err := s.GetAccount(addr)
	if err != nil || acc == nil {
		return nil, err
	}
	t, err := openStorageTrie(s.stateRoot, addr, acc.Root, s.db, false, nil)
	if err != nil {
		return nil, err
	}
	st := &storageTrie{SecureTrie: t}
	s.storages[addr] = st
	return st, nil
}

// openStorageTrie opens the storage trie of address, with root, in the
// state stateRoot; with record, it keeps the nodes it reads for Witness.
// Storage tries hash on one goroutine each: StateDB and StateTrie hash
// several of them in parallel.
func openStorageTrie(stateRoot common.Hash, address common.Address, root common.Hash, db database.NodeDatabase, record bool, hints hintedValues) (*SecureTrie, error) {
	return openSecureTrie(triehash.Options{Workers: 1}, storageTrieID(stateRoot, address, root), db, record, hints)
}

// storageTrieID names the storage trie of address, with root, in the state
// stateRoot: its owner is the hashed address, as go-ethereum keys it.
func storageTrieID(stateRoot common.Hash, address common.Address, root common.Hash) *trie.ID {
	return trie.StorageTrieID(stateRoot, Keccak256Hash(address[:]), root)
}

func (s *StateTrie) mustStorage(addr common.Address) (*storageTrie, error) {
	st, err := s.storage(addr)
	if err == nil && st == nil {
		err = fmt.Errorf("%w: %x", ErrNoAccount, addr)
	}
	return st, err
}

// Hash returns the state root with every change so far: the changed
// storage tries are rehashed first, on GOMAXPROCS goroutines, and their
// roots written into their accounts.
func (s *StateTrie) Hash() (common.Hash, error) {
	if err := s.writeStorageRoots(); err != nil {
		return common.Hash{}, err
	}
	return s.accounts.Hash(), nil
}

// writeStorageRoots rehashes the changed storage tries and writes each
// root into its account.
func (s *StateTrie) writeStorageRoots() error {
	var changed []common.Address
	for addr, st := range s.storages {
		if st.changed {
			changed = append(changed, addr)
		}
	}
	slices.SortFunc(changed, func(a, b common.Address) int { return a.Cmp(b) })
	roots := make([]common.Hash, len(changed))
	_ = forEachParallel(len(changed), func(i int) error {
		roots[i] = s.storages[changed[i]].Hash()
		return nil
	})
	for i, addr := range changed {
		acc, err := s.GetAccount(addr)
		if err != nil {
			return err
		}
		if acc == nil {
			return fmt.Errorf("%w: %x has storage changes", ErrNoAccount, addr)
		}
		acc.Root = roots[i]
		if err := s.UpdateAccount(addr, acc, 0); err != nil {
			return err
		}
		s.storages[addr].changed = false
	}
	return nil
}

// Commit hashes the state as Hash does and returns its root and every
// change to store, storage tries and account trie, as the node set that
// triedb.Database.Update takes. The account trie's set holds its changed
// leaves, as go-ethereum's StateDB commits it: the hash scheme's
// database links each account's storage trie to the account's node
// through them, and without the link its Commit to disk would leave the
// storage tries behind.
//
// The StateTrie stays usable for the next block, on top of the committed
// state, while the trie database still serves the state it was opened at:
// the nodes it has not loaded yet are read from there. go-ethereum's path
// scheme stops serving a state once its layer is flattened into the disk
// layer (by the database's Commit, or once 128 layers lie above it), and
// a read then fails with an error naming the node. To go on past that
// point, open a new StateTrie at the committed root once the node set is
// stored, as go-ethereum's StateDB does after each Commit.
func (s *StateTrie) Commit() (common.Hash, *trienode.MergedNodeSet, error) {
	if err := s.writeStorageRoots(); err != nil {
		return common.Hash{}, nil, err
	}
	merged := trienode.NewMergedNodeSet()
	for _, addr := range slices.SortedFunc(maps.Keys(s.storages), func(a, b common.Address) int { return a.Cmp(b) }) {
		if _, set := s.storages[addr].Commit(false); set != nil {
			if err := merged.Merge(set); err != nil {
				return common.Hash{}, nil, err
			}
		}
	}
	root, set := s.accounts.Commit(true)
	if set != nil {
		if err := merged.Merge(set); err != nil {
			return common.Hash{}, nil, err
		}
	}
	return root, merged, nil
}

// PrefetchAccount loads the account trie's nodes along the paths of
// addresses (see SecureTrie.PrefetchAccount).
func (s *StateTrie) PrefetchAccount(addresses []common.Address) error {
	return s.accounts.PrefetchAccount(addresses)
}

// PrefetchStorage opens the storage trie of addr and loads its nodes along
// the paths of the slots keys. For an address without an account there is
// nothing to load.
func (s *StateTrie) PrefetchStorage(addr common.Address, keys [][]byte) error {
	st, err := s.storage(addr)
	if err != nil || st == nil {
		return err
	}
	return st.PrefetchStorage(addr, keys)
}

// UpdateAccountBatch stores accounts[i] at addresses[i] for every i in
// order (see SecureTrie.UpdateAccountBatch).
func (s *StateTrie) UpdateAccountBatch(addresses []common.Address, accounts []*types.StateAccount, codeLengths []int) error {
	return s.accounts.UpdateAccountBatch(addresses, accounts, codeLengths)
}

// UpdateStorageBatch sets slot keys[i] of the account at addr to values[i]
// for every i in order (see SecureTrie.UpdateStorageBatch). The account
// must exist.
func (s *StateTrie) UpdateStorageBatch(addr common.Address, keys [][]byte, values [][]byte) error {
	st, err := s.mustStorage(addr)
	if err != nil {
		return err
	}
	if len(keys) != len(values) {
		return fmt.Errorf("%w: UpdateStorageBatch with %d keys and %d values", triehash.ErrLengthMismatch, len(keys), len(values))
	}
	st.changed = st.changed || len(keys) > 0
	return st.UpdateStorageBatch(addr, keys, values)
}

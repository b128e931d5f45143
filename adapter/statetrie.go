package adapter

import (
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb/database"

	"github.com/keccakroot/keccakroot/rlpstream"
	"github.com/keccakroot/keccakroot/triehash"
)

// ErrNoAccount is returned by StateTrie's storage methods for an address
// that has no account: create the account first.
var ErrNoAccount = errors.New("adapter: no account at this address")

// StateTrie is the state as a block changes it: the account trie and the
// storage tries of the accounts it touches, opened from go-ethereum's trie
// database. Its methods are those of go-ethereum's state.Trie where they
// fit, with keys hashed as go-ethereum's StateTrie hashes them (Keccak-256
// of the address and of the slot). Hash and Commit first rehash the
// changed storage tries, in parallel, and write their roots into their
// accounts, then rehash the account trie.
//
// Deleting an account drops the changes to its storage made here. As with
// go-ethereum's StateDB, removing the stored storage nodes of a destroyed
// account is up to the caller.
//
// A StateTrie is not safe for concurrent use.
type StateTrie struct {
	db        database.NodeDatabase
	stateRoot common.Hash
	accounts  *triehash.Trie
	storages  map[common.Address]*storageTrie
}

// storageTrie is an account's storage trie as far as it is loaded.
type storageTrie struct {
	owner   common.Hash // Keccak-256 of the address
	trie    *triehash.Trie
	changed bool // since its root was last written into the account
}

// OpenStateTrie opens the state with the given root in db.
func OpenStateTrie(stateRoot common.Hash, db database.NodeDatabase) (*StateTrie, error) {
	accounts, err := OpenTrie(trie.StateTrieID(stateRoot), db)
	if err != nil {
		return nil, err
	}
	return &StateTrie{db: db, stateRoot: stateRoot, accounts: accounts, storages: map[common.Address]*storageTrie{}}, nil
}

// GetAccount returns the account at addr, nil if there is none.
func (s *StateTrie) GetAccount(addr common.Address) (*types.StateAccount, error) {
	enc, err := s.accounts.Get(Keccak256(addr[:]))
	if err != nil || len(enc) == 0 {
		return nil, err
	}
	acc := new(types.StateAccount)
	if err := rlp.DecodeBytes(enc, acc); err != nil {
		return nil, fmt.Errorf("adapter: account %x: %w", addr, err)
	}
	return acc, nil
}

// UpdateAccount stores acc at addr. codeLen is unused, as in go-ethereum's
// Merkle StateTrie. If this StateTrie changes the account's storage, the
// root it computes replaces acc.Root at the next Hash or Commit.
func (s *StateTrie) UpdateAccount(addr common.Address, acc *types.StateAccount, codeLen int) error {
	value, err := encodeAccount(addr, acc)
	if err != nil {
		return err
	}
	return s.accounts.Update(Keccak256(addr[:]), value)
}

// encodeAccount returns acc's encoding in the account trie, as go-ethereum's
// StateTrie writes it.
func encodeAccount(addr common.Address, acc *types.StateAccount) ([]byte, error) {
	if acc == nil || len(acc.CodeHash) != 32 || acc.Balance == nil {
		// Not a shape AppendAccount writes: encode as go-ethereum does.
		value, err := rlp.EncodeToBytes(acc)
		if err != nil {
			return nil, fmt.Errorf("adapter: account %x: %w", addr, err)
		}
		return value, nil
	}
	return triehash.AppendAccount(nil, &triehash.Account{
		Nonce: acc.Nonce, Balance: *acc.Balance, StorageRoot: acc.Root, CodeHash: [32]byte(acc.CodeHash),
	}), nil
}

// DeleteAccount removes the account at addr, and the changes to its
// storage made here.
func (s *StateTrie) DeleteAccount(addr common.Address) error {
	if err := s.accounts.Delete(Keccak256(addr[:])); err != nil {
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
	enc, err := st.trie.Get(Keccak256(key))
	if err != nil || len(enc) == 0 {
		return nil, err
	}
	kind, content, _, err := rlpstream.Split(enc)
	if err != nil || kind == rlpstream.List {
		return nil, fmt.Errorf("adapter: storage slot %x of account %x is not an RLP string: %x", key, addr, enc)
	}
	return content, nil
}

// UpdateStorage sets slot key of the account at addr to value (its leading
// zeros already trimmed, as go-ethereum's StateDB trims them). The account
// must exist.
func (s *StateTrie) UpdateStorage(addr common.Address, key, value []byte) error {
	st, err := s.mustStorage(addr)
	if err != nil {
		return err
	}
	if err := st.trie.Update(Keccak256(key), rlpstream.AppendBytes(nil, value)); err != nil {
		return err
	}
	st.changed = true
	return nil
}

// DeleteStorage clears slot key of the account at addr. The account must
// exist.
func (s *StateTrie) DeleteStorage(addr common.Address, key []byte) error {
	st, err := s.mustStorage(addr)
	if err != nil {
		return err
	}
	if err := st.trie.Delete(Keccak256(key)); err != nil {
		return err
	}
	st.changed = true
	return nil
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
	owner := Keccak256Hash(addr[:])
	t, err := openTrie(triehash.Options{Workers: 1}, trie.StorageTrieID(s.stateRoot, owner, acc.Root), s.db)
	if err != nil {
		return nil, err
	}
	st := &storageTrie{owner: owner, trie: t}
	s.storages[addr] = st
	return st, nil
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
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(changed)) {
		wg.Go(func() {
			for i := range next {
				roots[i] = s.storages[changed[i]].trie.Hash()
			}
		})
	}
	for i := range changed {
		next <- i
	}
	close(next)
	wg.Wait()
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
// triedb.Database.Update takes. The StateTrie stays usable for the next
// block, on top of the committed state.
func (s *StateTrie) Commit() (common.Hash, *trienode.MergedNodeSet, error) {
	if err := s.writeStorageRoots(); err != nil {
		return common.Hash{}, nil, err
	}
	merged := trienode.NewMergedNodeSet()
	for _, addr := range slices.SortedFunc(maps.Keys(s.storages), func(a, b common.Address) int { return a.Cmp(b) }) {
		st := s.storages[addr]
		if err := mergeCommit(merged, st.trie, st.owner); err != nil {
			return common.Hash{}, nil, err
		}
	}
	if err := mergeCommit(merged, s.accounts, common.Hash{}); err != nil {
		return common.Hash{}, nil, err
	}
	return s.accounts.Hash(), merged, nil
}

func mergeCommit(merged *trienode.MergedNodeSet, t *triehash.Trie, owner common.Hash) error {
	_, set, err := CommitTrie(t, owner)
	if err != nil || set == nil {
		return err
	}
	return merged.Merge(set)
}

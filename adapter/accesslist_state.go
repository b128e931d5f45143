package adapter

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb/database"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/triehash"
)

// ErrAccessList is returned, wrapped with the account and slot at fault, for
// a block access list that does not fit the parent state or is not
// canonical.
var ErrAccessList = errors.New("adapter: block access list")

// AccessListStateRoot returns the post-state root of an Amsterdam block from
// its EIP-7928 block access list and its parent's state root in db
// (go-ethereum's trie database of either scheme, or one over a witness's
// nodes), without executing the block: each account's last balance, nonce
// and code in the list, and its last value of each written slot, applied
// to keccakroot's tries, the storage tries on all cores. It is the root
// that go-ethereum's StateDB.ApplyBlockAccessList followed by
// IntermediateRoot computes: for a valid block, the header's.
//
// As go-ethereum does, an account that ends the block empty (EIP-161: no
// nonce, balance or code) is deleted. A list that does not fit is an
// ErrAccessList naming the account, and the slot and block access index
// where there is one: a list that is not canonical (accounts, slots written,
// slots read or the changes of one account or slot out of order or
// repeated, a slot both read and written, a written slot without a write,
// code larger than a contract may be), a missing value, or a storage write
// to an account that ends the block absent. Two rules of go-ethereum's
// BlockAccessList.Validate need the block and are left to its validation:
// the highest block access index and the list's size for the gas limit. A
// node missing from db is an error too.
//
// A client rolling a chain forward passes CachedNodeDatabase(db, cache),
// one NodeCache for all blocks: the nodes near the roots, which every
// block reads, then come from the cache (never over a witness's nodes).
func AccessListStateRoot(parentRoot common.Hash, list *bal.BlockAccessList, db database.NodeDatabase) (common.Hash, error) {
	applied, err := applyAccessList(parentRoot, list, db, listRoot)
	return applied.root, err
}

// AccessListCommit is AccessListStateRoot with the node set to commit, as
// triedb.Database.Update takes it (storage tries, then the account trie),
// so that a chain can be rolled forward block by block from access lists,
// as go-ethereum's snap/2 sync does. Over a CachedNodeDatabase the nodes
// of the set go into the cache too, where the next block finds them
// before the path scheme's diff layers.
//
// On the path scheme, and on the hash scheme with a snapshot tree, the
// trie database's Update needs the changed accounts and slots as well, or
// its flat state stays at the parent's while the tries move on: use
// AccessListStateUpdate there.
func AccessListCommit(parentRoot common.Hash, list *bal.BlockAccessList, db database.NodeDatabase) (common.Hash, *trienode.MergedNodeSet, error) {
	applied, err := applyAccessList(parentRoot, list, db, listNodes)
	return applied.root, applied.nodes, err
}

// listOutput is what applyAccessList makes beside the root.
type listOutput int

const (
	listRoot        listOutput = iota // the root alone
	listNodes                         // and the node set to commit
	listStateUpdate                   // and the slots' values before the block
)

// appliedList is what applyAccessList made of a list: the accounts it
// changes, their hashed addresses, their states before and after the block
// (nil where absent), the post-state root and, if asked for, the node set.
type appliedList struct {
	changes   []accountChange
	keys      [][]byte
	pre, post []*types.StateAccount
	root      common.Hash
	nodes     *trienode.MergedNodeSet
}

// manySlots is the number of slot writes from which an account's storage
// trie is changed on all cores.
const manySlots = 128

// accountChange is one account's final state in an access list.
type accountChange struct {
	access  *bal.AccountAccess
	balance *uint256.Int
	nonce   *uint64
	code    []byte // nil if the code does not change
	setCode bool
	// slots and values are the last write of each slot, values trimmed of
	// leading zeros (empty to clear the slot).
	slots, values [][]byte
	nonZero       int // the index of a slot written non-zero, or -1
	// hashed are the slots' hashes, and origins their values before the
	// block when a state update is built (see AccessListStateUpdate).
	hashed  [][]byte
	origins []common.Hash
}

func applyAccessList(parentRoot common.Hash, list *bal.BlockAccessList, db database.NodeDatabase, out listOutput) (appliedList, error) {
	if list == nil {
		return appliedList{}, nilArgument("block access list")
	}
	changes, err := accessListChanges(*list)
	if err != nil {
		return appliedList{}, err
	}
	// Neither the account trie nor the storage tries record what they read:
	// nothing here makes a witness.
	accounts, err := openSecureTrie(triehash.Options{}, trie.StateTrieID(parentRoot), db, false, nil)
	if err != nil {
		return appliedList{}, err
	}
	keys := make([][]byte, len(changes))
	for i := range changes {
		keys[i] = changes[i].access.Address[:]
	}
	keys = hashKeys(keys)
	// The accounts whose storage changes are loaded and read first, and
	// their storage tries start on all cores (the most slots first, so that
	// a large trie does not start last while the other workers idle) while
	// the account trie loads the other accounts' paths.
	var withSlots, others []int
	for i := range changes {
		if len(changes[i].slots) > 0 {
			withSlots = append(withSlots, i)
		} else {
			others = append(others, i)
		}
	}
	slices.SortStableFunc(withSlots, func(a, b int) int { return len(changes[b].slots) - len(changes[a].slots) })
	pre := make([]*types.StateAccount, len(changes))
	if err := readAccounts(accounts, changes, keys, withSlots, pre); err != nil {
		return appliedList{}, err
	}
	merged := trienode.NewMergedNodeSet()
	var mergeMu sync.Mutex
	values := make([][]byte, len(changes))
	post := make([]*types.StateAccount, len(changes))
	apply := func(i int) error {
		var err error
		post[i], err = changes[i].apply(parentRoot, common.Hash(keys[i]), pre[i], db, out, func(set *trienode.NodeSet) error {
			mergeMu.Lock()
			defer mergeMu.Unlock()
			return merged.Merge(set)
		})
		if err != nil || post[i] == nil {
			return err // post nil: the account is deleted, or stays absent
		}
		values[i], err = encodeAccount(changes[i].access.Address, post[i])
		return err
	}
	storageErr := make(chan error, 1)
	go func() {
		storageErr <- forEachParallel(len(withSlots), func(k int) error { return apply(withSlots[k]) })
	}()
	readErr := readAccounts(accounts, changes, keys, others, pre)
	var otherErr error
	if readErr == nil {
		for _, i := range others {
			if otherErr = apply(i); otherErr != nil {
				break
			}
		}
	}
	// One error whatever the timing: a read's, else the storage tries'
	// first by their order, else the other accounts'.
	for _, err := range []error{readErr, <-storageErr, otherErr} {
		if err != nil {
			return appliedList{}, err
		}
	}
	if err := updatesThenDeletions(keys, values, accounts.Trie().UpdateBatch); err != nil {
		return appliedList{}, accounts.missing(err)
	}
	applied := appliedList{changes: changes, keys: keys, pre: pre, post: post}
	if out == listRoot {
		applied.root = accounts.Hash()
		return applied, nil
	}
	// The addresses' preimages, for a trie database that records them, as
	// go-ethereum's account trie keeps them: the slots' went with their
	// storage tries' changes.
	if accounts.preimages != nil {
		addresses := make([][]byte, len(changes))
		for i := range changes {
			addresses[i] = changes[i].access.Address[:]
		}
		accounts.notePreimages(addresses, keys, values)
	}
	root, set := accounts.Commit(true)
	if set != nil {
		if err := merged.Merge(set); err != nil {
			return appliedList{}, err
		}
	}
	applied.root, applied.nodes = root, merged
	return applied, nil
}

// readAccounts loads the account trie's paths of the changes at indexes
// and reads each one's pre-block account into pre.
func readAccounts(accounts *SecureTrie, changes []accountChange, keys [][]byte, indexes []int, pre []*types.StateAccount) error {
	batch := make([][]byte, len(indexes))
	for k, i := range indexes {
		batch[k] = keys[i]
	}
	if err := accounts.Trie().Prefetch(batch); err != nil {
		return accounts.missing(err)
	}
	for _, i := range indexes {
		var err error
		if pre[i], err = accounts.accountAt(changes[i].access.Address, keys[i]); err != nil {
			return err
		}
	}
	return nil
}

// accessListChanges reads each account's final state from list, checking
// that the list is canonical (accounts in ascending order of address, each
// once, and each account's entry as checkCanonicalAccount has it) and that
// every value the state takes is present.
func accessListChanges(list bal.BlockAccessList) ([]accountChange, error) {
	changes := make([]accountChange, 0, len(list))
	for i := range list {
		access := &list[i]
		if i > 0 && bytes.Compare(list[i-1].Address[:], access.Address[:]) >= 0 {
			return nil, fmt.Errorf("%w: account %x after %x: accounts must be in ascending order, each once", ErrAccessList, access.Address, list[i-1].Address)
		}
		if err := checkCanonicalAccount(access); err != nil {
			return nil, err
		}
		// The changes being in order of block access index, the last of
		// each kind is the value after the block.
		c := accountChange{access: access, nonZero: -1}
		if n := len(access.BalanceChanges); n > 0 {
			if c.balance = access.BalanceChanges[n-1].PostBalance; c.balance == nil {
				return nil, fmt.Errorf("%w: account %x: a balance change without a balance", ErrAccessList, access.Address)
			}
		}
		if n := len(access.NonceChanges); n > 0 {
			c.nonce = &access.NonceChanges[n-1].PostNonce
		}
		if n := len(access.CodeChanges); n > 0 {
			c.code, c.setCode = access.CodeChanges[n-1].NewCode, true
		}
		for j := range access.StorageChanges {
			write := &access.StorageChanges[j]
			slot := write.Slot.Bytes32()
			value := write.SlotChanges[len(write.SlotChanges)-1].PostValue
			if value == nil {
				return nil, fmt.Errorf("%w: account %x slot %x: a write without a value", ErrAccessList, access.Address, slot)
			}
			if !value.IsZero() && c.nonZero < 0 {
				c.nonZero = len(c.slots)
			}
			c.slots = append(c.slots, slot[:])
			c.values = append(c.values, value.Bytes()) // big-endian, no leading zeros
		}
		if c.balance == nil && c.nonce == nil && !c.setCode && len(c.slots) == 0 {
			continue // read only
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// apply returns the account's post-block state from its pre-block one (nil
// if absent), with its storage trie's new root, handing the storage trie's
// node set to merge unless out is the root alone, and reading the written
// slots' values before the block into c.origins for a state update; nil if
// the account ends the block absent. owner is the hashed address, the
// storage trie's owner.
func (c *accountChange) apply(stateRoot, owner common.Hash, pre *types.StateAccount, db database.NodeDatabase, out listOutput, merge func(*trienode.NodeSet) error) (*types.StateAccount, error) {
	post := pre
	if post == nil {
		if c.balance == nil && c.nonce == nil && !c.setCode && c.nonZero < 0 {
			return nil, nil // only slots cleared that were never set: untouched
		}
		post = types.NewEmptyStateAccount()
	}
	post = post.Copy()
	if c.balance != nil {
		post.Balance = c.balance.Clone()
	}
	if c.nonce != nil {
		post.Nonce = *c.nonce
	}
	if c.setCode {
		post.CodeHash = Keccak256(c.code)
	}
	empty := post.Nonce == 0 && post.Balance.IsZero() && bytes.Equal(post.CodeHash, types.EmptyCodeHash[:])
	if empty {
		if c.nonZero >= 0 {
			return nil, fmt.Errorf("%w: account %x slot %x: a storage write to an account that ends the block empty", ErrAccessList, c.access.Address, c.slots[c.nonZero])
		}
		return nil, nil // deleted, as EIP-161 has it
	}
	if len(c.slots) == 0 {
		return post, nil
	}
	// A storage trie with many writes loads them on all cores (its
	// UpdateBatch spreads them); the others take one core each.
	opts := triehash.Options{Workers: 1}
	if len(c.slots) >= manySlots {
		opts.Workers = 0
	}
	storage, err := openSecureTrie(opts, trie.StorageTrieID(stateRoot, owner, post.Root), db, false, nil)
	if err != nil {
		return nil, err
	}
	// The slots are hashed once, for the origins' reads, the updates and
	// the state update alike.
	c.hashed = hashKeys(c.slots)
	if out == listStateUpdate {
		if err := c.readOrigins(storage); err != nil {
			return nil, err
		}
	}
	encoded := encodeStorageValues(c.values)
	for i, v := range c.values {
		if len(v) == 0 {
			encoded[i] = nil // a cleared slot: deleted
		}
	}
	// A canonical list writes each slot once, so the preimages can be
	// noted before the updates and deletions are split.
	storage.notePreimages(c.slots, c.hashed, encoded)
	if err := updatesThenDeletions(c.hashed, encoded, storage.updateHashed); err != nil {
		return nil, fmt.Errorf("account %x: %w", c.access.Address, err)
	}
	if out == listRoot {
		post.Root = storage.Hash()
		return post, nil
	}
	root, set := storage.Commit(false)
	post.Root = root
	if set != nil {
		if err := merge(set); err != nil {
			return nil, err
		}
	}
	return post, nil
}

// updatesThenDeletions applies the changes of keys to values (an empty
// value deletes) with update, the updates first, then the deletions, as
// go-ethereum's StateDB orders them: a deletion that would collapse a
// branch before an insertion keeps it needs the sibling node, which a
// witness made by go-ethereum need not hold.
func updatesThenDeletions(keys, values [][]byte, update func(keys, values [][]byte) error) error {
	var updKeys, updValues, delKeys, delValues [][]byte
	for i, v := range values {
		if len(v) > 0 {
			updKeys, updValues = append(updKeys, keys[i]), append(updValues, v)
		} else {
			delKeys, delValues = append(delKeys, keys[i]), append(delValues, nil)
		}
	}
	if err := update(updKeys, updValues); err != nil {
		return err
	}
	return update(delKeys, delValues)
}

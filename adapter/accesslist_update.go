package adapter

import (
	"bytes"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/triedb/database"
)

// AccessListStateUpdate is AccessListCommit with everything a state
// database stores for a block: the post-state root, the node set, and the
// changed accounts, slots and codes with their values before the block, as
// go-ethereum's state.StateUpdate holds them. Handing it to the state
// database's Commit (state.Database.Commit; a NewStateDatabase passes it
// on) stores the codes, updates the snapshot tree if there is one, and
// gives the trie database its Update with the flat states, on either
// scheme: a chain rolled forward from access lists, as snap/2 sync does,
// then reads and executes as one whose blocks were executed. blockNumber is
// the block's.
//
// The update is the one go-ethereum's StateDB.ApplyBlockAccessList followed
// by Commit makes: an account the list changes is in it with its state
// before and after the block, unless its only changes are slot writes
// that leave every slot as it was; a slot is in it if its value changes,
// its origin keyed by the raw slot key (the storage key type of every fork
// since Cancun, and access lists begin with Amsterdam); an account that
// ends the block empty is a deletion, and if its storage is not empty an
// ErrAccessList, as go-ethereum refuses to wipe storage since Cancun. The
// codes' Duplicate and OriginBlob, which go-ethereum derives only for a
// tracer, are left unset. Errors are AccessListStateRoot's.
func AccessListStateUpdate(parentRoot common.Hash, list *bal.BlockAccessList, db database.NodeDatabase, blockNumber uint64) (*state.StateUpdate, error) {
	applied, err := applyAccessList(parentRoot, list, db, listStateUpdate)
	if err != nil {
		return nil, err
	}
	deletes := make(map[common.Hash]*state.AccountDelete)
	updates := make(map[common.Hash]*state.AccountUpdate)
	for i := range applied.changes {
		c := &applied.changes[i]
		addrHash, pre, post := common.BytesToHash(applied.keys[i]), applied.pre[i], applied.post[i]
		if post == nil {
			if pre == nil {
				continue // absent before and after
			}
			if pre.Root != types.EmptyRootHash {
				return nil, fmt.Errorf("%w: account %x ends the block empty with storage, which no fork since Cancun wipes", ErrAccessList, c.access.Address)
			}
			deletes[addrHash] = &state.AccountDelete{Address: c.access.Address, Origin: pre}
			continue
		}
		update := c.stateUpdate(pre, post)
		if update != nil {
			updates[addrHash] = update
		}
	}
	return state.NewStateUpdate(state.StorageKeyPlain, parentRoot, applied.root, blockNumber, deletes, updates, applied.nodes), nil
}

// stateUpdate returns the account's update from pre (nil if absent) to
// post, or nil if the list changes nothing of it but slots it writes with
// the values they had.
func (c *accountChange) stateUpdate(pre, post *types.StateAccount) *state.AccountUpdate {
	update := &state.AccountUpdate{Address: c.access.Address, Data: post, Origin: pre}
	for i, slot := range c.slots {
		value := common.BytesToHash(c.values[i])
		if value == c.origins[i] {
			continue
		}
		if update.Storages == nil {
			update.Storages = make(map[common.Hash]common.Hash)
			update.StoragesOriginByKey = make(map[common.Hash]common.Hash)
			update.StoragesOriginByHash = make(map[common.Hash]common.Hash)
		}
		key, hashed := common.Hash(slot), common.Hash(c.hashed[i])
		update.Storages[hashed] = value
		update.StoragesOriginByKey[key] = c.origins[i]
		update.StoragesOriginByHash[hashed] = c.origins[i]
	}
	if c.balance == nil && c.nonce == nil && !c.setCode && update.Storages == nil {
		return nil
	}
	if c.setCode {
		update.Code = &state.ContractCode{Hash: common.BytesToHash(post.CodeHash), Blob: bytes.Clone(c.code), OriginHash: types.EmptyCodeHash}
		if pre != nil {
			update.Code.OriginHash = common.BytesToHash(pre.CodeHash)
		}
	}
	return update
}

// readOrigins reads the values of the account's written slots (hashed in
// c.hashed) before the block from its storage trie into c.origins, loading
// their paths together first.
func (c *accountChange) readOrigins(storage *SecureTrie) error {
	addr := c.access.Address
	if err := storage.missing(storage.trie.Prefetch(c.hashed)); err != nil {
		return fmt.Errorf("account %x: %w", addr, err)
	}
	c.origins = make([]common.Hash, len(c.slots))
	for i, slot := range c.slots {
		value, err := storage.storageAt(addr, slot, c.hashed[i])
		if err != nil {
			return fmt.Errorf("account %x: %w", addr, err)
		}
		if len(value) > common.HashLength {
			return fmt.Errorf("adapter: storage slot %x of account %x holds %d bytes, more than a slot's 32", slot, addr, len(value))
		}
		c.origins[i] = common.BytesToHash(value)
	}
	return nil
}

package adapter

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/keccakroot/keccakroot/rlpstream"
	"github.com/keccakroot/keccakroot/triehash"
)

// The batch methods of go-ethereum's state.Trie, as its StateTrie has
// them: keys hashed and values encoded as the one-by-one methods do, then
// handed to the Trie's Prefetch or UpdateBatch, which load the paths on
// several goroutines. Storage tries are opened with one worker (their
// roots are rehashed in parallel with one another), so their batches load
// in order.

// PrefetchAccount loads the account trie's nodes along the paths of
// addresses, so that reading or changing those accounts finds them in
// memory. It changes nothing else; a missing node is an error (see
// triehash.Trie.Prefetch).
func (s *StateTrie) PrefetchAccount(addresses []common.Address) error {
	keys := make([][]byte, len(addresses))
	for i := range addresses {
		keys[i] = Keccak256(addresses[i][:])
	}
	return s.accounts.Prefetch(keys)
}

// PrefetchStorage opens the storage trie of addr and loads its nodes along
// the paths of the slots keys. For an address without an account there is
// nothing to load.
func (s *StateTrie) PrefetchStorage(addr common.Address, keys [][]byte) error {
	st, err := s.storage(addr)
	if err != nil || st == nil {
		return err
	}
	return st.trie.Prefetch(hashKeys(keys))
}

// UpdateAccountBatch stores accounts[i] at addresses[i] for every i in
// order, as UpdateAccount would; codeLengths is unused, as in go-ethereum.
// Slices of different lengths are an error before anything changes; if a
// change fails, those before it stay applied (see
// triehash.Trie.UpdateBatch).
func (s *StateTrie) UpdateAccountBatch(addresses []common.Address, accounts []*types.StateAccount, codeLengths []int) error {
	if len(addresses) != len(accounts) {
		return fmt.Errorf("%w: UpdateAccountBatch with %d addresses and %d accounts", triehash.ErrLengthMismatch, len(addresses), len(accounts))
	}
	keys := make([][]byte, len(addresses))
	values := make([][]byte, len(accounts))
	for i, addr := range addresses {
		value, err := encodeAccount(addr, accounts[i])
		if err != nil {
			return err
		}
		keys[i], values[i] = Keccak256(addr[:]), value
	}
	return s.accounts.UpdateBatch(keys, values)
}

// UpdateStorageBatch sets slot keys[i] of the account at addr to values[i]
// for every i in order, as UpdateStorage would. As in go-ethereum, an
// empty value is stored (as the RLP empty string), not deleted: clear a
// slot with DeleteStorage. The account must exist; slices of different
// lengths are an error before anything changes, and if a change fails
// those before it stay applied.
func (s *StateTrie) UpdateStorageBatch(addr common.Address, keys [][]byte, values [][]byte) error {
	st, err := s.mustStorage(addr)
	if err != nil {
		return err
	}
	if len(keys) != len(values) {
		return fmt.Errorf("%w: UpdateStorageBatch with %d keys and %d values", triehash.ErrLengthMismatch, len(keys), len(values))
	}
	encoded := make([][]byte, len(values))
	for i, value := range values {
		encoded[i] = rlpstream.AppendBytes(nil, value)
	}
	// Past the checks a batch fails only part way, with the changes
	// before the failure applied: the trie has changed either way.
	st.changed = st.changed || len(keys) > 0
	return st.trie.UpdateBatch(hashKeys(keys), encoded)
}

// hashKeys returns the Keccak-256 of each key, as go-ethereum's StateTrie
// hashes storage slots.
func hashKeys(keys [][]byte) [][]byte {
	hashed := make([][]byte, len(keys))
	for i, key := range keys {
		hashed[i] = Keccak256(key)
	}
	return hashed
}

package adapter

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/rlpstream"
	"github.com/keccakroot/keccakroot/triehash"
)

// The batch methods of go-ethereum's state.Trie, as its StateTrie has
// them: keys hashed and values encoded as the one-by-one methods do, then
// handed to the Trie's Prefetch or UpdateBatch, which load the paths on
// the trie's workers (one for a storage trie that NewStateDatabase opens,
// since go-ethereum hashes storage tries in parallel with one another).

// PrefetchAccount loads the account trie's nodes along the paths of
// addresses, so that reading or changing those accounts finds them in
// memory. It changes nothing else; a missing node is an error (see
// triehash.Trie.Prefetch).
func (s *SecureTrie) PrefetchAccount(addresses []common.Address) error {
	keys := make([][]byte, len(addresses))
	for i := range addresses {
		keys[i] = addresses[i][:]
	}
	return s.missing(s.trie.Prefetch(hashKeys(keys)))
}

// PrefetchStorage loads the storage trie's nodes along the paths of the
// slots keys. address is unused.
func (s *SecureTrie) PrefetchStorage(address common.Address, keys [][]byte) error {
	return s.missing(s.trie.Prefetch(hashKeys(keys)))
}

// UpdateAccountBatch stores accounts[i] at addresses[i] for every i in
// order, as UpdateAccount would; codeLengths is unused, as in go-ethereum.
// Slices of different lengths are an error before anything changes; if a
// change fails, those before it stay applied (see
// triehash.Trie.UpdateBatch).
func (s *SecureTrie) UpdateAccountBatch(addresses []common.Address, accounts []*types.StateAccount, codeLengths []int) error {
	if len(addresses) != len(accounts) {
		return fmt.Errorf("%w: UpdateAccountBatch with %d addresses and %d accounts", triehash.ErrLengthMismatch, len(addresses), len(accounts))
	}
	keys := make([][]byte, len(addresses))
	values := make([][]byte, len(accounts))
	buf := make([]byte, 0, len(accounts)*accountSize) // the encodings, in one buffer
	for i := range addresses {
		start := len(buf)
		var err error
		if buf, err = appendAccount(buf, addresses[i], accounts[i]); err != nil {
			return err
		}
		keys[i], values[i] = addresses[i][:], buf[start:len(buf):len(buf)]
	}
	return s.updateBatch(keys, values)
}

// UpdateStorageBatch sets slot keys[i] to values[i] for every i in order,
// as UpdateStorage would: as in go-ethereum, an empty value is stored (as
// the RLP empty string), not deleted. address is unused. Slices of
// different lengths are an error before anything changes, and if a change
// fails those before it stay applied.
func (s *SecureTrie) UpdateStorageBatch(address common.Address, keys [][]byte, values [][]byte) error {
	if len(keys) != len(values) {
		return fmt.Errorf("%w: UpdateStorageBatch with %d keys and %d values", triehash.ErrLengthMismatch, len(keys), len(values))
	}
	return s.updateBatch(keys, encodeStorageValues(values))
}

// updateBatch stores values[i] under the hash of keys[i], in order; an
// empty value deletes the key.
func (s *SecureTrie) updateBatch(keys, values [][]byte) error {
	hashed := hashKeys(keys)
	s.notePreimages(keys, hashed, values)
	return s.updateHashed(hashed, values)
}

// updateHashed is updateBatch for a caller that has hashed the keys and
// noted their preimages (notePreimages).
func (s *SecureTrie) updateHashed(hashed, values [][]byte) error {
	// Past the length check a batch fails only part way, with the changes
	// before the failure applied: the trie has changed either way.
	s.changed = s.changed || len(hashed) > 0
	return s.missing(s.trie.UpdateBatch(hashed, values))
}

// notePreimages keeps for the next Commit, where the trie database records
// preimages, the key of each hashed[i] that values[i] stores, and forgets
// the keys the empty values delete, as go-ethereum's StateTrie does key by
// key.
func (s *SecureTrie) notePreimages(keys, hashed, values [][]byte) {
	if s.preimages == nil {
		return
	}
	for i, key := range keys {
		if len(values[i]) == 0 {
			delete(s.secKeyCache, common.Hash(hashed[i]))
		} else {
			s.secKeyCache[common.Hash(hashed[i])] = common.CopyBytes(key)
		}
	}
}

// encodeStorageValues returns each value as its RLP string, as a storage
// trie holds it, in one buffer (the trie copies what it keeps).
func encodeStorageValues(values [][]byte) [][]byte {
	size := 0
	for _, v := range values {
		size += rlpstream.BytesSize(v)
	}
	buf := make([]byte, 0, size)
	encoded := make([][]byte, len(values))
	for i, v := range values {
		start := len(buf)
		buf = rlpstream.AppendBytes(buf, v)
		encoded[i] = buf[start:len(buf):len(buf)]
	}
	return encoded
}

// hashKeys returns the Keccak-256 of each key, as go-ethereum's StateTrie
// hashes addresses and storage slots: slices of one array, hashed in
// batches through fastkeccak.Sum256Batch.
func hashKeys(keys [][]byte) [][]byte {
	digests := make([][32]byte, len(keys))
	fastkeccak.Sum256Batch(digests, keys)
	hashed := make([][]byte, len(keys))
	for i := range digests {
		hashed[i] = digests[i][:]
	}
	return hashed
}

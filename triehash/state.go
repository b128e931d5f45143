package triehash

import (
	"fmt"

	"github.com/holiman/uint256"
	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/rlpstream"
)

// EmptyCodeHash is the code hash of an account without code: Keccak-256 of
// nothing.
var EmptyCodeHash = fastkeccak.Sum256(nil)

// Account is an account as the state trie stores it.
type Account struct {
	Nonce       uint64
	Balance     uint256.Int
	StorageRoot [32]byte // EmptyRoot without storage
	CodeHash    [32]byte // EmptyCodeHash without code
}

// AppendAccount appends the state trie value of an account: the RLP list
// [nonce, balance, storage root, code hash], as go-ethereum's
// types.StateAccount encodes it. A nil account is an empty list, as
// go-ethereum's encoder writes a nil *types.StateAccount.
func AppendAccount(dst []byte, a *Account) []byte {
	if a == nil {
		return rlpstream.AppendListHeader(dst, 0)
	}
	size := rlpstream.Uint64Size(a.Nonce) + rlpstream.Uint256Size(&a.Balance) + 2*33
	dst = rlpstream.AppendListHeader(dst, size)
	dst = rlpstream.AppendUint64(dst, a.Nonce)
	dst = rlpstream.AppendUint256(dst, &a.Balance)
	dst = rlpstream.AppendBytes(dst, a.StorageRoot[:])
	return rlpstream.AppendBytes(dst, a.CodeHash[:])
}

// AppendStorageValue appends the storage trie value of a slot: the RLP
// string of the value with its leading zero bytes removed, as go-ethereum
// stores it. A zero value is not stored at all; AppendStorageValue returns
// dst unchanged for it, and the caller leaves the slot out. A nil value is
// a zero value.
func AppendStorageValue(dst []byte, value *[32]byte) []byte {
	if value == nil {
		// As AppendAccount takes a nil account: indexing a nil array
		// pointer would panic.
		return dst
	}
	i := 0
	for i < len(value) && value[i] == 0 {
		i++
	}
	if i == len(value) {
		return dst
	}
	return rlpstream.AppendBytes(dst, value[i:])
}

// StorageRoot returns the storage root of an account from its slots (keys
// and values as 32-byte words, keys not yet hashed, any order), on
// GOMAXPROCS goroutines. Zero values are left out, as go-ethereum deletes
// them. A repeated slot is ErrDuplicateKey, slices of different lengths
// ErrLengthMismatch.
func StorageRoot(keys, values [][32]byte) ([32]byte, error) {
	return Options{}.StorageRoot(keys, values)
}

// StateRoot returns the state root of a set of accounts by address, in any
// order: the secure trie of their encodings. It runs on GOMAXPROCS
// goroutines. A repeated address is ErrDuplicateKey, slices of different
// lengths ErrLengthMismatch.
func StateRoot(addresses [][20]byte, accounts []Account) ([32]byte, error) {
	return Options{}.StateRoot(addresses, accounts)
}

// StorageRoot is the package's StorageRoot with these options.
func (o Options) StorageRoot(keys, values [][32]byte) ([32]byte, error) {
	if len(keys) != len(values) {
		return [32]byte{}, fmt.Errorf("%w: %d slots, %d values", ErrLengthMismatch, len(keys), len(values))
	}
	var (
		encoded = make([][]byte, 0, len(keys))
		slot    = make([]int, 0, len(keys)) // index in keys of each stored slot
		buf     = make([]byte, 0, 33*len(keys))
		// zeros holds the slots given a zero value, which are left out of
		// the trie but not out of the check for repeated slots.
		zeros map[[32]byte]bool
	)
	for i := range keys {
		start := len(buf)
		buf = AppendStorageValue(buf, &values[i])
		if len(buf) == start {
			if zeros == nil {
				zeros = make(map[[32]byte]bool)
			}
			if zeros[keys[i]] {
				return [32]byte{}, duplicateSlot(keys[i])
			}
			zeros[keys[i]] = true
			continue
		}
		encoded = append(encoded, buf[start:len(buf):len(buf)])
		slot = append(slot, i)
	}
	for _, i := range slot {
		if zeros != nil && zeros[keys[i]] {
			return [32]byte{}, duplicateSlot(keys[i])
		}
	}
	slotKey := func(i int) []byte { return keys[slot[i]][:] }
	return o.build(o.hashKeys(len(slot), slotKey), encoded, slotKey)
}

// duplicateSlot is StorageRoot's error for a slot given twice, one of
// them with a zero value.
func duplicateSlot(key [32]byte) error {
	return fmt.Errorf("%w: slot %x", ErrDuplicateKey, key)
}

// StateRoot is the package's StateRoot with these options.
func (o Options) StateRoot(addresses [][20]byte, accounts []Account) ([32]byte, error) {
	if len(addresses) != len(accounts) {
		return [32]byte{}, fmt.Errorf("%w: %d addresses, %d accounts", ErrLengthMismatch, len(addresses), len(accounts))
	}
	encoded := make([][]byte, len(addresses))
	buf := make([]byte, 0, 112*len(addresses))
	for i := range addresses {
		start := len(buf)
		buf = AppendAccount(buf, &accounts[i])
		encoded[i] = buf[start:len(buf):len(buf)]
	}
	address := func(i int) []byte { return addresses[i][:] }
	return o.build(o.hashKeys(len(addresses), address), encoded, address)
}

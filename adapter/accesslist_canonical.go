package adapter

import (
	"fmt"

	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/params"
)

// EIP-7928 makes a block's access list canonical: one list, and one only,
// records a block's accesses, so that its hash in the header commits to
// them. go-ethereum refuses a block whose list breaks the ordering rules
// even where the list's last entries would give a post-state root, and so
// does AccessListStateRoot: a root computed from a list that no valid block
// carries would vouch for a state no chain reaches.
//
// Two of go-ethereum's rules need the block itself and are left to its
// validation: no block access index beyond the block's transactions (its
// count plus one, for the post-block system calls and withdrawals), and
// no more addresses and slots than the block's gas limit allows.

// checkCanonicalAccount checks one account's entry of a block access list
// against the ordering rules that need only the entry: slots written in
// ascending order, each once, with at least one write each; slots read in
// ascending order, each once, none of them also written; the writes of a
// slot and the balance, nonce and code changes each in ascending order of
// block access index, one per index; and no code larger than a contract
// may be.
func checkCanonicalAccount(a *bal.AccountAccess) error {
	if err := checkStorageWrites(a); err != nil {
		return err
	}
	if err := checkStorageReads(a); err != nil {
		return err
	}
	balances := func(i int) uint32 { return a.BalanceChanges[i].BlockAccessIndex }
	if err := checkIndices(a, "balance change", len(a.BalanceChanges), balances); err != nil {
		return err
	}
	nonces := func(i int) uint32 { return a.NonceChanges[i].BlockAccessIndex }
	if err := checkIndices(a, "nonce change", len(a.NonceChanges), nonces); err != nil {
		return err
	}
	codes := func(i int) uint32 { return a.CodeChanges[i].BlockAccessIndex }
	if err := checkIndices(a, "code change", len(a.CodeChanges), codes); err != nil {
		return err
	}
	// Every code change counts, not only the last one that the state
	// keeps: a list recording an oversized deployment is not one that a
	// valid block carries.
	for i := range a.CodeChanges {
		change := &a.CodeChanges[i]
		if n := len(change.NewCode); n > params.MaxCodeSizeAmsterdam {
			return fmt.Errorf("%w: account %x: code change at block access index %d has %d bytes, more than the %d a contract may have",
				ErrAccessList, a.Address, change.BlockAccessIndex, n, params.MaxCodeSizeAmsterdam)
		}
	}
	return nil
}

// checkStorageWrites checks the account's written slots: present, in
// ascending order, each once, and each with at least one write, those in
// ascending order of block access index.
func checkStorageWrites(a *bal.AccountAccess) error {
	for j := range a.StorageChanges {
		write := &a.StorageChanges[j]
		if write.Slot == nil {
			return fmt.Errorf("%w: account %x: storage write %d without a slot", ErrAccessList, a.Address, j)
		}
		slot := write.Slot.Bytes32()
		if j > 0 && a.StorageChanges[j-1].Slot.Cmp(write.Slot) >= 0 {
			return fmt.Errorf("%w: account %x slot %x: slots must be in ascending order, each once", ErrAccessList, a.Address, slot)
		}
		// A slot listed without a write would say nothing, and a list
		// with it and one without would hash differently.
		if len(write.SlotChanges) == 0 {
			return fmt.Errorf("%w: account %x slot %x: a written slot without any write", ErrAccessList, a.Address, slot)
		}
		if k := firstUnordered(len(write.SlotChanges), func(i int) uint32 { return write.SlotChanges[i].BlockAccessIndex }); k > 0 {
			return fmt.Errorf("%w: account %x slot %x: write at block access index %d after index %d: indices must ascend, each once",
				ErrAccessList, a.Address, slot, write.SlotChanges[k].BlockAccessIndex, write.SlotChanges[k-1].BlockAccessIndex)
		}
	}
	return nil
}

// checkStorageReads checks the account's read slots: present, in ascending
// order, each once, and none among the written ones (a slot written is
// listed with its writes only). Both lists being sorted, one merge walk
// finds a slot in both.
func checkStorageReads(a *bal.AccountAccess) error {
	w := 0 // the first written slot not below the read slot
	for j, read := range a.StorageReads {
		if read == nil {
			return fmt.Errorf("%w: account %x: storage read %d without a slot", ErrAccessList, a.Address, j)
		}
		slot := read.Bytes32()
		if j > 0 && a.StorageReads[j-1].Cmp(read) >= 0 {
			return fmt.Errorf("%w: account %x slot %x: slots read must be in ascending order, each once", ErrAccessList, a.Address, slot)
		}
		for w < len(a.StorageChanges) && a.StorageChanges[w].Slot.Lt(read) {
			w++
		}
		if w < len(a.StorageChanges) && a.StorageChanges[w].Slot.Eq(read) {
			return fmt.Errorf("%w: account %x slot %x: a slot both read and written", ErrAccessList, a.Address, slot)
		}
	}
	return nil
}

// checkIndices checks that the account's n changes of one kind (what, for
// the error), whose block access indices index returns, are in ascending
// order of index, one per index: a change is the value after the
// transaction at that index, and two for one index would leave it unsaid
// which one the state keeps.
func checkIndices(a *bal.AccountAccess, what string, n int, index func(i int) uint32) error {
	if k := firstUnordered(n, index); k > 0 {
		return fmt.Errorf("%w: account %x: %s at block access index %d after index %d: indices must ascend, each once",
			ErrAccessList, a.Address, what, index(k), index(k-1))
	}
	return nil
}

// firstUnordered returns the position of the first of n block access
// indices that is not above the one before it, or -1 if they strictly
// ascend.
func firstUnordered(n int, index func(i int) uint32) int {
	for i := 1; i < n; i++ {
		if index(i) <= index(i-1) {
			return i
		}
	}
	return -1
}

// Package triehash computes Ethereum Merkle-Patricia trie roots: the
// transaction, receipt and withdrawal roots of a block, storage roots and
// state roots. Every root is byte-identical to go-ethereum's trie package.
//
// A Builder takes keys in ascending order and hashes each subtree the moment
// no later key can reach it, so its memory is bounded by the key length, not
// by the number of keys: about 20 KB for a state trie of any size, less than
// go-ethereum's StackTrie holds. It calls back with every node stored by
// hash, as StackTrie does. Root and SecureRoot take keys in any order;
// ListRoot gives what types.DeriveSha gives for a list.
//
//	b := triehash.NewBuilder(nil)
//	for i := range keys { // keys sorted
//		if err := b.Update(keys[i], values[i]); err != nil {
//			return err
//		}
//	}
//	root := b.Hash()
//
// A Trie is the mutable trie of a client's block processing: opened at a
// root over a NodeSource, it loads nodes along the paths it walks, takes
// updates and deletions, rehashes only what changed (in batches, on all
// cores) and commits exactly the node set go-ethereum's trie commits. It
// proves keys (Prove), and a Trie opened over NewProofSource is a partial
// trie revealed by proofs; VerifyProof checks a proof by go-ethereum's rules.
//
//	t, err := triehash.NewTrie(parentRoot, source)
//	...
//	err = t.Update(key, value)   // an empty value deletes
//	err = t.UpdateBatch(keys, values) // the same, paths loaded on all cores
//	root := t.Hash()
//	root, err = t.Commit(func(path []byte, hash [32]byte, blob []byte) {
//		// store blob at path; a nil blob deletes the node at path
//	})
//
// Where to start:
//
//   - a root from keys in any order: Root, SecureRoot (keys hashed first, as
//     in state and storage tries), StateRoot, StorageRoot, or Options to
//     choose the goroutines and receive the stored nodes;
//   - a root from sorted keys, streamed: NewBuilder, or NewParallelBuilder on
//     several goroutines;
//   - a block's transactions, receipts or withdrawals root: ListRoot;
//   - a trie a client changes block after block: NewTrie over a NodeSource;
//   - proofs: Trie.Prove, VerifyProof, VerifyRangeProof, NewProofSource.
//
// Errors wrap the package's sentinel errors (ErrUnsorted, ErrDuplicateKey,
// ErrMissingNode, ...) with the key or node at fault; test them with
// errors.Is and errors.As. The functions may be called from several
// goroutines at once; a Builder, ParallelBuilder or Trie belongs to one
// goroutine at a time, and runs its own workers where it says so.
//
// The package depends on fastkeccak and rlpstream only; it does not import
// go-ethereum.
package triehash

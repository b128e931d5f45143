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
// The package depends on fastkeccak and rlpstream only; it does not import
// go-ethereum.
package triehash

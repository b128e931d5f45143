// Package adapter puts keccakroot behind go-ethereum's own types: every
// function takes what the go-ethereum function it replaces takes and returns
// exactly what that function returns, so a client switches by changing a
// call, not by forking.
//
// The one-line swaps:
//
//	crypto.NewKeccakState()                       ->  adapter.NewKeccakState()
//	crypto.Keccak256(a, b)                        ->  adapter.Keccak256(a, b)
//	crypto.Keccak256Hash(a, b)                    ->  adapter.Keccak256Hash(a, b)
//	crypto.HashData(kh, data)                     ->  adapter.HashData(kh, data)
//	trie.NewStackTrie(onTrieNode)                 ->  adapter.NewStackTrie(onTrieNode)
//	types.DeriveSha(list, trie.NewStackTrie(nil)) ->  adapter.DeriveSha(list)
//	types.DeriveSha(txs, trie.NewStackTrie(nil))  ->  adapter.TransactionsRoot(txs)
//	types.DeriveSha(receipts, ...)                ->  adapter.ReceiptsRoot(receipts)
//	types.DeriveSha(withdrawals, ...)             ->  adapter.WithdrawalsRoot(withdrawals)
//	header.Hash()                                 ->  adapter.HeaderHash(header)
//	block.Hash()                                  ->  adapter.BlockHash(block)
//	types.CalcUncleHash(uncles)                   ->  adapter.UncleHash(uncles)
//	tx.Hash()                                     ->  adapter.TxHash(tx)
//	genesis.ToBlock().Root()                      ->  adapter.GenesisStateRoot(genesis.Alloc)
//	genesis.ToBlock().Hash()                      ->  adapter.GenesisBlockHash(genesis) // and an error
//
// A *StackTrie is a types.ListHasher, so it also goes where go-ethereum takes
// one: types.NewBlock(header, body, receipts, adapter.NewStackTrie(nil)).
//
// Hashes of RLP values (headers, transactions, uncle lists) are streamed into
// a fastkeccak.Hasher on the stack with rlpstream: sizes are computed first,
// then the encoding is written front to back into the hasher, with no
// encoding buffer. Roots (transactions, receipts, withdrawals, state) are
// built by triehash. Unlike go-ethereum's Hash methods, these functions do
// not cache their results in the values they are given.
//
// # Raw blocks
//
// VerifyBlockRLP checks a block in its raw RLP encoding without decoding it
// into go-ethereum types: its shape, its transactions root, uncle hash,
// withdrawals root and, in a chain export of an Amsterdam block, the hash of
// its block access list against its header; it returns the block hash.
// VerifyBlockRLPInfo also returns what it read (number, parent hash), for
// linking a chain.
//
//	hash, err := adapter.VerifyBlockRLP(raw)
//	var mismatch *adapter.MismatchError
//	if errors.As(err, &mismatch) {
//		log.Printf("block %d: %s is wrong", mismatch.Number, mismatch.Field)
//	}
package adapter

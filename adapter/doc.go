// Package adapter puts keccakroot behind go-ethereum's own types: every
// function takes what the go-ethereum function it replaces takes and returns
// exactly what that function returns, so a client switches by changing a
// call, not by forking.
//
// Where to start: the one-line swaps below for hashes and roots; OpenTrie,
// CommitTrie and OpenStateTrie for the tries of go-ethereum's trie database;
// NewStateDatabase for go-ethereum's StateDB on keccakroot's tries;
// ExecuteStateless and AccessListStateRoot for stateless verification;
// Prove, VerifyProof and VerifyAccountProof for proofs; VerifyBlockRLP for
// raw blocks. The functions keep no state between calls, so any number of
// goroutines may call them at once; the tries and hashers they return belong
// to one goroutine at a time, as go-ethereum's do.
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
//	genesis.ToBlock().Root()                      ->  adapter.GenesisStateRoot(genesis.Alloc) // Merkle genesis
//	genesis.ToBlock().Hash()                      ->  adapter.GenesisBlockHash(genesis) // and an error
//	trie.VerifyProof(root, key, proofDb)          ->  adapter.VerifyProof(root, key, proofDb)
//	trie.VerifyRangeProof(root, first, k, v, db)  ->  adapter.VerifyRangeProof(root, first, k, v, db)
//
// A *StackTrie is a types.ListHasher, so it also goes where go-ethereum takes
// one: types.NewBlock(header, body, receipts, adapter.NewStackTrie(nil)).
//
// Hashes of headers and uncle lists are streamed into a fastkeccak.Hasher
// on the stack with rlpstream: sizes are computed first, then the encoding
// is written front to back into the hasher, with no encoding buffer. A
// transaction's hash streams go-ethereum's own encoding (tx.EncodeRLP) into
// a pooled hasher (see TxHash). Roots (transactions, receipts, withdrawals,
// state) are built by triehash. Unlike go-ethereum's Hash methods, these
// functions do not cache their results in the values they are given (TxHash
// falls back to tx.Hash, which does, for a type it cannot stream).
//
// # Tries and state
//
// OpenTrie opens a trie of go-ethereum's trie database, the account trie or
// a storage trie, as trie.New does, as a *triehash.Trie that loads its nodes
// from the database as it walks them and rehashes only what changed;
// CommitTrie returns its root and the trienode.NodeSet that go-ethereum's
// Trie.Commit(false) would have made, for triedb.Database.Update.
// OpenStateTrie opens a whole state as a *StateTrie: accounts and storage
// slots by address, with go-ethereum's key hashing, whose Hash and Commit
// rehash the changed storage tries in parallel before the account trie.
//
//	st, err := adapter.OpenStateTrie(parentRoot, db) // db: a *triedb.Database
//	err = st.UpdateStorage(addr, slot, value)        // GetAccount, UpdateAccount, ...
//	root, nodes, err := st.Commit()                  // nodes: for db.Update
//
// NewStateDatabase wraps go-ethereum's Merkle state database so that the
// tries its StateDB opens are SecureTries (a complete state.Trie on
// keccakroot's Trie), everything else staying go-ethereum's:
//
//	sdb := adapter.NewStateDatabase(state.NewMPTDatabase(tdb, codedb).WithSnapshot(snaps))
//	statedb, err := state.New(parentRoot, sdb) // as core.BlockChain and the miner use it
//
// # Stateless verification
//
// ExecuteStateless executes a block on its execution witness, as
// core.ExecuteStateless does, with the state served by keccakroot's tries
// straight from the witness's nodes; VerifyStateless adds every check
// go-ethereum's import makes (the parent, the header, the body with
// ValidateBody, the requests and access list); DecodeWitness reads a
// witness in either wire form. AccessListStateRoot computes an Amsterdam block's post-state
// root from its block access list and its parent's state, without
// execution, AccessListCommit the node set with it, and
// AccessListStateUpdate go-ethereum's whole state.StateUpdate (nodes,
// accounts, slots and codes with their origins) for a state database's
// Commit, which rolls a chain forward on either scheme; WitnessNodes serves
// a witness's nodes to it, CachedNodeDatabase a trie database's through a
// NodeCache that lasts from block to block.
//
// # Proofs
//
// Prove writes a key's Merkle proof from a *triehash.Trie into a proof
// database, and VerifyProof checks one, each as go-ethereum's Trie.Prove and
// trie.VerifyProof do, with the same decision on every input;
// VerifyRangeProof checks a range of keys and values with its edge proofs,
// as snap sync does with trie.VerifyRangeProof, and returns an error where
// go-ethereum would panic. VerifyAccountProof checks an eth_getProof result (EIP-1186) against a
// block's state root: the account's fields, or its absence, and every
// storage slot's value; the error names the account, the slot and what
// differs.
//
// # Raw blocks
//
// VerifyBlockRLP checks a block in its raw RLP encoding without decoding it
// into go-ethereum types: its shape, its transactions root, uncle hash,
// withdrawals root and, in a chain export of an Amsterdam block, the hash of
// its block access list against its header; it returns the block hash.
// VerifyBlockRLPInfo also returns what it read (number, parent hash), for
// linking a chain. DecodeExportedBlock and EncodeExportedBlock read and
// write a block of a chain export as go-ethereum's types.Block.
//
//	hash, err := adapter.VerifyBlockRLP(raw)
//	var mismatch *adapter.MismatchError
//	if errors.As(err, &mismatch) {
//		log.Printf("block %d: %s is wrong", mismatch.Number, mismatch.Field)
//	}
package adapter

package adapter

import (
	"bytes"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/keccakroot/keccakroot/triehash"
)

// StackTrie computes the root of a trie from keys inserted in ascending
// order, in place of go-ethereum's trie.StackTrie. It is a types.ListHasher,
// so it plugs into types.DeriveSha and types.NewBlock.
//
// Like go-ethereum's, it copies keys and values as needed, so the caller may
// reuse them at once, and it reports every node stored by hash to the
// callback given to NewStackTrie. It is stricter in one way: Update after
// Hash returns an error (see triehash.ErrHashed) until Reset. And it takes
// keys go-ethereum's panics on, the empty key and a key that is a prefix of
// the next one, giving the root go-ethereum's trie.Trie has for them (keys
// DeriveSha makes are never such).
type StackTrie struct {
	b *triehash.Builder
}

var _ types.ListHasher = (*StackTrie)(nil)

// NewStackTrie returns an empty StackTrie, in place of trie.NewStackTrie.
// onTrieNode, if not nil, receives every node stored by hash, the root
// included, with go-ethereum's contract: the path and blob are only valid
// during the call.
func NewStackTrie(onTrieNode trie.OnTrieNode) *StackTrie {
	var onNode triehash.NodeFunc
	if onTrieNode != nil {
		onNode = func(path []byte, hash [32]byte, blob []byte) {
			onTrieNode(path, hash, blob)
		}
	}
	return &StackTrie{b: triehash.NewBuilder(onNode)}
}

// Update inserts a key and its value. Keys must be strictly ascending and
// values not empty; otherwise the trie is unchanged and the error says why.
func (t *StackTrie) Update(key, value []byte) error {
	return t.b.Update(key, value)
}

// Hash returns the root of the keys inserted so far, reporting the nodes not
// yet reported to the callback.
func (t *StackTrie) Hash() common.Hash {
	return t.b.Hash()
}

// Reset empties the trie for reuse, keeping its callback.
func (t *StackTrie) Reset() {
	t.b.Reset()
}

// DeriveSha returns the root of the trie of a list's encodings by index, in
// place of types.DeriveSha(list, trie.NewStackTrie(nil)): the transactions,
// receipts and withdrawals roots of a block header. Receipts and withdrawals
// are encoded by this package; any other list, transactions included, by its
// own EncodeIndex (see TransactionsRoot). A nil list has no items: its
// root is the empty trie's.
func DeriveSha(list types.DerivableList) common.Hash {
	switch l := list.(type) {
	case nil:
		return types.EmptyRootHash
	case types.Receipts:
		return ReceiptsRoot(l)
	case types.Withdrawals:
		return WithdrawalsRoot(l)
	case types.Transactions:
		return TransactionsRoot(l)
	}
	return encodeIndexRoot(list)
}

// TransactionsRoot returns the transactions root of a block, in place of
// types.DeriveSha(txs, trie.NewStackTrie(nil)): the trie of the
// transactions' canonical encodings by index.
//
// The encodings come from go-ethereum's own EncodeIndex, into one reused
// buffer, since a trie value must be whole before its leaf is hashed; the
// trie is built by triehash. A list holding a nil transaction, which
// go-ethereum cannot encode, has no root: the result is the zero hash.
func TransactionsRoot(txs types.Transactions) common.Hash {
	if slices.Contains(txs, nil) {
		return common.Hash{}
	}
	return encodeIndexRoot(txs)
}

// encodeIndexRoot builds the trie of a list's encodings as EncodeIndex
// writes them.
func encodeIndexRoot(list types.DerivableList) common.Hash {
	var enc bytes.Buffer
	return triehash.ListRoot(list.Len(), func(i int, buf []byte) []byte {
		enc.Reset()
		list.EncodeIndex(i, &enc)
		return append(buf, enc.Bytes()...)
	})
}

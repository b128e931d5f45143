package adapter

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/keccakroot/keccakroot/triehash"
)

// trieNode is one call of an OnTrieNode callback, copied.
type trieNode struct {
	path []byte
	hash common.Hash
	blob []byte
}

// nodeRecorder returns a callback that records the nodes it is given.
func nodeRecorder(nodes *[]trieNode) trie.OnTrieNode {
	return func(path []byte, hash common.Hash, blob []byte) {
		*nodes = append(*nodes, trieNode{slices.Clone(path), hash, slices.Clone(blob)})
	}
}

// sortedKeys returns n sorted distinct keys of the given length, with
// values. (go-ethereum's StackTrie panics on a key that is a prefix of
// another, so the keys of one trie all have one length, as Ethereum's do.)
func sortedKeys(t *testing.T, n, length int) (keys, values [][]byte) {
	r := newRand(t)
	seen := map[string]bool{}
	for len(keys) < n {
		k := make([]byte, length)
		for i := range k {
			k[i] = byte(r.IntN(4)) << 4 // few distinct nibbles: deep sharing
		}
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		keys = append(keys, k)
	}
	slices.SortFunc(keys, bytes.Compare)
	for range keys {
		v := randBytes(r)
		if len(v) == 0 {
			v = []byte{1}
		}
		values = append(values, v)
	}
	return keys, values
}

// TestStackTrieNodes checks the root and every node the callback receives
// against go-ethereum's StackTrie, on tries with short and long values and
// embedded nodes.
func TestStackTrieNodes(t *testing.T) {
	for _, tc := range []struct{ n, length int }{{1, 32}, {2, 32}, {100, 32}, {50, 3}, {4, 1}} {
		t.Run(fmt.Sprintf("keys=%d/length=%d", tc.n, tc.length), func(t *testing.T) {
			keys, values := sortedKeys(t, tc.n, tc.length)
			var got, want []trieNode
			ours, theirs := NewStackTrie(nodeRecorder(&got)), trie.NewStackTrie(nodeRecorder(&want))
			for i := range keys {
				if err := ours.Update(keys[i], values[i]); err != nil {
					t.Fatalf("Update %x: %v", keys[i], err)
				}
				if err := theirs.Update(keys[i], values[i]); err != nil {
					t.Fatalf("go-ethereum Update %x: %v", keys[i], err)
				}
			}
			if h, w := ours.Hash(), theirs.Hash(); h != w {
				t.Fatalf("Hash = %x, go-ethereum %x", h, w)
			}
			if len(got) != len(want) {
				t.Fatalf("%d nodes reported, go-ethereum %d", len(got), len(want))
			}
			for i := range got {
				if !bytes.Equal(got[i].path, want[i].path) || got[i].hash != want[i].hash || !bytes.Equal(got[i].blob, want[i].blob) {
					t.Fatalf("node %d = %x %x, go-ethereum %x %x", i, got[i].path, got[i].hash, want[i].path, want[i].hash)
				}
			}
		})
	}
}

func TestStackTrieAsListHasher(t *testing.T) {
	r := newRand(t)
	st := NewStackTrie(nil)
	for _, n := range listSizes {
		txs := randTxs(r, n)
		// DeriveSha resets the hasher it is given, so one StackTrie serves every list.
		if got, want := types.DeriveSha(txs, st), types.DeriveSha(txs, trie.NewStackTrie(nil)); got != want {
			t.Fatalf("%d txs: DeriveSha with StackTrie = %x, go-ethereum %x", n, got, want)
		}
	}
	header := randHeader(r, 0x3)
	body := &types.Body{Transactions: randTxs(r, 5), Withdrawals: randWithdrawals(r, 3)}
	receipts := randReceipts(r, 5)
	got := types.NewBlock(header, body, receipts, NewStackTrie(nil))
	want := types.NewBlock(header, body, receipts, trie.NewStackTrie(nil))
	if got.Hash() != want.Hash() {
		t.Fatalf("NewBlock with StackTrie: hash %x, go-ethereum %x", got.Hash(), want.Hash())
	}
}

func TestStackTrieErrors(t *testing.T) {
	tests := []struct {
		name string
		run  func(st *StackTrie) error
		want error
	}{
		{"empty value", func(st *StackTrie) error { return st.Update([]byte{1}, nil) }, triehash.ErrEmptyValue},
		{"descending keys", func(st *StackTrie) error {
			_ = st.Update([]byte{2}, []byte{1})
			return st.Update([]byte{1}, []byte{1})
		}, triehash.ErrUnsorted},
		{"repeated key", func(st *StackTrie) error {
			_ = st.Update([]byte{2}, []byte{1})
			return st.Update([]byte{2}, []byte{1})
		}, triehash.ErrDuplicateKey},
		{"update after hash", func(st *StackTrie) error {
			_ = st.Update([]byte{2}, []byte{1})
			st.Hash()
			return st.Update([]byte{3}, []byte{1})
		}, triehash.ErrHashed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := NewStackTrie(nil)
			if err := tt.run(st); !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			st.Reset()
			if err := st.Update([]byte{1}, []byte{1}); err != nil {
				t.Fatalf("Update after Reset: %v", err)
			}
		})
	}
	if got := NewStackTrie(nil).Hash(); got != types.EmptyRootHash {
		t.Fatalf("empty trie hash %x, want %x", got, types.EmptyRootHash)
	}
}

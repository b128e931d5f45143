package adapter

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
)

// gethRangeDecision runs go-ethereum's VerifyRangeProof, its panics
// recovered, and describes the decision.
func gethRangeDecision(root common.Hash, firstKey []byte, keys, values [][]byte, db ethdb.KeyValueReader) (decision string) {
	defer func() {
		if r := recover(); r != nil {
			decision = "panic"
		}
	}()
	more, err := trie.VerifyRangeProof(root, firstKey, keys, values, db)
	return rangeDecision(more, err)
}

func rangeDecision(more bool, err error) string {
	if err != nil {
		return "rejected"
	}
	return fmt.Sprintf("accepted, more %v", more)
}

// TestVerifyRangeProofMatchesGeth: on ranges of a secure trie, proven
// into a proof database with go-ethereum's Prove, good and tampered, and
// with no database for the whole trie, VerifyRangeProof decides as
// go-ethereum does.
func TestVerifyRangeProofMatchesGeth(t *testing.T) {
	r := newRand(t)
	tr := trie.NewEmpty(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil))
	var keys, values [][]byte
	for i := range 400 {
		keys = append(keys, crypto.Keccak256(fmt.Appendf(nil, "key %d", i)))
		values = append(values, randBytes(r))
		if len(values[i]) == 0 {
			values[i] = []byte{1}
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	for i := range keys {
		tr.MustUpdate(keys[i], values[i])
	}
	root := tr.Hash()
	prove := func(edges ...[]byte) *memorydb.Database {
		db := memorydb.New()
		for _, key := range edges {
			if err := tr.Prove(key, db); err != nil {
				t.Fatal(err)
			}
		}
		return db
	}
	seen := map[string]bool{}
	check := func(name string, root common.Hash, firstKey []byte, keys, values [][]byte, db ethdb.KeyValueReader) {
		t.Helper()
		want := gethRangeDecision(root, firstKey, keys, values, db)
		var got string
		if db == nil { // an untyped nil, as callers pass it
			got = rangeDecision(VerifyRangeProof(root, firstKey, keys, values, nil))
		} else {
			got = rangeDecision(VerifyRangeProof(root, firstKey, keys, values, db))
		}
		if got != want && (want != "panic" || got != "rejected") {
			t.Errorf("%s: %s, go-ethereum %s", name, got, want)
		}
		seen[want] = true
	}
	for _, span := range [][2]int{{0, 50}, {100, 300}, {350, 400}, {200, 201}} {
		lo, hi := span[0], span[1]
		first, last := keys[lo], keys[hi-1]
		db := prove(first, last)
		check("good", root, first, keys[lo:hi], values[lo:hi], db)
		check("wrong root", common.Hash{1}, first, keys[lo:hi], values[lo:hi], db)
		changed := slices.Clone(values[lo:hi])
		changed[len(changed)/2] = []byte{0xde, 0xad}
		check("value changed", root, first, keys[lo:hi], changed, db)
		check("no proof", root, first, keys[lo:hi], values[lo:hi], nil)
	}
	check("whole trie, no proof", root, nil, keys, values, nil)
	past := bytes.Repeat([]byte{0xff}, 32)
	check("empty range past the end", root, past, nil, nil, prove(past))

	// A proof node filed under another hash stands for that hash: a
	// single-key proof, which rehashes nothing, holds against it.
	misfiled := memorydb.New()
	it := prove(keys[7]).NewIterator(nil, nil)
	fakeRoot := common.Hash{0xee}
	for it.Next() {
		key := it.Key()
		if common.BytesToHash(key) == root {
			key = fakeRoot[:]
		}
		misfiled.Put(key, it.Value())
	}
	it.Release()
	check("misfiled root, single key", fakeRoot, keys[7], keys[7:8], values[7:8], misfiled)
	for _, d := range []string{"rejected", "accepted, more true", "accepted, more false"} {
		if !seen[d] {
			t.Errorf("no case %q: the test lost its coverage", d)
		}
	}
}

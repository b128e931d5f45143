package triehash_test

import (
	"bytes"
	"fmt"

	"github.com/keccakroot/keccakroot/triehash"
)

// store is a node store keyed by path, as go-ethereum's path scheme keeps
// one.
type store map[string][]byte

func (s store) Node(path []byte, _ [32]byte) ([]byte, error) { return s[string(path)], nil }

func (s store) commit(path []byte, _ [32]byte, blob []byte) {
	if blob == nil {
		delete(s, string(path))
		return
	}
	s[string(path)] = bytes.Clone(blob)
}

// A block's changes on top of a committed trie: open at the parent root,
// change, commit, and open the next block's trie at the new root.
func ExampleTrie() {
	db := store{}
	t, _ := triehash.NewTrie(triehash.EmptyRoot, nil)
	for _, k := range []string{"do", "dog", "doge", "horse"} {
		_ = t.Update([]byte(k), []byte("value of "+k))
	}
	parent, _ := t.Commit(db.commit)

	t, err := triehash.NewTrie(parent, db)
	if err != nil {
		panic(err)
	}
	_ = t.Update([]byte("dog"), []byte("puppy"))
	_ = t.Delete([]byte("horse"))
	root, _ := t.Commit(db.commit)

	next, _ := triehash.NewTrie(root, db)
	v, _ := next.Get([]byte("dog"))
	fmt.Printf("%s, %d stored nodes\n", v, len(db))

	proof, _ := next.Prove([]byte("doge"))
	proven, err := triehash.VerifyProof(root, []byte("doge"), proof)
	fmt.Printf("%s, %v\n", proven, err)
	// Output:
	// puppy, 4 stored nodes
	// value of doge, <nil>
}

package triehash_test

import (
	"errors"
	"fmt"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/triehash"
)

// bytesOf turns strings into the byte slices the builders take.
func bytesOf(s ...string) [][]byte {
	b := make([][]byte, len(s))
	for i := range s {
		b[i] = []byte(s[i])
	}
	return b
}

// A Builder takes keys in ascending order and hashes each subtree as soon as
// no later key can reach it; its memory does not grow with the number of
// keys. The trie is the "puppy" test of ethereum/tests' TrieTests.
func ExampleBuilder() {
	keys := bytesOf("do", "dog", "doge", "horse") // ascending
	values := bytesOf("verb", "puppy", "coin", "stallion")

	stored := 0
	b := triehash.NewBuilder(func(path []byte, hash [32]byte, blob []byte) { stored++ })
	for i := range keys {
		if err := b.Update(keys[i], values[i]); err != nil {
			panic(err)
		}
	}
	fmt.Printf("%x, %d nodes stored by hash\n", b.Hash(), stored)

	// Keys out of order are an error that names the key; the Builder is
	// unchanged by it, and Reset starts a new trie.
	b.Reset()
	_ = b.Update([]byte("dog"), []byte("puppy"))
	err := b.Update([]byte("do"), []byte("verb"))
	fmt.Println(errors.Is(err, triehash.ErrUnsorted))
	// Output:
	// 5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84, 4 nodes stored by hash
	// true
}

// A ParallelBuilder is a Builder that encodes and hashes the leaves on
// several goroutines; the root and the nodes it reports are the same.
func ExampleParallelBuilder() {
	keys := bytesOf("do", "dog", "doge", "horse")
	values := bytesOf("verb", "puppy", "coin", "stallion")

	p := triehash.NewParallelBuilder(nil, 0) // 0: GOMAXPROCS workers
	for i := range keys {
		if err := p.Update(keys[i], values[i]); err != nil {
			panic(err)
		}
	}
	fmt.Printf("%x\n", p.Hash())
	// Output:
	// 5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84
}

// Root takes keys in any order. A repeated key is an error, not an
// overwrite.
func ExampleRoot() {
	root, err := triehash.Root(bytesOf("horse", "do", "doge", "dog"), bytesOf("stallion", "verb", "coin", "puppy"))
	fmt.Printf("%x %v\n", root, err)

	_, err = triehash.Root(bytesOf("dog", "dog"), bytesOf("puppy", "hound"))
	fmt.Println(errors.Is(err, triehash.ErrDuplicateKey))
	// Output:
	// 5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84 <nil>
	// true
}

// SecureRoot is the root of a trie whose keys are hashed first, as
// go-ethereum's state and storage tries are. The trie is the "dogs" test of
// ethereum/tests' secure TrieTests.
func ExampleSecureRoot() {
	keys := bytesOf("doe", "dog", "dogglesworth")
	values := bytesOf("reindeer", "puppy", "cat")
	root, err := triehash.SecureRoot(keys, values)
	fmt.Printf("%x %v\n", root, err)

	// The same as Root of the hashed keys.
	hashed := make([][]byte, len(keys))
	for i := range keys {
		h := fastkeccak.Sum256(keys[i])
		hashed[i] = h[:]
	}
	same, _ := triehash.Root(hashed, values)
	fmt.Println(same == root)
	// Output:
	// d4cd937e4a4368d7931a9cf51686b7e10abb3dce38a39000fd7902a092b64585 <nil>
	// true
}

// Options choose the number of goroutines and a callback for the stored
// nodes; the root and the set of nodes are the same for any number.
func ExampleOptions() {
	keys := bytesOf("do", "dog", "doge", "horse")
	values := bytesOf("verb", "puppy", "coin", "stallion")
	nodes := 0
	root, err := triehash.Options{Workers: 1, OnNode: func([]byte, [32]byte, []byte) { nodes++ }}.Root(keys, values)
	fmt.Printf("%x %v, %d nodes\n", root, err, nodes)
	// Output:
	// 5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84 <nil>, 4 nodes
}

// ListRoot is the root go-ethereum's types.DeriveSha gives a list of
// transactions, receipts or withdrawals: item i under the key RLP(i), with no
// sort. value appends the encoding of item i to buf.
func ExampleListRoot() {
	items := [][]byte{{0xc1, 0x01}, {0xc1, 0x02}, {0xc1, 0x03}} // encoded items
	root := triehash.ListRoot(len(items), func(i int, buf []byte) []byte {
		return append(buf, items[i]...)
	})

	// The same trie built from its keys: RLP(0) = 0x80, RLP(1) = 0x01, ...
	same, _ := triehash.Root([][]byte{{0x80}, {0x01}, {0x02}}, items)
	fmt.Println(root == same)
	fmt.Println(triehash.ListRoot(0, nil) == triehash.EmptyRoot)
	// Output:
	// true
	// true
}

// StateRoot is the state root of accounts by address, in any order.
func ExampleStateRoot() {
	addresses := [][20]byte{{0xaa}, {0xbb}}
	accounts := make([]triehash.Account, 2)
	for i := range accounts {
		accounts[i] = triehash.Account{Nonce: uint64(i), StorageRoot: triehash.EmptyRoot, CodeHash: triehash.EmptyCodeHash}
		accounts[i].Balance.SetUint64(1e18)
	}
	root, err := triehash.StateRoot(addresses, accounts)

	// The same as the secure trie of the encoded accounts.
	keys, values := make([][]byte, 2), make([][]byte, 2)
	for i := range accounts {
		keys[i] = addresses[i][:]
		values[i] = triehash.AppendAccount(nil, &accounts[i])
	}
	same, _ := triehash.SecureRoot(keys, values)
	fmt.Println(root == same, err)
	// Output:
	// true <nil>
}

// A proof is the nodes on the way from the root to a key, in any order. It
// proves the key's value or its absence.
func ExampleVerifyProof() {
	t, _ := triehash.NewTrie(triehash.EmptyRoot, nil)
	for _, k := range []string{"do", "dog", "doge", "horse"} {
		_ = t.Update([]byte(k), []byte("value of "+k))
	}
	root := t.Hash()

	proof, _ := t.Prove([]byte("dog"))
	value, err := triehash.VerifyProof(root, []byte("dog"), proof)
	fmt.Printf("%q %v\n", value, err)

	proof, _ = t.Prove([]byte("cat"))
	value, err = triehash.VerifyProof(root, []byte("cat"), proof)
	fmt.Printf("%q %v\n", value, err) // proven absent

	_, err = triehash.VerifyProof(root, []byte("dog"), proof[:1])
	fmt.Println(errors.Is(err, triehash.ErrProofNodeMissing))
	// Output:
	// "value of dog" <nil>
	// "" <nil>
	// true
}

// A range proof shows that keys and values are all of a trie's entries
// from the first key to the last, as snap sync checks what it downloads:
// the proofs of the two edge keys. more says whether keys follow the range.
func ExampleVerifyRangeProof() {
	all := []string{"a1", "a2", "b1", "b2", "c1", "c2"}
	t, _ := triehash.NewTrie(triehash.EmptyRoot, nil)
	for _, k := range all {
		_ = t.Update([]byte(k), []byte("value of "+k))
	}
	root := t.Hash()

	keys, values := bytesOf("a2", "b1", "b2"), bytesOf("value of a2", "value of b1", "value of b2")
	first, _ := t.Prove(keys[0])
	last, _ := t.Prove(keys[len(keys)-1])
	proof := append(first, last...)

	more, err := triehash.VerifyRangeProof(root, keys[0], keys, values, proof)
	fmt.Println(more, err)

	// A range with an entry left out does not verify.
	_, err = triehash.VerifyRangeProof(root, keys[0], [][]byte{keys[0], keys[2]}, [][]byte{values[0], values[2]}, proof)
	fmt.Println(errors.Is(err, triehash.ErrRangeMismatch))
	// Output:
	// true <nil>
	// true
}

// The nodes of proofs (or of a block's witness) open a partial trie that can
// be read, changed and rehashed along the proven paths: the primitive of
// stateless verification. A path the nodes do not reveal is a missing node.
func ExampleNewProofSource() {
	full, _ := triehash.NewTrie(triehash.EmptyRoot, nil)
	for _, k := range []string{"do", "dog", "doge", "horse"} {
		_ = full.Update([]byte(k), []byte("value of "+k))
	}
	root := full.Hash()
	witness, _ := full.Prove([]byte("horse"))

	partial, err := triehash.NewTrie(root, triehash.NewProofSource(witness))
	if err != nil {
		panic(err)
	}
	_ = partial.Update([]byte("horse"), []byte("pony"))
	_ = full.Update([]byte("horse"), []byte("pony"))
	fmt.Println(partial.Hash() == full.Hash())

	_, err = partial.Get([]byte("dog")) // not in the witness
	var missing *triehash.MissingNodeError
	fmt.Println(errors.As(err, &missing))
	// Output:
	// true
	// true
}

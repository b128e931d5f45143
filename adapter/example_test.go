package adapter_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/adapter"
	"github.com/keccakroot/keccakroot/triehash"
)

func ExampleNewKeccakState() {
	// Was: kh := crypto.NewKeccakState()
	kh := adapter.NewKeccakState()
	kh.Write([]byte("hello"))
	var digest common.Hash
	kh.Read(digest[:])
	fmt.Println(digest.Hex())
	// Output: 0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8
}

func ExampleKeccak256() {
	// Was: digest := crypto.Keccak256([]byte("hel"), []byte("lo"))
	digest := adapter.Keccak256([]byte("hel"), []byte("lo"))
	fmt.Printf("%x\n", digest)
	// Output: 1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8
}

func ExampleKeccak256Hash() {
	// Was: h := crypto.Keccak256Hash(nil)
	h := adapter.Keccak256Hash(nil)
	fmt.Println(h == types.EmptyCodeHash)
	// Output: true
}

func ExampleHashData() {
	kh := adapter.NewKeccakState()
	// Was: h := crypto.HashData(kh, []byte("hello"))
	h := adapter.HashData(kh, []byte("hello"))
	fmt.Println(h == crypto.Keccak256Hash([]byte("hello")))
	// Output: true
}

func ExampleNewStackTrie() {
	nodes := 0
	// Was: st := trie.NewStackTrie(func(path []byte, hash common.Hash, blob []byte) { ... })
	st := adapter.NewStackTrie(func(path []byte, hash common.Hash, blob []byte) { nodes++ })
	for i := byte(1); i <= 3; i++ {
		key := common.Hash{i}
		if err := st.Update(key[:], []byte("a value long enough to be stored by hash")); err != nil {
			panic(err)
		}
	}
	root := st.Hash()
	fmt.Println(root.Hex(), nodes)
	// Output: 0x115377b81e49e8db69872f896fbdef4447a7dadb025b07ded1316eef882f2eaa 5
}

func ExampleDeriveSha() {
	withdrawals := types.Withdrawals{{Index: 1, Validator: 2, Address: common.Address{3}, Amount: 4}}
	// Was: root := types.DeriveSha(withdrawals, trie.NewStackTrie(nil))
	root := adapter.DeriveSha(withdrawals)
	fmt.Println(root == types.DeriveSha(withdrawals, trie.NewStackTrie(nil)))
	// Output: true
}

func ExampleTransactionsRoot() {
	txs := types.Transactions{types.NewTransaction(0, common.Address{1}, big.NewInt(1), 21000, big.NewInt(1e9), nil)}
	// Was: root := types.DeriveSha(txs, trie.NewStackTrie(nil))
	root := adapter.TransactionsRoot(txs)
	fmt.Println(root == types.DeriveSha(txs, trie.NewStackTrie(nil)))
	// Output: true
}

func ExampleReceiptsRoot() {
	receipts := types.Receipts{{Type: types.DynamicFeeTxType, Status: types.ReceiptStatusSuccessful, CumulativeGasUsed: 21000}}
	// Was: root := types.DeriveSha(receipts, trie.NewStackTrie(nil))
	root := adapter.ReceiptsRoot(receipts)
	fmt.Println(root == types.DeriveSha(receipts, trie.NewStackTrie(nil)))
	// Output: true
}

func ExampleWithdrawalsRoot() {
	// Was: root := types.DeriveSha(types.Withdrawals{}, trie.NewStackTrie(nil))
	root := adapter.WithdrawalsRoot(types.Withdrawals{})
	fmt.Println(root == types.EmptyWithdrawalsHash)
	// Output: true
}

func ExampleHeaderHash() {
	header := &types.Header{Number: big.NewInt(1), Difficulty: big.NewInt(1), BaseFee: big.NewInt(7)}
	// Was: hash := header.Hash()
	hash := adapter.HeaderHash(header)
	fmt.Println(hash == header.Hash())
	// Output: true
}

func ExampleBlockHash() {
	block := types.NewBlockWithHeader(&types.Header{Number: big.NewInt(1)})
	// Was: hash := block.Hash()
	hash := adapter.BlockHash(block)
	fmt.Println(hash == block.Hash())
	// Output: true
}

func ExampleUncleHash() {
	uncles := []*types.Header{{Number: big.NewInt(5)}}
	// Was: hash := types.CalcUncleHash(uncles)
	hash := adapter.UncleHash(uncles)
	fmt.Println(hash == types.CalcUncleHash(uncles))
	// Output: true
}

func ExampleTxHash() {
	to := common.Address{0xaa}
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(1), Nonce: 7, GasTipCap: big.NewInt(1e9),
		GasFeeCap: big.NewInt(3e10), Gas: 21000, To: &to, Value: big.NewInt(1e18)})
	// Was: hash := tx.Hash()
	hash := adapter.TxHash(tx)
	fmt.Println(hash == tx.Hash())
	// Output: true
}

func ExampleGenesisStateRoot() {
	g := core.DefaultSepoliaGenesisBlock()
	// Was: root := g.ToBlock().Root()
	root := adapter.GenesisStateRoot(g.Alloc)
	fmt.Println(root.Hex())
	// Output: 0x5eb6e371a698b8d68f665192350ffcecbbbf322916f4b51bd79bb6887da3f494
}

func ExampleGenesisBlockHash() {
	// Was: hash := core.DefaultGenesisBlock().ToBlock().Hash()
	hash, err := adapter.GenesisBlockHash(core.DefaultGenesisBlock())
	if err != nil {
		panic(err)
	}
	fmt.Println(hash == params.MainnetGenesisHash)
	// Output: true
}

func ExampleVerifyBlockRLP() {
	// A block as a chain export holds it.
	to := common.Address{0xaa}
	txs := []*types.Transaction{types.NewTx(&types.LegacyTx{Nonce: 1, GasPrice: big.NewInt(1), Gas: 21000, To: &to,
		Data: []byte("pay 100")})}
	header := &types.Header{Number: big.NewInt(42), Difficulty: big.NewInt(1)}
	block := types.NewBlock(header, &types.Body{Transactions: txs}, nil, adapter.NewStackTrie(nil))
	raw, err := rlp.EncodeToBytes(block)
	if err != nil {
		panic(err)
	}

	hash, err := adapter.VerifyBlockRLP(raw)
	fmt.Println(hash == block.Hash(), err)

	// Tamper with the transaction: the header no longer matches the body.
	raw[bytes.Index(raw, []byte("pay 100"))+4] = '9'
	_, err = adapter.VerifyBlockRLP(raw)
	var mismatch *adapter.MismatchError
	if errors.As(err, &mismatch) {
		fmt.Println(mismatch.Number, mismatch.Field)
	}
	// Output:
	// true <nil>
	// 42 transactionsRoot
}

// A block's changes to a trie of go-ethereum's trie database (hash or path
// scheme): opened as trie.New opens it, changed with keccakroot's Trie, and
// committed into the database as the node set go-ethereum's Commit makes.
func ExampleOpenTrie() {
	tdb := triedb.NewDatabase(rawdb.NewMemoryDatabase(), triedb.HashDefaults)

	// The parent state, committed by go-ethereum.
	parent := trie.NewEmpty(tdb)
	for i := byte(1); i <= 100; i++ {
		parent.MustUpdate(crypto.Keccak256([]byte{i}), []byte{i})
	}
	parentRoot, set := parent.Commit(false)
	if err := tdb.Update(parentRoot, types.EmptyRootHash, 0, trienode.NewWithNodeSet(set), triedb.NewStateSet()); err != nil {
		panic(err)
	}

	// Was: t, err := trie.New(trie.StateTrieID(parentRoot), tdb)
	t, err := adapter.OpenTrie(trie.StateTrieID(parentRoot), tdb)
	if err != nil {
		panic(err)
	}
	for i := byte(1); i <= 10; i++ {
		if err := t.Update(crypto.Keccak256([]byte{i}), []byte{i, i}); err != nil {
			panic(err)
		}
	}
	// Was: root, nodes := t.Commit(false)
	root, nodes, err := adapter.CommitTrie(t, common.Hash{})
	if err != nil {
		panic(err)
	}
	if err := tdb.Update(root, parentRoot, 1, trienode.NewWithNodeSet(nodes), triedb.NewStateSet()); err != nil {
		panic(err)
	}

	// go-ethereum reads the new state.
	reread, err := trie.New(trie.StateTrieID(root), tdb)
	if err != nil {
		panic(err)
	}
	v, err := reread.Get(crypto.Keccak256([]byte{7}))
	fmt.Printf("%x %v\n", v, err)
	// Output: 0707 <nil>
}

// A state as a block changes it: accounts and their storage by address, with
// go-ethereum's key hashing, committed as one merged node set.
func ExampleOpenStateTrie() {
	tdb := triedb.NewDatabase(rawdb.NewMemoryDatabase(), triedb.HashDefaults)
	st, err := adapter.OpenStateTrie(types.EmptyRootHash, tdb)
	if err != nil {
		panic(err)
	}
	addr := common.Address{0xaa}
	acct := &types.StateAccount{Nonce: 1, Balance: uint256.NewInt(1e18), Root: types.EmptyRootHash,
		CodeHash: types.EmptyCodeHash.Bytes()}
	if err := st.UpdateAccount(addr, acct, 0); err != nil {
		panic(err)
	}
	if err := st.UpdateStorage(addr, common.Hash{1}.Bytes(), []byte{0x2a}); err != nil {
		panic(err)
	}
	root, nodes, err := st.Commit() // the storage root goes into the account first
	if err != nil {
		panic(err)
	}
	if err := tdb.Update(root, types.EmptyRootHash, 1, nodes, triedb.NewStateSet()); err != nil {
		panic(err)
	}

	// go-ethereum's state trie reads the account and its storage.
	accounts, err := trie.NewStateTrie(trie.StateTrieID(root), tdb)
	if err != nil {
		panic(err)
	}
	got, _ := accounts.GetAccount(addr)
	storage, err := trie.NewStateTrie(trie.StorageTrieID(root, crypto.Keccak256Hash(addr[:]), got.Root), tdb)
	if err != nil {
		panic(err)
	}
	slot, _ := storage.GetStorage(addr, common.Hash{1}.Bytes())
	fmt.Printf("%d %v %x\n", got.Nonce, got.Root != types.EmptyRootHash, slot)
	// Output: 1 true 2a
}

// A NodeCache in front of a trie database serves the nodes that the tries of
// every block read again; here the second trie opened on the same state
// reads all of its nodes from the cache.
func ExampleCachedNodeDatabase() {
	tdb := triedb.NewDatabase(rawdb.NewMemoryDatabase(), triedb.HashDefaults)
	parent := trie.NewEmpty(tdb)
	for i := byte(1); i <= 100; i++ {
		parent.MustUpdate(crypto.Keccak256([]byte{i}), []byte{i})
	}
	root, set := parent.Commit(false)
	if err := tdb.Update(root, types.EmptyRootHash, 0, trienode.NewWithNodeSet(set), triedb.NewStateSet()); err != nil {
		panic(err)
	}

	cache := adapter.NewNodeCache(64 << 20)
	nodes := adapter.CachedNodeDatabase(tdb, cache)
	for block := range 2 {
		t, err := adapter.OpenTrie(trie.StateTrieID(root), nodes)
		if err != nil {
			panic(err)
		}
		v, err := t.Get(crypto.Keccak256([]byte{42}))
		hits, misses := cache.Stats()
		fmt.Printf("block %d: %x %v, %d hits, %d misses\n", block, v, err, hits, misses)
	}
	// Output:
	// block 0: 2a <nil>, 0 hits, 4 misses
	// block 1: 2a <nil>, 4 hits, 4 misses
}

// Prove writes a key's proof into a proof database, as go-ethereum's
// Trie.Prove does; VerifyProof checks it as trie.VerifyProof does, with the
// same answer on every input, and never panics.
func ExampleVerifyProof() {
	t, _ := triehash.NewTrie(triehash.EmptyRoot, nil)
	_ = t.Update([]byte("dog"), []byte("puppy"))
	_ = t.Update([]byte("horse"), []byte("stallion"))
	root := common.Hash(t.Hash())

	proofDb := memorydb.New()
	// Was: err := tr.Prove([]byte("dog"), proofDb)
	if err := adapter.Prove(t, []byte("dog"), proofDb); err != nil {
		panic(err)
	}
	// Was: value, err := trie.VerifyProof(root, []byte("dog"), proofDb)
	value, err := adapter.VerifyProof(root, []byte("dog"), proofDb)
	fmt.Printf("%s %v\n", value, err)

	geth, err := trie.VerifyProof(root, []byte("dog"), proofDb)
	fmt.Println(bytes.Equal(value, geth), err)
	// Output:
	// puppy <nil>
	// true <nil>
}

// An eth_getProof answer, checked against the state root of the block it was
// asked for: the account's fields and every storage slot it claims. The
// answers are go-ethereum's, kept as test fixtures.
func ExampleVerifyAccountProof() {
	data, err := os.ReadFile("testdata/proofs/responses.json")
	if err != nil {
		panic(err)
	}
	var responses []struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(data, &responses); err != nil {
		panic(err)
	}
	res, err := adapter.ParseAccountResult(responses[0].Result)
	if err != nil {
		panic(err)
	}
	stateRoot := common.HexToHash("0xcbc8241518a4108b84c064506871908ecb29850437a2a521fa08e60a90b49e22")
	fmt.Println(adapter.VerifyAccountProof(stateRoot, res))

	res.Balance = big.NewInt(1) // a node that lies about the balance
	err = adapter.VerifyAccountProof(stateRoot, res)
	fmt.Println(errors.Is(err, adapter.ErrAccountMismatch))
	// Output:
	// <nil>
	// true
}

package adapter_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/keccakroot/keccakroot/adapter"
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

package adapter

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/stateless"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"

	"github.com/keccakroot/keccakroot/triehash"
)

// TestNilArguments hands nil to every function that takes a pointer, an
// interface or a list element go-ethereum would dereference: each must
// answer as its doc says, with ErrNilArgument where it returns an error,
// and none may panic.
func TestNilArguments(t *testing.T) {
	wantNil := func(name string, err error) {
		t.Helper()
		if !errors.Is(err, ErrNilArgument) {
			t.Errorf("%s: error %v, want ErrNilArgument", name, err)
		}
	}
	_, err := GenesisBlockHash(nil)
	wantNil("GenesisBlockHash(nil)", err)
	if h := GenesisHeader(nil, common.Hash{1}); h != nil {
		t.Errorf("GenesisHeader(nil) = %v, want nil", h)
	}

	emptyList := crypto.Keccak256Hash([]byte{0xc0})
	if got := HeaderHash(nil); got != emptyList {
		t.Errorf("HeaderHash(nil) = %x, want the hash of an empty list %x", got, emptyList)
	}
	if got := BlockHash(nil); got != emptyList {
		t.Errorf("BlockHash(nil) = %x, want HeaderHash(nil) %x", got, emptyList)
	}
	data := []byte("keccakroot")
	if got, want := HashData(nil, data), crypto.Keccak256Hash(data); got != want {
		t.Errorf("HashData(nil, data) = %x, want %x", got, want)
	}
	if got := TxHash(nil); got != (common.Hash{}) {
		t.Errorf("TxHash(nil) = %x, want the zero hash", got)
	}

	tx := types.NewTx(&types.LegacyTx{Nonce: 1, Gas: 21000})
	receipt := &types.Receipt{Status: types.ReceiptStatusSuccessful, CumulativeGasUsed: 21000}
	for _, c := range []struct {
		name string
		got  common.Hash
		want common.Hash
	}{
		{"DeriveSha(nil)", DeriveSha(nil), types.EmptyRootHash},
		{"TransactionsRoot({tx, nil})", TransactionsRoot(types.Transactions{tx, nil}), common.Hash{}},
		{"DeriveSha(Transactions{nil})", DeriveSha(types.Transactions{nil}), common.Hash{}},
		{"ReceiptsRoot({receipt, nil})", ReceiptsRoot(types.Receipts{receipt, nil}), common.Hash{}},
		{"DeriveSha(Receipts{nil})", DeriveSha(types.Receipts{nil}), common.Hash{}},
		// The lists without nil still get their roots.
		{"TransactionsRoot({tx})", TransactionsRoot(types.Transactions{tx}), types.DeriveSha(types.Transactions{tx}, trie.NewStackTrie(nil))},
		{"ReceiptsRoot({receipt})", ReceiptsRoot(types.Receipts{receipt}), types.DeriveSha(types.Receipts{receipt}, trie.NewStackTrie(nil))},
	} {
		if c.got != c.want {
			t.Errorf("%s = %x, want %x", c.name, c.got, c.want)
		}
	}

	db := triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil)
	_, err = OpenTrie(nil, db)
	wantNil("OpenTrie(nil, db)", err)
	_, err = OpenTrie(trie.StateTrieID(common.Hash{1}), nil)
	wantNil("OpenTrie(id, nil)", err)
	if _, err := OpenTrie(trie.StateTrieID(types.EmptyRootHash), nil); err != nil {
		t.Errorf("OpenTrie of the empty root without a database: %v", err)
	}
	_, err = OpenStateTrie(common.Hash{1}, nil)
	wantNil("OpenStateTrie(root, nil)", err)
	_, _, err = CommitTrie(nil, common.Hash{})
	wantNil("CommitTrie(nil)", err)

	tr, err := triehash.NewTrie(types.EmptyRootHash, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantNil("Prove(nil, key, db)", Prove(nil, []byte{1}, rawdb.NewMemoryDatabase()))
	wantNil("Prove(trie, key, nil)", Prove(tr, []byte{1}, nil))
	_, err = VerifyProof(common.Hash{1}, []byte{1}, nil)
	wantNil("VerifyProof(root, key, nil)", err)

	if got := NewStateDatabase(nil); got != nil {
		t.Errorf("NewStateDatabase(nil) = %v, want nil", got)
	}
	ctx := context.Background()
	block := types.NewBlockWithHeader(&types.Header{Number: common.Big1})
	witness := &stateless.Witness{}
	_, _, err = ExecuteStateless(ctx, nil, vm.Config{}, block, witness)
	wantNil("ExecuteStateless(nil config)", err)
	_, _, err = ExecuteStateless(ctx, params.MainnetChainConfig, vm.Config{}, nil, witness)
	wantNil("ExecuteStateless(nil block)", err)
	_, _, err = ExecuteStateless(ctx, params.MainnetChainConfig, vm.Config{}, block, nil)
	wantNil("ExecuteStateless(nil witness)", err)
	_, _, err = VerifyStateless(ctx, params.MainnetChainConfig, vm.Config{}, block, nil)
	wantNil("VerifyStateless(nil witness)", err)
	wantNil("CheckWitnessBlock(nil config)", CheckWitnessBlock(nil, block, witness))
	wantNil("CheckWitnessBlock(nil block)", CheckWitnessBlock(params.MainnetChainConfig, nil, witness))
	wantNil("CheckWitnessBlock(nil witness)", CheckWitnessBlock(params.MainnetChainConfig, block, nil))
	// WitnessNodes of no witness is a node database without nodes.
	reader, err := WitnessNodes(nil).NodeReader(common.Hash{1})
	if err != nil {
		t.Fatalf("WitnessNodes(nil).NodeReader: %v", err)
	}
	if blob, err := reader.Node(common.Hash{}, nil, common.Hash{1}); blob != nil || err != nil {
		t.Errorf("WitnessNodes(nil) read %x, %v; want no node and no error", blob, err)
	}
	_, err = AccessListStateRoot(common.Hash{1}, nil, db)
	wantNil("AccessListStateRoot(root, nil, db)", err)
	_, _, err = AccessListCommit(common.Hash{1}, nil, db)
	wantNil("AccessListCommit(root, nil, db)", err)
	_, err = AccessListStateRoot(common.Hash{1}, &bal.BlockAccessList{}, nil)
	wantNil("AccessListStateRoot(root, list, nil)", err)
}

// Command verifychain verifies a chain file, the blocks' RLP concatenated as
// 'geth export' writes it, with keccakroot's adapter.VerifyBlockRLP, and
// checks each block's hash against go-ethereum's decoding of the same block.
//
//	go run ./examples/verifychain            # generates a small chain first
//	go run ./examples/verifychain FILE       # an exported chain (not gzip)
package main

import (
	"bufio"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/keccakroot/keccakroot/adapter"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "verifychain:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var path string
	switch len(args) {
	case 0:
		dir, err := os.MkdirTemp("", "verifychain-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "chain.rlp")
		n, err := writeChain(path, 32)
		if err != nil {
			return fmt.Errorf("generating a chain: %w", err)
		}
		fmt.Printf("generated a chain of %d blocks with go-ethereum's GenerateChain\n", n)
	case 1:
		path = args[0]
	default:
		return errors.New("usage: verifychain [FILE]")
	}
	return verify(path)
}

// verify reads the chain file block by block with go-ethereum's RLP stream
// and checks each block two ways.
func verify(path string) error {
	f, err := os.Open(path) // #nosec G304 G703 -- the user names the file to read
	if err != nil {
		return err
	}
	defer f.Close()
	stream := rlp.NewStream(bufio.NewReader(f), 0)
	var (
		parent common.Hash
		count  int
		txs    int
	)
	for ; ; count++ {
		raw, err := stream.Raw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("block %d of %s: %w", count+1, path, err)
		}
		// keccakroot: the block's roots against its header, from the raw RLP.
		hash, err := adapter.VerifyBlockRLP(raw)
		if err != nil {
			return fmt.Errorf("block %d of %s: %w", count+1, path, err)
		}
		// go-ethereum: decode the block as 'geth import' does and hash its
		// header.
		block, err := adapter.DecodeExportedBlock(raw)
		if err != nil {
			return fmt.Errorf("block %d of %s: go-ethereum cannot decode it: %w", count+1, path, err)
		}
		if hash != block.Hash() {
			return fmt.Errorf("block #%d: keccakroot's hash %s, go-ethereum's %s", block.NumberU64(), hash.Hex(), block.Hash().Hex())
		}
		if count > 0 && block.ParentHash() != parent {
			return fmt.Errorf("block #%d: parent hash %s is not the hash of the block before it, %s",
				block.NumberU64(), block.ParentHash().Hex(), parent.Hex())
		}
		if types.DeriveSha(block.Transactions(), adapter.NewStackTrie(nil)) != block.TxHash() {
			return fmt.Errorf("block #%d: transactions root mismatch", block.NumberU64())
		}
		parent = hash
		txs += len(block.Transactions())
		fmt.Printf("block #%-3d %s  %2d txs  %d uncles  ok\n", block.NumberU64(), hash.Hex(), len(block.Transactions()), len(block.Uncles()))
	}
	if count == 0 {
		return fmt.Errorf("%s holds no blocks", path)
	}
	fmt.Printf("verified %d blocks (%d transactions): every hash matches go-ethereum's, every parent link holds\n", count, txs)
	return nil
}

// writeChain generates a proof-of-work chain of n blocks after the genesis
// block, with transactions of three types and a few uncles, and exports it
// to path as 'geth export' does. It returns the number of blocks written.
func writeChain(path string, n int) (int, error) {
	key, err := crypto.HexToECDSA("4b00000000000000000000000000000000000000000000000000000000000001")
	if err != nil {
		return 0, err
	}
	config := params.AllEthashProtocolChanges
	gspec := &core.Genesis{
		Config:   config,
		GasLimit: 30_000_000,
		Alloc:    types.GenesisAlloc{crypto.PubkeyToAddress(key.PublicKey): {Balance: big.NewInt(params.Ether)}},
	}
	_, blocks, _ := core.GenerateChainWithGenesis(gspec, ethash.NewFaker(), n, func(i int, b *core.BlockGen) {
		addTransactions(b, key, config, i)
		if i >= 2 && i%4 == 0 {
			prev := b.PrevBlock(i - 2)
			b.AddUncle(&types.Header{ParentHash: prev.Hash(), Number: new(big.Int).Add(prev.Number(), common.Big1), Extra: []byte("uncle")})
		}
	})
	f, err := os.Create(path) // #nosec G304 -- a file in our own temporary folder
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	all := append([]*types.Block{gspec.ToBlock()}, blocks...)
	for _, b := range all {
		if err := rlp.Encode(w, b); err != nil {
			f.Close()
			return 0, err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return len(all), f.Close()
}

// addTransactions adds a legacy, an access-list and a dynamic-fee
// transaction to the block.
func addTransactions(b *core.BlockGen, key *ecdsa.PrivateKey, config *params.ChainConfig, i int) {
	signer := types.LatestSigner(config)
	from := crypto.PubkeyToAddress(key.PublicKey)
	to := common.Address{0xee, byte(i)}
	price := big.NewInt(params.GWei)
	nonce := b.TxNonce(from)
	for _, data := range []types.TxData{
		&types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: 21000, To: &to, Value: big.NewInt(1)},
		&types.AccessListTx{ChainID: config.ChainID, Nonce: nonce + 1, GasPrice: price, Gas: 30000, To: &to,
			AccessList: types.AccessList{{Address: to, StorageKeys: []common.Hash{{1}}}}},
		&types.DynamicFeeTx{ChainID: config.ChainID, Nonce: nonce + 2, GasTipCap: price, GasFeeCap: price, Gas: 21000, To: &to, Value: big.NewInt(int64(i))},
	} {
		b.AddTx(types.MustSignNewTx(key, signer, data))
	}
}

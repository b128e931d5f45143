package adapter

import (
	"errors"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/rlp"
)

// exportBlock is the record 'geth export' of go-ethereum v1.17 writes for a
// block (type exportBlock in its cmd/utils/cmd.go): the devp2p block's
// items, then the block access list as an optional fifth item.
type exportBlock struct {
	Header      *types.Header
	Txs         []*types.Transaction
	Uncles      []*types.Header
	Withdrawals []*types.Withdrawal  `rlp:"optional"`
	AccessList  *bal.BlockAccessList `rlp:"optional"`
}

// DecodeExportedBlock decodes one block of a chain export, as 'geth import'
// reads it: the devp2p block (three or four items), or an Amsterdam block
// with its access list as a fifth item. It checks nothing beyond the
// encoding: VerifyBlockRLP checks the roots.
func DecodeExportedBlock(raw []byte) (*types.Block, error) {
	var eb exportBlock
	if err := rlp.DecodeBytes(raw, &eb); err != nil {
		return nil, err
	}
	if eb.Header == nil {
		return nil, errors.New("adapter: exported block without a header")
	}
	block := types.NewBlockWithHeader(eb.Header).WithBody(types.Body{Transactions: eb.Txs, Uncles: eb.Uncles, Withdrawals: eb.Withdrawals})
	if eb.AccessList != nil {
		block = block.WithAccessListUnsafe(eb.AccessList)
	}
	return block, nil
}

// EncodeExportedBlock encodes block as 'geth export' writes it: the devp2p
// block, with its access list, if it has one, as a fifth item.
func EncodeExportedBlock(block *types.Block) ([]byte, error) {
	return rlp.EncodeToBytes(exportBlock{
		Header: block.Header(), Txs: block.Transactions(), Uncles: block.Uncles(),
		Withdrawals: block.Withdrawals(), AccessList: block.AccessList(),
	})
}

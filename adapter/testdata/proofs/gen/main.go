// Command gen writes the eth_getProof fixtures of adapter/testdata/proofs:
// it runs a go-ethereum node in process (ethclient/simulated, every fork of
// the dev chain, so the system contracts of Cancun and Prague are in its
// genesis and fill their storage block by block), makes a few blocks of
// transactions, and asks the node for proofs over JSON-RPC on its IPC
// socket, so each answer is exactly what geth serves. It is its own module
// so that the node's dependencies stay out of keccakroot's go.mod.
//
// Run it from this folder, only to regenerate the fixtures:
//
//	go run .
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/gethclient"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/version"
)

// storeCode is a contract that stores the second word of its call data in
// the slot the first word names: PUSH1 32 CALLDATALOAD PUSH1 0 CALLDATALOAD
// SSTORE STOP.
var storeCode = common.FromHex("0x602035600035550000")

var (
	senderKey, _ = crypto.ToECDSA(common.LeftPadBytes([]byte{0x4b, 0x15}, 32))
	sender       = crypto.PubkeyToAddress(senderKey.PublicKey)
	funded       = common.HexToAddress("0x00000000000000000000000000000000f00d0001")
	store        = common.HexToAddress("0x00000000000000000000000000000000c0de0001")
	newcomer     = common.HexToAddress("0x00000000000000000000000000000000be7a0001") // created by a transfer
	missing      = common.HexToAddress("0x00000000000000000000000000000000dead0001") // never exists
)

// question is one eth_getProof call: an account and the slots asked for.
type question struct {
	address common.Address
	keys    []string
}

func main() {
	out := flag.String("out", "..", "folder to write the fixtures to")
	blocks := flag.Int("blocks", 6, "blocks to make")
	flag.Parse()
	if err := generate(*out, *blocks); err != nil {
		log.Fatal(err)
	}
}

func generate(out string, blocks int) error {
	dir, err := os.MkdirTemp("", "proofgen")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ipc := filepath.Join(dir, "geth.ipc")

	ether := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	alloc := types.GenesisAlloc{
		sender: {Balance: new(big.Int).Mul(ether, big.NewInt(1000))},
		funded: {Balance: big.NewInt(123_456_789)},
		store: {Code: storeCode, Nonce: 1, Storage: map[common.Hash]common.Hash{
			common.BigToHash(big.NewInt(1)): common.BigToHash(big.NewInt(0x2a)),
			common.BigToHash(big.NewInt(2)): common.BigToHash(big.NewInt(0xbeef)),
			common.BigToHash(big.NewInt(3)): common.HexToHash("0xff00000000000000000000000000000000000000000000000000000000000001"),
		}},
	}
	backend := simulated.NewBackend(alloc, func(nc *node.Config, _ *ethconfig.Config) { nc.IPCPath = ipc })
	defer backend.Close()
	client := backend.Client()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	chainID, err := client.ChainID(ctx)
	if err != nil {
		return err
	}
	signer := types.LatestSignerForChainID(chainID)
	nonce := uint64(0)
	send := func(to common.Address, value *big.Int, data []byte) error {
		tx := types.MustSignNewTx(senderKey, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce,
			GasTipCap: big.NewInt(params.GWei), GasFeeCap: big.NewInt(100 * params.GWei), Gas: 100_000,
			To: &to, Value: value, Data: data})
		nonce++
		return client.SendTransaction(ctx, tx)
	}
	word := func(k, v int64) []byte {
		return append(common.BigToHash(big.NewInt(k)).Bytes(), common.BigToHash(big.NewInt(v)).Bytes()...)
	}
	for i := range blocks {
		switch i {
		case 1:
			err = send(newcomer, big.NewInt(1_000_000), nil)
		case 2:
			err = send(store, nil, word(4, 5)) // a new slot
		case 3:
			err = send(store, nil, word(2, 0)) // a slot cleared
		}
		if err != nil {
			return err
		}
		backend.Commit()
	}

	head, err := client.HeaderByNumber(ctx, nil)
	if err != nil {
		return err
	}
	// The slots the system contracts wrote: EIP-4788 keeps each block's
	// timestamp at timestamp % 8191 (its beacon root, zero here, 8191
	// later); EIP-2935 keeps each parent hash at (number-1) % 8191.
	var beaconSlots, historySlots []string
	for n := uint64(1); n <= head.Number.Uint64(); n++ {
		h, err := client.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			return err
		}
		beaconSlots = append(beaconSlots, hexutil.EncodeUint64(h.Time%8191))
		historySlots = append(historySlots, common.BigToHash(new(big.Int).SetUint64((n-1)%8191)).Hex())
	}
	beaconSlots = append(beaconSlots, hexutil.EncodeUint64(head.Time%8191+8191))  // a zero beacon root: absent
	historySlots = append(historySlots, common.BigToHash(big.NewInt(8190)).Hex()) // not written yet: absent
	absentSlot := "0x00000000000000000000000000000000000000000000000000000000000abcde"
	questions := []question{
		{sender, nil},
		{funded, []string{"0x0"}},
		{newcomer, nil},
		{store, []string{
			common.BigToHash(big.NewInt(1)).Hex(), "0x2", "0x3", "0x04", absentSlot,
		}},
		{params.BeaconRootsAddress, beaconSlots},
		{params.HistoryStorageAddress, historySlots},
		{params.WithdrawalQueueAddress, []string{"0x0", "0x1", "0x2", "0x3"}},
		{params.ConsolidationQueueAddress, []string{"0x0", "0x1"}},
		{head.Coinbase, nil},
		{missing, []string{absentSlot}},
		{common.HexToAddress("0x000000000000000000000000000000000000dead"), nil},
	}

	conn, err := net.Dial("unix", ipc)
	if err != nil {
		return err
	}
	defer conn.Close()
	rd := bufio.NewReader(conn)
	var answers []json.RawMessage
	for id, q := range questions {
		keys := q.keys
		if keys == nil {
			keys = []string{}
		}
		raw, err := call(conn, rd, id+1, "eth_getProof", q.address, keys, hexutil.EncodeBig(head.Number))
		if err != nil {
			return fmt.Errorf("eth_getProof %s: %w", q.address.Hex(), err)
		}
		answers = append(answers, raw)
	}
	// The same answers through gethclient, as a Go program gets them.
	rpcClient, err := rpc.Dial(ipc)
	if err != nil {
		return err
	}
	defer rpcClient.Close()
	for _, q := range questions {
		if _, err := gethclient.New(rpcClient).GetProof(ctx, q.address, q.keys, head.Number); err != nil {
			return fmt.Errorf("gethclient GetProof %s: %w", q.address.Hex(), err)
		}
	}

	if err := writeJSON(filepath.Join(out, "responses.json"), answers); err != nil {
		return err
	}
	return writeJSON(filepath.Join(out, "block.json"), map[string]any{
		"number":    hexutil.EncodeBig(head.Number),
		"hash":      head.Hash(),
		"stateRoot": head.Root,
		"source":    fmt.Sprintf("go-ethereum v%d.%d.%d, ethclient/simulated, eth_getProof over IPC", version.Major, version.Minor, version.Patch),
	})
}

// call sends one JSON-RPC request on the connection and returns the
// response as the node wrote it.
func call(conn net.Conn, rd *bufio.Reader, id int, method string, params ...any) (json.RawMessage, error) {
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write(append(req, '\n')); err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if err := json.NewDecoder(rd).Decode(&raw); err != nil {
		return nil, err
	}
	var resp struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, err
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("node error: %s", resp.Error.Message)
	}
	return raw, nil
}

// writeJSON writes v indented, as the fixtures are read by people too.
func writeJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, data, "", "  "); err != nil {
		return err
	}
	buf.WriteByte('\n')
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

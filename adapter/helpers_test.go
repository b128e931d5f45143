package adapter

import (
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto/kzg4844"
	"github.com/holiman/uint256"
)

// newRand returns a generator seeded from the test's name, so that every
// test draws the same values on every run.
func newRand(t testing.TB) *rand.Rand {
	var seed uint64
	for _, c := range t.Name() {
		seed = seed*131 + uint64(c)
	}
	return rand.New(rand.NewPCG(seed, 0x6b656363616b))
}

func randHash(r *rand.Rand) (h common.Hash) {
	for i := range h {
		h[i] = byte(r.Uint32())
	}
	return h
}

func randAddress(r *rand.Rand) (a common.Address) {
	for i := range a {
		a[i] = byte(r.Uint32())
	}
	return a
}

// randSize returns a byte-string length around the RLP boundaries: the
// single byte, the short and long string headers, a sponge block.
func randSize(r *rand.Rand) int {
	sizes := [...]int{0, 1, 1, 2, 20, 55, 56, 57, 135, 136, 137, 300, 1024}
	return sizes[r.IntN(len(sizes))]
}

func randBytes(r *rand.Rand) []byte {
	n := randSize(r)
	if n == 0 && r.IntN(2) == 0 {
		return nil
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	if n == 1 && r.IntN(2) == 0 {
		b[0] &= 0x7f // a single byte that is its own encoding
	}
	return b
}

// randBits returns a bit length biased to the boundaries of RLP integers:
// zero, single bytes, 64 bits and 256 bits.
func randBits(r *rand.Rand, max int) int {
	bits := [...]int{0, 1, 7, 8, 9, 63, 64, 65, 128, 255, 256}
	for {
		if b := bits[r.IntN(len(bits))]; b <= max {
			return b
		}
	}
}

// randBig returns a non-negative integer of up to max bits.
func randBig(r *rand.Rand, max int) *big.Int {
	n := randBits(r, max)
	x := new(big.Int)
	for i := 0; i < n; i++ {
		if i == n-1 || r.IntN(2) == 0 {
			x.SetBit(x, i, 1)
		}
	}
	return x
}

func randU256(r *rand.Rand) *uint256.Int {
	return uint256.MustFromBig(randBig(r, 256))
}

func randUint64(r *rand.Rand) uint64 {
	switch r.IntN(4) {
	case 0:
		return 0
	case 1:
		return uint64(r.IntN(0x80))
	case 2:
		return uint64(r.IntN(1 << 16))
	}
	return r.Uint64()
}

// randHeader returns a random header with the optional fields whose bits are
// set in mask (bit 0 BaseFee .. bit 7 SlotNumber), the others nil.
func randHeader(r *rand.Rand, mask uint8) *types.Header {
	var bloom types.Bloom
	for i := range bloom {
		if r.IntN(8) == 0 {
			bloom[i] = byte(r.Uint32())
		}
	}
	h := &types.Header{
		ParentHash:  randHash(r),
		UncleHash:   randHash(r),
		Coinbase:    randAddress(r),
		Root:        randHash(r),
		TxHash:      randHash(r),
		ReceiptHash: randHash(r),
		Bloom:       bloom,
		Difficulty:  randBig(r, 128),
		Number:      randBig(r, 64),
		GasLimit:    randUint64(r),
		GasUsed:     randUint64(r),
		Time:        randUint64(r),
		Extra:       randBytes(r),
		MixDigest:   randHash(r),
		Nonce:       types.EncodeNonce(r.Uint64()),
	}
	u64 := func() *uint64 { v := randUint64(r); return &v }
	hash := func() *common.Hash { v := randHash(r); return &v }
	if mask&1 != 0 {
		h.BaseFee = randBig(r, 256)
	}
	if mask&2 != 0 {
		h.WithdrawalsHash = hash()
	}
	if mask&4 != 0 {
		h.BlobGasUsed = u64()
	}
	if mask&8 != 0 {
		h.ExcessBlobGas = u64()
	}
	if mask&16 != 0 {
		h.ParentBeaconRoot = hash()
	}
	if mask&32 != 0 {
		h.RequestsHash = hash()
	}
	if mask&64 != 0 {
		h.BlockAccessListHash = hash()
	}
	if mask&128 != 0 {
		h.SlotNumber = u64()
	}
	return h
}

func randAccessList(r *rand.Rand) types.AccessList {
	n := [...]int{0, 0, 1, 2, 5}[r.IntN(5)]
	if n == 0 && r.IntN(2) == 0 {
		return nil
	}
	al := make(types.AccessList, n)
	for i := range al {
		al[i].Address = randAddress(r)
		keys := [...]int{0, 1, 2, 3, 40}[r.IntN(5)]
		for range keys {
			al[i].StorageKeys = append(al[i].StorageKeys, randHash(r))
		}
	}
	return al
}

func randTo(r *rand.Rand) *common.Address {
	if r.IntN(4) == 0 {
		return nil
	}
	a := randAddress(r)
	return &a
}

func randAuths(r *rand.Rand) []types.SetCodeAuthorization {
	n := [...]int{0, 1, 2, 4}[r.IntN(4)]
	auths := make([]types.SetCodeAuthorization, n)
	for i := range auths {
		auths[i] = types.SetCodeAuthorization{
			ChainID: *randU256(r),
			Address: randAddress(r),
			Nonce:   randUint64(r),
			V:       uint8(r.IntN(256)),
			R:       *randU256(r),
			S:       *randU256(r),
		}
	}
	return auths
}

// txTypes are the transaction types go-ethereum v1.17 knows.
var txTypes = []byte{
	types.LegacyTxType, types.AccessListTxType, types.DynamicFeeTxType,
	types.BlobTxType, types.SetCodeTxType,
}

// randTx returns a random transaction of the given type, with random
// signature values (it is not validly signed, which hashing does not need).
func randTx(r *rand.Rand, typ byte) *types.Transaction {
	switch typ {
	case types.LegacyTxType:
		return types.NewTx(&types.LegacyTx{
			Nonce: randUint64(r), GasPrice: randBig(r, 256), Gas: randUint64(r), To: randTo(r),
			Value: randBig(r, 256), Data: randBytes(r),
			V: randBig(r, 256), R: randBig(r, 256), S: randBig(r, 256),
		})
	case types.AccessListTxType:
		return types.NewTx(&types.AccessListTx{
			ChainID: randBig(r, 256), Nonce: randUint64(r), GasPrice: randBig(r, 256), Gas: randUint64(r),
			To: randTo(r), Value: randBig(r, 256), Data: randBytes(r), AccessList: randAccessList(r),
			V: randBig(r, 8), R: randBig(r, 256), S: randBig(r, 256),
		})
	case types.DynamicFeeTxType:
		return types.NewTx(&types.DynamicFeeTx{
			ChainID: randBig(r, 256), Nonce: randUint64(r), GasTipCap: randBig(r, 256), GasFeeCap: randBig(r, 256),
			Gas: randUint64(r), To: randTo(r), Value: randBig(r, 256), Data: randBytes(r),
			AccessList: randAccessList(r), V: randBig(r, 8), R: randBig(r, 256), S: randBig(r, 256),
		})
	case types.BlobTxType:
		hashes := make([]common.Hash, r.IntN(7))
		for i := range hashes {
			hashes[i] = randHash(r)
		}
		return types.NewTx(&types.BlobTx{
			ChainID: randU256(r), Nonce: randUint64(r), GasTipCap: randU256(r), GasFeeCap: randU256(r),
			Gas: randUint64(r), To: randAddress(r), Value: randU256(r), Data: randBytes(r),
			AccessList: randAccessList(r), BlobFeeCap: randU256(r), BlobHashes: hashes,
			V: randU256(r), R: randU256(r), S: randU256(r),
		})
	case types.SetCodeTxType:
		return types.NewTx(&types.SetCodeTx{
			ChainID: randU256(r), Nonce: randUint64(r), GasTipCap: randU256(r), GasFeeCap: randU256(r),
			Gas: randUint64(r), To: randAddress(r), Value: randU256(r), Data: randBytes(r),
			AccessList: randAccessList(r), AuthList: randAuths(r),
			V: randU256(r), R: randU256(r), S: randU256(r),
		})
	}
	panic("unknown transaction type")
}

// randTxs returns n random transactions of mixed types.
func randTxs(r *rand.Rand, n int) types.Transactions {
	txs := make(types.Transactions, n)
	for i := range txs {
		txs[i] = randTx(r, txTypes[r.IntN(len(txTypes))])
	}
	return txs
}

// blobTxWithSidecar returns a blob transaction carrying a sidecar of the
// given version with n (zero) blobs.
func blobTxWithSidecar(r *rand.Rand, version byte, n int) *types.Transaction {
	sc := &types.BlobTxSidecar{Version: version}
	for range n {
		sc.Blobs = append(sc.Blobs, kzg4844.Blob{})
		sc.Commitments = append(sc.Commitments, kzg4844.Commitment{1})
		sc.Proofs = append(sc.Proofs, kzg4844.Proof{2})
	}
	if version == types.BlobSidecarVersion1 {
		sc.Proofs = append(sc.Proofs, kzg4844.Proof{3}, kzg4844.Proof{4})
	}
	return randTx(r, types.BlobTxType).WithBlobTxSidecar(sc)
}

func randReceipt(r *rand.Rand) *types.Receipt {
	rc := &types.Receipt{
		Type:              txTypes[r.IntN(len(txTypes))],
		Status:            uint64(r.IntN(3)),
		CumulativeGasUsed: randUint64(r),
	}
	if r.IntN(5) == 0 {
		rc.PostState = randHash(r).Bytes()
	}
	for i := range rc.Bloom {
		if r.IntN(16) == 0 {
			rc.Bloom[i] = byte(r.Uint32())
		}
	}
	nlogs := [...]int{0, 1, 3}[r.IntN(3)]
	if nlogs > 0 || r.IntN(2) == 0 {
		rc.Logs = make([]*types.Log, nlogs)
	}
	for i := range rc.Logs {
		l := &types.Log{Address: randAddress(r), Data: randBytes(r)}
		for range r.IntN(5) {
			l.Topics = append(l.Topics, randHash(r))
		}
		rc.Logs[i] = l
	}
	return rc
}

func randReceipts(r *rand.Rand, n int) types.Receipts {
	rs := make(types.Receipts, n)
	for i := range rs {
		rs[i] = randReceipt(r)
	}
	return rs
}

func randWithdrawals(r *rand.Rand, n int) types.Withdrawals {
	ws := make(types.Withdrawals, n)
	for i := range ws {
		ws[i] = &types.Withdrawal{
			Index: randUint64(r), Validator: randUint64(r), Address: randAddress(r), Amount: randUint64(r),
		}
	}
	return ws
}

// listSizes are list lengths around the boundaries of DeriveSha's insertion
// order (index 0 goes in after 0x7f) and of the trie's branching.
var listSizes = []int{0, 1, 2, 3, 15, 16, 17, 127, 128, 129, 300}

// envInt returns the environment variable name as a number, zero if it is
// unset, not a number or negative: the benchmarks' sizes and switches.
func envInt(name string) int {
	n, err := strconv.Atoi(os.Getenv(name))
	if err != nil {
		return 0
	}
	return max(n, 0)
}

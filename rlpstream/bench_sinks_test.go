package rlpstream

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// sinkRecord is a value with every integer type the encoders take, at the
// sizes transactions have: a legacy transaction's fields (big.Int gas price,
// value and signature) and an account balance.
type sinkRecord struct {
	Nonce    uint64
	GasPrice *big.Int
	Gas      uint64
	To       [20]byte
	Value    *big.Int
	Data     []byte
	Balance  *uint256.Int
	Note     string
	Flag     bool
	V, R, S  *big.Int
}

func benchSinkRecord() *sinkRecord {
	r := new(big.Int).SetBytes(crypto.Keccak256([]byte("r")))
	s := new(big.Int).SetBytes(crypto.Keccak256([]byte("s")))
	return &sinkRecord{
		Nonce: 1234, GasPrice: big.NewInt(30_000_000_000), Gas: 21000, To: [20]byte{0xaa, 0xbb},
		Value:   new(big.Int).Mul(big.NewInt(12), big.NewInt(1e18)), // more than 64 bits
		Data:    bytes.Repeat([]byte{0x5a}, 100),
		Balance: new(uint256.Int).Mul(uint256.NewInt(123_456_789), uint256.NewInt(1e18)),
		Note:    "transfer", Flag: true,
		V: big.NewInt(37), R: r, S: s,
	}
}

func (x *sinkRecord) contentSize() int {
	return Uint64Size(x.Nonce) + BigIntSize(x.GasPrice) + Uint64Size(x.Gas) + BytesSize(x.To[:]) +
		BigIntSize(x.Value) + BytesSize(x.Data) + Uint256Size(x.Balance) + StringSize(x.Note) +
		BoolSize(x.Flag) + BigIntSize(x.V) + BigIntSize(x.R) + BigIntSize(x.S)
}

// BenchmarkSinks encodes the same record through each encoder: Writer into
// a hasher, StreamWriter into a buffer and the Append functions into a
// slice, each checked against go-ethereum's encoding.
func BenchmarkSinks(b *testing.B) {
	x := benchSinkRecord()
	want := mustEncode(b, x)
	wantHash := crypto.Keccak256Hash(want)
	b.Run("sink=hasher", func(b *testing.B) {
		b.ReportAllocs()
		var h fastkeccak.Hasher
		var sum [32]byte
		for b.Loop() {
			h.Reset()
			w := NewWriter(&h)
			w.WriteListHeader(x.contentSize())
			w.WriteUint64(x.Nonce)
			_ = w.WriteBigInt(x.GasPrice)
			w.WriteUint64(x.Gas)
			w.WriteBytes(x.To[:])
			_ = w.WriteBigInt(x.Value)
			w.WriteBytes(x.Data)
			w.WriteUint256(x.Balance)
			w.WriteString(x.Note)
			w.WriteBool(x.Flag)
			_ = w.WriteBigInt(x.V)
			_ = w.WriteBigInt(x.R)
			_ = w.WriteBigInt(x.S)
			sum = h.Sum256()
		}
		if sum != wantHash {
			b.Fatalf("hash %x, want %x", sum, wantHash)
		}
	})
	b.Run("sink=stream", func(b *testing.B) {
		b.ReportAllocs()
		var buf bytes.Buffer
		buf.Grow(len(want))
		for b.Loop() {
			buf.Reset()
			w := NewStreamWriter(&buf)
			w.WriteListHeader(x.contentSize())
			w.WriteUint64(x.Nonce)
			_ = w.WriteBigInt(x.GasPrice)
			w.WriteUint64(x.Gas)
			w.WriteBytes(x.To[:])
			_ = w.WriteBigInt(x.Value)
			w.WriteBytes(x.Data)
			w.WriteUint256(x.Balance)
			w.WriteString(x.Note)
			w.WriteBool(x.Flag)
			_ = w.WriteBigInt(x.V)
			_ = w.WriteBigInt(x.R)
			_ = w.WriteBigInt(x.S)
			if w.Err() != nil {
				b.Fatal(w.Err())
			}
		}
		if !bytes.Equal(buf.Bytes(), want) {
			b.Fatalf("%x, want %x", buf.Bytes(), want)
		}
	})
	b.Run("sink=append", func(b *testing.B) {
		b.ReportAllocs()
		dst := make([]byte, 0, len(want))
		for b.Loop() {
			dst = AppendListHeader(dst[:0], x.contentSize())
			dst = AppendUint64(dst, x.Nonce)
			dst, _ = AppendBigInt(dst, x.GasPrice)
			dst = AppendUint64(dst, x.Gas)
			dst = AppendBytes(dst, x.To[:])
			dst, _ = AppendBigInt(dst, x.Value)
			dst = AppendBytes(dst, x.Data)
			dst = AppendUint256(dst, x.Balance)
			dst = AppendString(dst, x.Note)
			dst = AppendBool(dst, x.Flag)
			dst, _ = AppendBigInt(dst, x.V)
			dst, _ = AppendBigInt(dst, x.R)
			dst, _ = AppendBigInt(dst, x.S)
		}
		if !bytes.Equal(dst, want) {
			b.Fatalf("%x, want %x", dst, want)
		}
	})
}

package rlpstream

import (
	"bytes"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// Each benchmark runs this package and go-ethereum side by side as
// sub-benchmarks impl=keccakroot and impl=go-ethereum, and checks its result
// against a reference computed inside the same benchmark, so that a -bench
// filter that selects one side still checks it.

func benchAccount() *types.StateAccount {
	return &types.StateAccount{
		Nonce:    123456,
		Balance:  new(uint256.Int).Mul(uint256.NewInt(123_456_789), uint256.NewInt(1e18)),
		Root:     common.HexToHash("0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"),
		CodeHash: crypto.Keccak256([]byte("contract code")),
	}
}

func BenchmarkHashAccount(b *testing.B) {
	acct := benchAccount()
	want := crypto.Keccak256Hash(mustEncode(b, acct))

	b.Run("impl=keccakroot", func(b *testing.B) {
		b.ReportAllocs()
		var h fastkeccak.Hasher
		var sum [32]byte
		for b.Loop() {
			sum = hashAccount(&h, acct)
		}
		if sum != want {
			b.Fatalf("hash %x, want %x", sum, want)
		}
	})
	b.Run("impl=go-ethereum", func(b *testing.B) {
		b.ReportAllocs()
		sha := crypto.NewKeccakState()
		var sum common.Hash
		for b.Loop() {
			sha.Reset()
			if err := rlp.Encode(sha, acct); err != nil {
				b.Fatal(err)
			}
			sha.Read(sum[:])
		}
		if sum != want {
			b.Fatalf("hash %x, want %x", sum, want)
		}
	})
	// go-ethereum's encoder into this project's hasher: the same hash
	// function as impl=keccakroot, so the difference is the encoder alone.
	b.Run("impl=go-ethereum-rlp-into-fastkeccak", func(b *testing.B) {
		b.ReportAllocs()
		var h fastkeccak.Hasher
		var sum [32]byte
		for b.Loop() {
			h.Reset()
			if err := rlp.Encode(&h, acct); err != nil {
				b.Fatal(err)
			}
			sum = h.Sum256()
		}
		if sum != want {
			b.Fatalf("hash %x, want %x", sum, want)
		}
	})
}

// BenchmarkEncodeAccount measures encoding alone, without hashing: the
// Append functions into a reused slice against rlp.Encode into a reused
// buffer.
func BenchmarkEncodeAccount(b *testing.B) {
	acct := benchAccount()
	want := mustEncode(b, acct)

	b.Run("impl=keccakroot", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 128)
		for b.Loop() {
			buf = AppendListHeader(buf[:0], Uint64Size(acct.Nonce)+Uint256Size(acct.Balance)+
				BytesSize(acct.Root[:])+BytesSize(acct.CodeHash))
			buf = AppendUint64(buf, acct.Nonce)
			buf = AppendUint256(buf, acct.Balance)
			buf = AppendBytes(buf, acct.Root[:])
			buf = AppendBytes(buf, acct.CodeHash)
		}
		if !bytes.Equal(buf, want) {
			b.Fatalf("%x, want %x", buf, want)
		}
	})
	b.Run("impl=go-ethereum", func(b *testing.B) {
		b.ReportAllocs()
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			if err := rlp.Encode(&buf, acct); err != nil {
				b.Fatal(err)
			}
		}
		if !bytes.Equal(buf.Bytes(), want) {
			b.Fatalf("%x, want %x", buf.Bytes(), want)
		}
	})
}

// benchBranch returns a branch-node-shaped list: 17 strings of 32 bytes.
func benchBranch() [][]byte {
	items := make([][]byte, 17)
	for i := range items {
		items[i] = crypto.Keccak256([]byte{byte(i)})
	}
	return items
}

func BenchmarkHashBranchNode(b *testing.B) {
	items := benchBranch()
	want := crypto.Keccak256Hash(mustEncode(b, items))

	b.Run("impl=keccakroot", func(b *testing.B) {
		b.ReportAllocs()
		var h fastkeccak.Hasher
		var sum [32]byte
		for b.Loop() {
			h.Reset()
			w := NewWriter(&h)
			size := 0
			for _, it := range items {
				size += BytesSize(it)
			}
			w.WriteListHeader(size)
			for _, it := range items {
				w.WriteBytes(it)
			}
			sum = h.Sum256()
		}
		if sum != want {
			b.Fatalf("hash %x, want %x", sum, want)
		}
	})
	b.Run("impl=go-ethereum", func(b *testing.B) {
		b.ReportAllocs()
		sha := crypto.NewKeccakState()
		var sum common.Hash
		for b.Loop() {
			sha.Reset()
			if err := rlp.Encode(sha, items); err != nil {
				b.Fatal(err)
			}
			sha.Read(sum[:])
		}
		if sum != want {
			b.Fatalf("hash %x, want %x", sum, want)
		}
	})
	b.Run("impl=go-ethereum-rlp-into-fastkeccak", func(b *testing.B) {
		b.ReportAllocs()
		var h fastkeccak.Hasher
		var sum [32]byte
		for b.Loop() {
			h.Reset()
			if err := rlp.Encode(&h, items); err != nil {
				b.Fatal(err)
			}
			sum = h.Sum256()
		}
		if sum != want {
			b.Fatalf("hash %x, want %x", sum, want)
		}
	})
}

// benchListOfLists returns about 100 KiB of RLP: one list of account-shaped
// lists (nonce, balance, root, code hash, a short string).
func benchListOfLists(tb testing.TB) []byte {
	g := newGen(7)
	var content []byte
	for len(content) < 100<<10 {
		a := randomAccount(g)
		inner := []any{a.Nonce, a.Balance, [32]byte(a.Root), a.CodeHash, []byte("note")}
		content = append(content, mustEncode(tb, inner)...)
	}
	return append(AppendListHeader(nil, len(content)), content...)
}

// walkSplit visits every item of every list with Split and counts them.
func walkSplit(b []byte) (int, error) {
	k, content, _, err := Split(b)
	if err != nil {
		return 0, err
	}
	n := 1
	if k == List {
		for len(content) > 0 {
			m, rest, err := walkSplitItem(content)
			if err != nil {
				return 0, err
			}
			n += m
			content = rest
		}
	}
	return n, nil
}

func walkSplitItem(b []byte) (int, []byte, error) {
	k, content, rest, err := Split(b)
	if err != nil {
		return 0, nil, err
	}
	n := 1
	if k == List {
		for len(content) > 0 {
			m, r, err := walkSplitItem(content)
			if err != nil {
				return 0, nil, err
			}
			n += m
			content = r
		}
	}
	return n, rest, nil
}

// walkGeth is walkSplit with go-ethereum's rlp.Split.
func walkGeth(b []byte) (int, []byte, error) {
	k, content, rest, err := rlp.Split(b)
	if err != nil {
		return 0, nil, err
	}
	n := 1
	if k == rlp.List {
		for len(content) > 0 {
			m, r, err := walkGeth(content)
			if err != nil {
				return 0, nil, err
			}
			n += m
			content = r
		}
	}
	return n, rest, nil
}

func BenchmarkValidate(b *testing.B) {
	data := benchListOfLists(b)
	if _, err := gethValidate(data); err != nil {
		b.Fatal(err)
	}
	b.Run("impl=keccakroot", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		var err error
		for b.Loop() {
			err = Validate(data)
		}
		if err != nil {
			b.Fatal(err)
		}
		if Validate(append(bytes.Clone(data), 0)) == nil {
			b.Fatal("trailing byte accepted")
		}
	})
	b.Run("impl=go-ethereum", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		var err error
		for b.Loop() {
			_, err = gethValidate(data)
		}
		if err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkSplit(b *testing.B) {
	data := benchListOfLists(b)
	want, _, err := walkGeth(data)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("impl=keccakroot", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		var n int
		for b.Loop() {
			n, err = walkSplit(data)
		}
		if err != nil || n != want {
			b.Fatalf("%d items, %v; want %d", n, err, want)
		}
	})
	b.Run("impl=go-ethereum", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		var n int
		for b.Loop() {
			n, _, err = walkGeth(data)
		}
		if err != nil || n != want {
			b.Fatalf("%d items, %v; want %d", n, err, want)
		}
	})
}

package rlpstream

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func bigHex(s string) *big.Int {
	x, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic(s)
	}
	return x
}

func TestEncodeTable(t *testing.T) {
	long56 := bytes.Repeat([]byte{0xaa}, 56)
	long256 := bytes.Repeat([]byte{0xbb}, 256)
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"empty bytes", []byte{}, "80"},
		{"nil bytes", []byte(nil), "80"},
		{"byte 00", []byte{0x00}, "00"},
		{"byte 7f", []byte{0x7f}, "7f"},
		{"byte 80", []byte{0x80}, "8180"},
		{"byte ff", []byte{0xff}, "81ff"},
		{"dog", "dog", "83646f67"},
		{"empty string", "", "80"},
		{"string 7f", "\x7f", "7f"},
		{"55 bytes", bytes.Repeat([]byte{1}, 55), "b7" + hex.EncodeToString(bytes.Repeat([]byte{1}, 55))},
		{"56 bytes", long56, "b838" + hex.EncodeToString(long56)},
		{"256 bytes", long256, "b90100" + hex.EncodeToString(long256)},
		{"uint 0", uint64(0), "80"},
		{"uint 1", uint64(1), "01"},
		{"uint 7f", uint64(0x7f), "7f"},
		{"uint 80", uint64(0x80), "8180"},
		{"uint 100", uint64(0x100), "820100"},
		{"uint max", ^uint64(0), "88ffffffffffffffff"},
		{"big nil", (*big.Int)(nil), "80"},
		{"big 0", big.NewInt(0), "80"},
		{"big 7f", big.NewInt(0x7f), "7f"},
		{"big 2^64", bigHex("10000000000000000"), "89010000000000000000"},
		{"big 2^256", bigHex("1" + string(bytes.Repeat([]byte{'0'}, 64))), "a1010000000000000000000000000000000000000000000000000000000000000000"},
		{"u256 nil", (*uint256.Int)(nil), "80"},
		{"u256 0", uint256.NewInt(0), "80"},
		{"u256 7f", uint256.NewInt(0x7f), "7f"},
		{"u256 80", uint256.NewInt(0x80), "8180"},
		{"u256 max", new(uint256.Int).SetAllOne(), "a0" + hex.EncodeToString(bytes.Repeat([]byte{0xff}, 32))},
		{"true", true, "01"},
		{"false", false, "80"},
		{"array1 low", [1]byte{0x05}, "05"},
		{"array1 high", [1]byte{0x85}, "8185"},
		{"zero hash", [32]byte{}, "a0" + hex.EncodeToString(make([]byte, 32))},
		{"zero address", [20]byte{}, "94" + hex.EncodeToString(make([]byte, 20))},
		{"empty list", []any{}, "c0"},
		{"nested empty", []any{[]any{}, []any{[]any{}}}, "c3c0c1c0"},
		{"raw", rlp.RawValue(mustHex("c3010203")), "c3010203"},
		{"list 55", []any{long56[:54]}, "f7b6" + hex.EncodeToString(long56[:54])},
		{"list 56", []any{long56[:55]}, "f838b7" + hex.EncodeToString(long56[:55])},
		{"list of 256", []any{long256}, "f90103b90100" + hex.EncodeToString(long256)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := mustHex(tt.want)
			ref, err := rlp.EncodeToBytes(tt.v)
			if err != nil || !bytes.Equal(ref, want) {
				t.Fatalf("go-ethereum encodes %x (%v), table says %x", ref, err, want)
			}
			enc, sum, err := encodeAll(t, tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(enc, want) {
				t.Fatalf("got %x, want %x", enc, want)
			}
			if sum != crypto.Keccak256Hash(want) {
				t.Fatalf("hash mismatch")
			}
		})
	}
}

// TestEncodeDifferential encodes random values of every kind and nesting with
// go-ethereum and with each sink of this package.
func TestEncodeDifferential(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	g := newGen(1)
	for i := range n {
		var v any = g.list(5)
		if i%2 == 0 {
			v = g.value(5)
		}
		want, gerr := rlp.EncodeToBytes(v)
		enc, sum, err := encodeAll(t, v)
		if gerr != nil || err != nil {
			t.Fatalf("case %d: unexpected errors: ours %v, go-ethereum %v", i, err, gerr)
		}
		if !bytes.Equal(enc, want) {
			t.Fatalf("case %d: %#v\ngot  %x\nwant %x", i, v, enc, want)
		}
		if sum != crypto.Keccak256Hash(want) {
			t.Fatalf("case %d: hash mismatch", i)
		}
		if err := Validate(enc); err != nil {
			t.Fatalf("case %d: Validate rejects our own output: %v", i, err)
		}
	}
}

func TestEncodeNegativeBig(t *testing.T) {
	for _, v := range []any{
		big.NewInt(-1),
		new(big.Int).Neg(bigHex("123456789abcdef0123456789abcdef")),
		[]any{uint64(1), []any{big.NewInt(-5)}},
	} {
		if _, gerr := rlp.EncodeToBytes(v); gerr == nil {
			t.Fatalf("go-ethereum encodes %v", v)
		}
		if !hasNegative(v) {
			t.Fatal("test value has no negative")
		}
		_, _, err := encodeAll(t, v)
		if !errors.Is(err, ErrNegativeBigInt) {
			t.Fatalf("%v: got %v, want ErrNegativeBigInt", v, err)
		}
	}
	// A StreamWriter keeps the error and skips later writes.
	var buf bytes.Buffer
	sw := NewStreamWriter(&buf)
	sw.WriteUint64(1)
	if err := sw.WriteBigInt(big.NewInt(-1)); !errors.Is(err, ErrNegativeBigInt) {
		t.Fatal(err)
	}
	sw.WriteUint64(2)
	if !errors.Is(sw.Err(), ErrNegativeBigInt) || buf.String() != "\x01" {
		t.Fatalf("Err %v, wrote %x", sw.Err(), buf.Bytes())
	}
}

// TestSizeFunctions compares the size functions with go-ethereum's and with
// the length of the encoding at the boundaries of every header form.
func TestSizeFunctions(t *testing.T) {
	for _, n := range []int{0, 1, 55, 56, 255, 256, 65535, 65536, 1 << 24} {
		if got, want := ListSize(n), int(rlp.ListSize(uint64(n))); got != want {
			t.Errorf("ListSize(%d) = %d, want %d", n, got, want)
		}
		if got, want := TypedTxSize(n), 1+int(rlp.ListSize(uint64(n))); got != want {
			t.Errorf("TypedTxSize(%d) = %d, want %d", n, got, want)
		}
		if got := len(AppendListHeader(nil, n)) + n; got != ListSize(n) {
			t.Errorf("AppendListHeader(%d) writes %d bytes with content, ListSize says %d", n, got, ListSize(n))
		}
		b := make([]byte, n)
		if got, want := BytesSize(b), int(rlp.BytesSize(b)); got != want {
			t.Errorf("BytesSize(len %d) = %d, want %d", n, got, want)
		}
		if got, want := StringSize(string(b)), int(rlp.StringSize(string(b))); got != want {
			t.Errorf("StringSize(len %d) = %d, want %d", n, got, want)
		}
	}
	g := newGen(2)
	for range 2000 {
		x := g.uint64()
		if got, want := Uint64Size(x), len(rlp.AppendUint64(nil, x)); got != want {
			t.Fatalf("Uint64Size(%d) = %d, want %d", x, got, want)
		}
		b := g.bytes()
		if got, want := BytesSize(b), int(rlp.BytesSize(b)); got != want {
			t.Fatalf("BytesSize(%x) = %d, want %d", b, got, want)
		}
	}
}

func TestNegativeListSizePanics(t *testing.T) {
	for name, f := range map[string]func(){
		"append": func() { AppendListHeader(nil, -1) },
		"stream": func() { NewStreamWriter(new(bytes.Buffer)).WriteListHeader(-1) },
		"hasher": func() { NewWriter(new(fastkeccak.Hasher)).WriteListHeader(-1) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}

// failWriter accepts limit bytes and then fails.
type failWriter struct {
	n, limit int
}

var errSink = errors.New("sink full")

func (w *failWriter) Write(p []byte) (int, error) {
	for i := range p {
		if err := w.WriteByte(p[i]); err != nil {
			return i, err
		}
	}
	return len(p), nil
}

func (w *failWriter) WriteByte(byte) error {
	if w.n >= w.limit {
		return errSink
	}
	w.n++
	return nil
}

func TestStreamWriterSinkError(t *testing.T) {
	v := []any{uint64(1000), []byte("hello, world"), "str", uint256.NewInt(300), big.NewInt(70000), true}
	full, _, _ := encodeAll(t, v)
	for limit := range len(full) {
		fw := &failWriter{limit: limit}
		sw := NewStreamWriter(fw)
		encodeValue(sw, v)
		if !errors.Is(sw.Err(), errSink) {
			t.Fatalf("limit %d: Err() = %v", limit, sw.Err())
		}
		if fw.n != limit {
			t.Fatalf("limit %d: wrote %d", limit, fw.n)
		}
	}
	// A sink that fails once and then takes bytes again must get none after
	// its failure: the rest of a value whose header it lost would be
	// corrupt RLP.
	for limit := range len(full) {
		fw := &failOnceWriter{at: limit}
		sw := NewStreamWriter(fw)
		encodeValue(sw, v)
		if !errors.Is(sw.Err(), errSink) || fw.after != 0 {
			t.Fatalf("a sink failing once at byte %d: Err() = %v, %d bytes written after the failure", limit, sw.Err(), fw.after)
		}
	}
	// bufio.Writer reports the error of its sink at Flush.
	bw := bufio.NewWriterSize(&failWriter{limit: 3}, 16)
	sw := NewStreamWriter(bw)
	encodeValue(sw, v)
	if err := bw.Flush(); !errors.Is(err, errSink) && !errors.Is(sw.Err(), errSink) {
		t.Fatalf("bufio: Flush %v, Err %v", err, sw.Err())
	}
	// A plain bufio.Writer that works produces the same bytes.
	var out bytes.Buffer
	bw = bufio.NewWriter(&out)
	sw = NewStreamWriter(bw)
	encodeValue(sw, v)
	if err := bw.Flush(); err != nil || sw.Err() != nil || !bytes.Equal(out.Bytes(), full) {
		t.Fatalf("bufio: %x, %v, %v", out.Bytes(), err, sw.Err())
	}
}

// failOnceWriter fails at byte at, once, and takes the bytes after it,
// counting them.
type failOnceWriter struct {
	n, at, after int
	failed       bool
}

func (w *failOnceWriter) Write(p []byte) (int, error) {
	for i := range p {
		if err := w.WriteByte(p[i]); err != nil {
			return i, err
		}
	}
	return len(p), nil
}

func (w *failOnceWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

func (w *failOnceWriter) WriteByte(byte) error {
	switch {
	case w.failed:
		w.after++
	case w.n == w.at:
		w.failed = true
		return errSink
	default:
		w.n++
	}
	return nil
}

// plainByteWriter has no WriteString, to cover StreamWriter's fallback.
type plainByteWriter struct{ b []byte }

func (w *plainByteWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
func (w *plainByteWriter) WriteByte(c byte) error      { w.b = append(w.b, c); return nil }

func TestStreamWriterWithoutWriteString(t *testing.T) {
	var w plainByteWriter
	sw := NewStreamWriter(&w)
	for _, s := range []string{"", "a", "\x80", "dog", string(make([]byte, 100))} {
		sw.WriteString(s)
	}
	want := AppendString(AppendString(AppendString(AppendString(AppendString(nil, ""), "a"), "\x80"), "dog"), string(make([]byte, 100)))
	if !bytes.Equal(w.b, want) {
		t.Fatalf("got %x, want %x", w.b, want)
	}
}

// TestTypedTxHeader checks the envelope on random lists against the way
// go-ethereum hashes typed transactions: the type byte, then rlp.Encode of
// the list into the same hasher.
func TestTypedTxHeader(t *testing.T) {
	g := newGen(3)
	for i := range 300 {
		txType := byte(g.r.IntN(0x80))
		list := []any{g.value(3), g.value(3), g.value(3)}
		if g.r.IntN(3) == 0 {
			list = append(list, g.bytes(), g.bytes())
		}
		if hasNegative(list) {
			continue
		}
		ref := crypto.NewKeccakState()
		ref.Write([]byte{txType})
		if err := rlp.Encode(ref, list); err != nil {
			t.Fatal(err)
		}
		var want common.Hash
		ref.Read(want[:])

		cs := contentSize(list)
		var h fastkeccak.Hasher
		w := NewWriter(&h)
		w.WriteTypedTxHeader(txType, cs)
		for _, e := range list {
			encodeValue(w, e)
		}
		if got := h.Sum256(); got != want {
			t.Fatalf("case %d: hash %x, want %x", i, got, want)
		}

		var buf bytes.Buffer
		sw := NewStreamWriter(&buf)
		sw.WriteTypedTxHeader(txType, cs)
		a := appender{b: AppendTypedTxHeader(nil, txType, cs)}
		for _, e := range list {
			encodeValue(sw, e)
			encodeValue(&a, e)
		}
		if !bytes.Equal(buf.Bytes(), a.b) || len(a.b) != TypedTxSize(cs) {
			t.Fatalf("case %d: sinks or size disagree", i)
		}
		if crypto.Keccak256Hash(a.b) != want {
			t.Fatalf("case %d: appended envelope hashes differently", i)
		}
	}
}

// TestDynamicFeeTxHash hashes a real EIP-1559 transaction through the
// envelope and compares with go-ethereum's transaction hash and binary form.
func TestDynamicFeeTxHash(t *testing.T) {
	to := common.HexToAddress("0x00000000000000000000000000000000deadbeef")
	inner := &types.DynamicFeeTx{
		ChainID:   big.NewInt(1),
		Nonce:     42,
		GasTipCap: big.NewInt(2_000_000_000),
		GasFeeCap: big.NewInt(150_000_000_000),
		Gas:       21000,
		To:        &to,
		Value:     new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil),
		Data:      []byte("calldata"),
		AccessList: types.AccessList{{
			Address:     common.HexToAddress("0x1234"),
			StorageKeys: []common.Hash{common.HexToHash("0x01"), common.HexToHash("0x02")},
		}},
		V: big.NewInt(1),
		R: bigHex("c0ffee0000000000000000000000000000000000000000000000000000000001"),
		S: bigHex("0badc0de000000000000000000000000000000000000000000000000000000ff"),
	}
	tx := types.NewTx(inner)
	want := tx.Hash()
	bin, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}

	// The access list as test values: a list of [address, [keys...]].
	var al []any
	for _, tuple := range inner.AccessList {
		keys := make([]any, len(tuple.StorageKeys))
		for i, k := range tuple.StorageKeys {
			keys[i] = [32]byte(k)
		}
		al = append(al, []any{[20]byte(tuple.Address), keys})
	}
	fields := []any{inner.ChainID, inner.Nonce, inner.GasTipCap, inner.GasFeeCap, inner.Gas,
		[20]byte(*inner.To), inner.Value, inner.Data, al, inner.V, inner.R, inner.S}

	var h fastkeccak.Hasher
	w := NewWriter(&h)
	w.WriteTypedTxHeader(types.DynamicFeeTxType, contentSize(fields))
	for _, f := range fields {
		if err := encodeValue(w, f); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.Sum256(); got != want {
		t.Fatalf("hash %x, want %x", got, want)
	}
	a := appender{b: AppendTypedTxHeader(nil, types.DynamicFeeTxType, contentSize(fields))}
	for _, f := range fields {
		encodeValue(&a, f)
	}
	if !bytes.Equal(a.b, bin) {
		t.Fatalf("envelope %x, MarshalBinary %x", a.b, bin)
	}
}

// TestAccountHash hashes random accounts field by field into a Hasher and
// compares with go-ethereum's encoding of types.StateAccount.
func TestAccountHash(t *testing.T) {
	g := newGen(4)
	for i := range 500 {
		acct := randomAccount(g)
		want := crypto.Keccak256Hash(mustEncode(t, acct))
		var h fastkeccak.Hasher
		if got := hashAccount(&h, acct); got != want {
			t.Fatalf("case %d: %x, want %x", i, got, want)
		}
	}
}

func mustEncode(t testing.TB, v any) []byte {
	t.Helper()
	b, err := rlp.EncodeToBytes(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func randomAccount(g *gen) *types.StateAccount {
	var root common.Hash
	for i := range root {
		root[i] = byte(g.r.Uint32())
	}
	code := crypto.Keccak256(g.bytes())
	if g.r.IntN(4) == 0 {
		code = types.EmptyCodeHash.Bytes()
	}
	bal := g.u256()
	if bal == nil {
		bal = new(uint256.Int)
	}
	return &types.StateAccount{Nonce: g.uint64(), Balance: bal, Root: root, CodeHash: code}
}

// hashAccount is how a caller hashes an account with this package: sizes
// first, then the list front to back, straight into the hasher.
func hashAccount(h *fastkeccak.Hasher, a *types.StateAccount) [32]byte {
	h.Reset()
	w := NewWriter(h)
	w.WriteListHeader(Uint64Size(a.Nonce) + Uint256Size(a.Balance) +
		BytesSize(a.Root[:]) + BytesSize(a.CodeHash))
	w.WriteUint64(a.Nonce)
	w.WriteUint256(a.Balance)
	w.WriteBytes(a.Root[:])
	w.WriteBytes(a.CodeHash)
	// Read, not Sum256: it pads the block in place instead of copying the
	// state, which is what a one-shot hash wants (and what go-ethereum's
	// KeccakState users do).
	var sum [32]byte
	h.Read(sum[:])
	return sum
}

var _ io.ByteWriter = (*fastkeccak.Hasher)(nil)

// TestStringHeader checks the header-only string functions against the
// whole-string encoder.
func TestStringHeader(t *testing.T) {
	for _, n := range []int{2, 55, 56, 255, 256, 70000} {
		b := bytes.Repeat([]byte{0xaa}, n)
		got := append(AppendStringHeader(nil, n), b...)
		if want := AppendBytes(nil, b); !bytes.Equal(got, want) {
			t.Errorf("size %d: header+content %x..., AppendBytes %x...", n, got[:4], want[:4])
		}
		if h := len(AppendStringHeader(nil, n)); HeaderSize(n) != h {
			t.Errorf("size %d: HeaderSize %d, header is %d bytes", n, HeaderSize(n), h)
		}
	}
}

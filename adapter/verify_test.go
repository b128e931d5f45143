package adapter

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/keccakroot/keccakroot/rlpstream"
)

// blockParts is a raw block taken apart into the raw items of its header,
// transactions, uncles and withdrawals, so that tests can break one part and
// put the block back together.
type blockParts struct {
	header      [][]byte
	txs         [][]byte
	uncles      [][]byte
	withdrawals [][]byte // nil: no withdrawal list
	accessList  [][]byte // the block access list's accounts; nil: no access list
	extra       [][]byte // items after the access list
}

// rawItems returns the raw encodings of the elements of the list raw.
func rawItems(t testing.TB, raw []byte) [][]byte {
	t.Helper()
	it, err := rlpstream.NewListIterator(raw)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for it.Next() {
		out = append(out, slices.Clone(it.Raw()))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func splitBlock(t testing.TB, raw []byte) *blockParts {
	t.Helper()
	parts := rawItems(t, raw)
	p := &blockParts{
		header: rawItems(t, parts[0]),
		txs:    rawItems(t, parts[1]),
		uncles: rawItems(t, parts[2]),
	}
	if len(parts) > 3 {
		p.withdrawals = rawItems(t, parts[3])
		if p.withdrawals == nil {
			p.withdrawals = [][]byte{}
		}
	}
	if len(parts) > 4 {
		p.accessList = rawItems(t, parts[4])
		if p.accessList == nil {
			p.accessList = [][]byte{}
		}
	}
	return p
}

// accessListRLP returns the raw block access list of a block's export form.
func accessListRLP(t testing.TB, cb chainBlock) []byte {
	t.Helper()
	parts := rawItems(t, cb.export)
	if len(parts) != 5 {
		t.Fatalf("block %d: the export has %d items, want 5", cb.block.NumberU64(), len(parts))
	}
	return parts[4]
}

// rawList encodes the list of the given raw items.
func rawListOf(items [][]byte) []byte {
	n := 0
	for _, it := range items {
		n += len(it)
	}
	out := rlpstream.AppendListHeader(nil, n)
	for _, it := range items {
		out = append(out, it...)
	}
	return out
}

func (p *blockParts) encode() []byte {
	items := [][]byte{rawListOf(p.header), rawListOf(p.txs), rawListOf(p.uncles)}
	if p.withdrawals != nil {
		items = append(items, rawListOf(p.withdrawals))
	}
	if p.accessList != nil {
		items = append(items, rawListOf(p.accessList))
	}
	return rawListOf(append(items, p.extra...))
}

// typedTx wraps a typed transaction's bytes in the string a block holds.
func typedTx(b []byte) []byte { return rlpstream.AppendBytes(nil, b) }

// chainBlockWith returns a generated block that has transactions of the
// given type and, if wanted, uncles or withdrawals.
func chainBlockWith(t testing.TB, txType byte, uncles, withdrawals bool) chainBlock {
	t.Helper()
	for _, cb := range mustTestChain(t) {
		b := cb.block
		if uncles && len(b.Uncles()) == 0 || withdrawals && len(b.Withdrawals()) == 0 {
			continue
		}
		for _, tx := range b.Transactions() {
			if tx.Type() == txType {
				return cb
			}
		}
	}
	t.Fatal("no such block in the test chain")
	return chainBlock{}
}

// TestVerifyBlockRLPMalformed breaks one part of a real block at a time and
// checks the error: its kind, where it points and what it names.
func TestVerifyBlockRLPMalformed(t *testing.T) {
	pow := chainBlockWith(t, types.DynamicFeeTxType, true, false)
	pos := chainBlockWith(t, types.BlobTxType, false, true)
	long := bytes.Repeat([]byte{1}, 60)
	tests := []struct {
		name  string
		base  chainBlock
		edit  func(p *blockParts)
		raw   []byte // instead of base and edit
		want  error  // the sentinel
		path  string // for a *ShapeError: the start of its path
		fault []byte // the item the error's offset must point at
	}{
		{name: "empty input", raw: []byte{}, want: rlpstream.ErrUnexpectedEnd},
		{name: "a string", raw: []byte{0x83, 1, 2, 3}, want: ErrMalformedBlock, path: "block"},
		{name: "non-canonical size", raw: []byte{0xb8, 0x02, 1, 2}, want: rlpstream.ErrNonCanonicalSize},
		{name: "trailing data", base: pos, want: rlpstream.ErrTrailingData},
		{name: "two items", raw: rawListOf([][]byte{{0xc0}, {0xc0}}), want: ErrMalformedBlock, path: "block"},
		{name: "six items", base: pos, edit: func(p *blockParts) { p.extra = [][]byte{{0xc0}, {0xc0}} },
			want: ErrMalformedBlock, path: "block", fault: []byte{0xc0}},
		{name: "header is a string", raw: rawListOf([][]byte{{0x80}, {0xc0}, {0xc0}}), want: ErrMalformedBlock, path: "header"},
		{name: "taken apart and put back", base: pow, edit: func(p *blockParts) {}, want: nil},
		{name: "header with 14 fields", base: pow, edit: func(p *blockParts) { p.header = p.header[:14] },
			want: ErrMalformedBlock, path: "header"},
		{name: "header with 24 fields", base: pos, edit: func(p *blockParts) {
			for len(p.header) < 24 {
				p.header = append(p.header, []byte{0x80})
			}
		}, want: ErrMalformedBlock, path: "header"},
		{name: "short parent hash", base: pow, edit: func(p *blockParts) { p.header[0] = rlpstream.AppendBytes(nil, long[:31]) },
			want: ErrMalformedBlock, path: "header.parentHash", fault: rlpstream.AppendBytes(nil, long[:31])},
		{name: "bloom as a list", base: pow, edit: func(p *blockParts) { p.header[6] = []byte{0xc1, 0x80} },
			want: ErrMalformedBlock, path: "header.logsBloom", fault: []byte{0xc1, 0x80}},
		{name: "gas limit with a leading zero", base: pow, edit: func(p *blockParts) { p.header[9] = []byte{0x82, 0, 1} },
			want: ErrMalformedBlock, path: "header.gasLimit", fault: []byte{0x82, 0, 1}},
		{name: "zero byte as timestamp", base: pow, edit: func(p *blockParts) { p.header[11] = []byte{0x00} },
			want: ErrMalformedBlock, path: "header.timestamp"},
		{name: "nine-byte gas used", base: pow, edit: func(p *blockParts) { p.header[10] = append([]byte{0x89}, long[:9]...) },
			want: ErrMalformedBlock, path: "header.gasUsed"},
		{name: "withdrawals root placeholder", base: pos, edit: func(p *blockParts) { p.header[16] = []byte{0x80} },
			want: ErrMalformedBlock, path: "header.withdrawalsRoot"},
		{name: "transaction is a byte", base: pow, edit: func(p *blockParts) { p.txs[1] = []byte{0x05} },
			want: ErrMalformedBlock, path: "transactions[1]", fault: []byte{0x05}},
		{name: "empty typed transaction", base: pow, edit: func(p *blockParts) { p.txs[0] = []byte{0x80} },
			want: ErrMalformedBlock, path: "transactions[0]"},
		{name: "unknown transaction type", base: pos, edit: func(p *blockParts) { p.txs[0] = typedTx([]byte{0x05, 0xc0}) },
			want: ErrMalformedBlock, path: "transactions[0]", fault: typedTx([]byte{0x05, 0xc0})},
		{name: "typed transaction of type zero", base: pos, edit: func(p *blockParts) { p.txs[0] = typedTx([]byte{0x00, 0xc0}) },
			want: ErrMalformedBlock, path: "transactions[0]"},
		{name: "typed payload not a list", base: pos, edit: func(p *blockParts) { p.txs[0] = typedTx([]byte{0x02, 0x83, 1, 2, 3}) },
			want: ErrMalformedBlock, path: "transactions[0]"},
		{name: "typed payload non-canonical", base: pos, edit: func(p *blockParts) { p.txs[1] = typedTx([]byte{0x02, 0xc2, 0x81, 0x05}) },
			want: rlpstream.ErrNonCanonicalSize, fault: []byte{0x81, 0x05}},
		{name: "typed payload trailing data", base: pos, edit: func(p *blockParts) { p.txs[0] = typedTx([]byte{0x02, 0xc0, 0x01}) },
			want: rlpstream.ErrTrailingData, fault: []byte{0x01}},
		{name: "typed payload truncated", base: pos, edit: func(p *blockParts) { p.txs[0] = typedTx([]byte{0x01, 0xc3, 0x01}) },
			want: rlpstream.ErrValueTooLarge, fault: []byte{0xc3, 0x01}},
		{name: "legacy transaction with 8 fields", base: pow, edit: func(p *blockParts) {
			p.txs[0] = rawListOf(rawItems(t, p.txs[0])[:8])
		}, want: ErrMalformedBlock, path: "transactions[0]"},
		{name: "dynamic fee transaction with 13 fields", base: pow, edit: func(p *blockParts) {
			c := rlpstream.AppendListHeader([]byte{0x02}, 13)
			p.txs[2] = typedTx(append(c, bytes.Repeat([]byte{0x80}, 13)...))
		}, want: ErrMalformedBlock, path: "transactions[2]"},
		{name: "uncle is a string", base: pow, edit: func(p *blockParts) { p.uncles[0] = []byte{0x80} },
			want: ErrMalformedBlock, path: "uncles[0]", fault: []byte{0x80}},
		{name: "uncle with a short miner", base: pow, edit: func(p *blockParts) {
			u := rawItems(t, p.uncles[0])
			u[2] = rlpstream.AppendBytes(nil, long[:19])
			p.uncles[0] = rawListOf(u)
		}, want: ErrMalformedBlock, path: "uncles[0].miner", fault: rlpstream.AppendBytes(nil, long[:19])},
		{name: "withdrawal is a string", base: pos, edit: func(p *blockParts) { p.withdrawals[0] = []byte{0x80} },
			want: ErrMalformedBlock, path: "withdrawals[0]"},
		{name: "withdrawal with 3 fields", base: pos, edit: func(p *blockParts) {
			p.withdrawals[0] = rawListOf(rawItems(t, p.withdrawals[0])[:3])
		}, want: ErrMalformedBlock, path: "withdrawals[0]"},
		{name: "withdrawal with 5 fields", base: pos, edit: func(p *blockParts) {
			p.withdrawals[0] = rawListOf(append(rawItems(t, p.withdrawals[0]), []byte{0x80}))
		}, want: ErrMalformedBlock, path: "withdrawals[0]"},
		{name: "withdrawal with a long address", base: pos, edit: func(p *blockParts) {
			w := rawItems(t, p.withdrawals[0])
			w[2] = rlpstream.AppendBytes(nil, long[:21])
			p.withdrawals[0] = rawListOf(w)
		}, want: ErrMalformedBlock, path: "withdrawals[0].address"},
		{name: "missing withdrawals", base: pos, edit: func(p *blockParts) { p.withdrawals = nil }, want: ErrMissingWithdrawals},
		{name: "unexpected withdrawals", base: pow, edit: func(p *blockParts) { p.withdrawals = [][]byte{} }, want: ErrUnexpectedWithdrawals},
		{name: "withdrawal changed", base: pos, edit: func(p *blockParts) {
			w := rawItems(t, p.withdrawals[0])
			w[3] = rlpstream.AppendUint64(nil, 12345678)
			p.withdrawals[0] = rawListOf(w)
		}, want: ErrWithdrawalsRootMismatch},
		{name: "uncle dropped", base: pow, edit: func(p *blockParts) { p.uncles = p.uncles[1:] }, want: ErrUncleHashMismatch},
		{name: "transaction dropped", base: pos, edit: func(p *blockParts) { p.txs = p.txs[1:] }, want: ErrTxRootMismatch},
		{name: "transactions swapped", base: pos, edit: func(p *blockParts) { p.txs[0], p.txs[1] = p.txs[1], p.txs[0] }, want: ErrTxRootMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.raw
			if raw == nil {
				raw = tt.base.raw
				if tt.edit != nil {
					p := splitBlock(t, raw)
					tt.edit(p)
					raw = p.encode()
				}
				if tt.name == "trailing data" {
					raw = append(slices.Clone(raw), 0x01)
				}
			}
			hash, err := VerifyBlockRLP(raw)
			if tt.want == nil {
				if err != nil || hash != tt.base.block.Hash() {
					t.Fatalf("VerifyBlockRLP = %x, %v; want %x", hash, err, tt.base.block.Hash())
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if hash != ([32]byte{}) {
				t.Errorf("hash %x returned with the error", hash)
			}
			off := -1
			var se *ShapeError
			var oe *rlpstream.OffsetError
			var me *MismatchError
			switch {
			case errors.As(err, &se):
				off = se.Offset
				if !strings.HasPrefix(se.Path, tt.path) {
					t.Errorf("error path %q, want %q", se.Path, tt.path)
				}
			case errors.As(err, &oe):
				off = oe.Offset
			case errors.As(err, &me):
				if me.Number != tt.base.block.NumberU64() {
					t.Errorf("mismatch in block %d, want %d", me.Number, tt.base.block.NumberU64())
				}
				if me.Header == me.Computed {
					t.Errorf("mismatch with equal hashes %x", me.Header)
				}
			}
			if tt.fault != nil && (off < 0 || !bytes.HasPrefix(raw[off:], tt.fault)) {
				t.Errorf("error offset %d does not point at %x: %v", off, tt.fault, err)
			}
			t.Log(err)
		})
	}
}

// txSpans returns where each transaction of a raw block lies in it.
func txSpans(t testing.TB, raw []byte) [][2]int {
	t.Helper()
	var b rawBlock
	if err := b.parse(raw); err != nil {
		t.Fatal(err)
	}
	var spans [][2]int
	r := b.txs.elements()
	for r.Next() {
		spans = append(spans, [2]int{r.Offset(), r.Offset() + len(r.Raw())})
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return spans
}

// TestVerifyBlockRLPFlippedTransaction flips the last byte of every
// transaction of every generated block (a byte inside a signature value, so
// the RLP stays well-formed) and checks that the transactions root mismatch
// is reported with the right block and field.
func TestVerifyBlockRLPFlippedTransaction(t *testing.T) {
	checked := 0
	for _, cb := range mustTestChain(t) {
		for i, span := range txSpans(t, cb.raw) {
			raw := slices.Clone(cb.raw)
			raw[span[1]-1] ^= 0x55
			_, err := VerifyBlockRLP(raw)
			var me *MismatchError
			if !errors.As(err, &me) || !errors.Is(err, ErrTxRootMismatch) {
				t.Fatalf("block %d tx %d: error %v, want a transactions root mismatch", cb.block.NumberU64(), i, err)
			}
			if me.Number != cb.block.NumberU64() || me.Field != "transactionsRoot" || me.Header != cb.block.TxHash() {
				t.Fatalf("block %d tx %d: mismatch %+v", cb.block.NumberU64(), i, me)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no transactions checked")
	}
}

// TestVerifyBlockRLPEveryTransactionByte flips, one at a time, every bit of
// every byte of every transaction in a few blocks and checks that each is
// caught: as a transactions root mismatch, or as malformed RLP or a
// malformed block where the flip breaks the encoding.
func TestVerifyBlockRLPEveryTransactionByte(t *testing.T) {
	blocks := []chainBlock{
		chainBlockWith(t, types.DynamicFeeTxType, true, false),
		chainBlockWith(t, types.BlobTxType, false, true),
		chainBlockWith(t, types.SetCodeTxType, false, true),
	}
	masks := []byte{0x01, 0x80, 0xff}
	if testing.Short() || raceEnabled {
		masks = masks[:1]
	}
	kinds := map[string]int{}
	for _, cb := range blocks {
		for _, span := range txSpans(t, cb.raw) {
			for pos := span[0]; pos < span[1]; pos++ {
				for _, m := range masks {
					raw := slices.Clone(cb.raw)
					raw[pos] ^= m
					_, err := VerifyBlockRLP(raw)
					var me *MismatchError
					var oe *rlpstream.OffsetError
					var se *ShapeError
					switch {
					case errors.As(err, &me):
						if me.Field != "transactionsRoot" || me.Number != cb.block.NumberU64() {
							t.Fatalf("block %d byte %d ^ %#x: %v", cb.block.NumberU64(), pos, m, err)
						}
						kinds["mismatch"]++
					case errors.As(err, &oe):
						kinds["rlp"]++
					case errors.As(err, &se):
						kinds["shape"]++
					default:
						t.Fatalf("block %d byte %d ^ %#x: error %v", cb.block.NumberU64(), pos, m, err)
					}
				}
			}
		}
	}
	t.Logf("caught: %v", kinds)
}

// TestVerifyBlockRLPBlobSidecar checks a block holding a blob transaction
// with its sidecar, which go-ethereum encodes in the network form inside the
// block and includes, blobs and all, in the transactions root: VerifyBlockRLP
// accepts it, in both sidecar versions, as go-ethereum does.
func TestVerifyBlockRLPBlobSidecar(t *testing.T) {
	r := newRand(t)
	for _, version := range []byte{types.BlobSidecarVersion0, types.BlobSidecarVersion1} {
		txs := types.Transactions{randTx(r, types.LegacyTxType), blobTxWithSidecar(r, version, 1)}
		block := types.NewBlock(randHeader(r, 0x1f), &types.Body{Transactions: txs, Withdrawals: types.Withdrawals{}}, nil, NewStackTrie(nil))
		raw, err := rlp.EncodeToBytes(block)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := VerifyBlockRLP(raw); err != nil || got != block.Hash() {
			t.Fatalf("sidecar version %d: VerifyBlockRLP = %x, %v; want %x", version, got, err, block.Hash())
		}
	}
}

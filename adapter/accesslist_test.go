package adapter

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/keccakroot/keccakroot/rlpstream"
)

// Fields of an account access in a block access list, by position.
const (
	accAddress = iota
	accStorageChanges
	accStorageReads
	accBalanceChanges
	accNonceChanges
	accCodeChanges
)

// accessListBlock returns a generated block whose access list has an account
// with a code change, so that every part of the encoding is present, and the
// index of that account.
func accessListBlock(t testing.TB) chainBlock {
	t.Helper()
	need := map[int]bool{accStorageChanges: true, accStorageReads: true, accBalanceChanges: true, accNonceChanges: true, accCodeChanges: true}
	for _, cb := range mustTestChain(t) {
		if cb.block.AccessList() == nil {
			continue
		}
		have := map[int]bool{}
		for _, acc := range rawItems(t, accessListRLP(t, cb)) {
			for f, raw := range rawItems(t, acc) {
				if f != accAddress && len(raw) > 1 {
					have[f] = true
				}
			}
		}
		if len(have) == len(need) {
			return cb
		}
	}
	t.Fatal("no block in the test chain has every part of a block access list")
	return chainBlock{}
}

// accountWith returns the index of the first account of the access list whose
// field f is a non-empty list.
func accountWith(t testing.TB, accounts [][]byte, f int) int {
	t.Helper()
	for i, acc := range accounts {
		if len(rawItems(t, acc)[f]) > 1 {
			return i
		}
	}
	t.Fatalf("no account with field %d", f)
	return -1
}

// editAccount replaces the fields of the first account with a non-empty
// field f by what edit returns.
func editAccount(t testing.TB, p *blockParts, f int, edit func(fields [][]byte) [][]byte) {
	t.Helper()
	i := accountWith(t, p.accessList, f)
	p.accessList[i] = rawListOf(edit(rawItems(t, p.accessList[i])))
}

// editFirst replaces the first element of the list field f of the first
// account that has one by what edit returns.
func editFirst(t testing.TB, p *blockParts, f int, edit func(elem []byte) []byte) {
	t.Helper()
	editAccount(t, p, f, func(fields [][]byte) [][]byte {
		elems := rawItems(t, fields[f])
		elems[0] = edit(elems[0])
		fields[f] = rawListOf(elems)
		return fields
	})
}

// editPair replaces item j of the first element of field f (a list of
// pairs such as [blockAccessIndex, postBalance]).
func editPair(t testing.TB, p *blockParts, f, j int, v []byte) {
	t.Helper()
	editFirst(t, p, f, func(elem []byte) []byte {
		pair := rawItems(t, elem)
		pair[j] = v
		return rawListOf(pair)
	})
}

// TestVerifyBlockRLPAccessList checks blocks in the export form with a
// block access list broken one way at a time: each error's kind, path and
// offset, and that go-ethereum's decoder rejects every list VerifyBlockRLP
// calls malformed.
func TestVerifyBlockRLPAccessList(t *testing.T) {
	base := accessListBlock(t)
	long := bytes.Repeat([]byte{1}, 40)
	tests := []struct {
		name  string
		edit  func(p *blockParts)
		want  error  // the sentinel; nil: valid
		path  string // for a *ShapeError: the start of its path
		fault []byte // the item the error's offset must point at
	}{
		{name: "taken apart and put back", edit: func(p *blockParts) {}},
		{name: "access list dropped", edit: func(p *blockParts) { p.accessList = nil }},
		{name: "access list is a string", edit: func(p *blockParts) { p.accessList, p.extra = nil, [][]byte{{0x80}} },
			want: ErrMalformedBlock, path: "blockAccessList", fault: []byte{0x80}},
		{name: "six items", edit: func(p *blockParts) { p.extra = [][]byte{{0xc0}} },
			want: ErrMalformedBlock, path: "block", fault: []byte{0xc0}},
		{name: "account is a string", edit: func(p *blockParts) { p.accessList[1] = []byte{0x80} },
			want: ErrMalformedBlock, path: "blockAccessList[1]", fault: []byte{0x80}},
		{name: "account with 5 fields", edit: func(p *blockParts) { p.accessList[0] = rawListOf(rawItems(t, p.accessList[0])[:5]) },
			want: ErrMalformedBlock, path: "blockAccessList[0]"},
		{name: "account with 7 fields", edit: func(p *blockParts) {
			p.accessList[0] = rawListOf(append(rawItems(t, p.accessList[0]), []byte{0xc0}))
		}, want: ErrMalformedBlock, path: "blockAccessList[0]", fault: []byte{0xc0}},
		{name: "19-byte address", edit: func(p *blockParts) {
			editAccount(t, p, accAddress, func(f [][]byte) [][]byte { f[0] = rlpstream.AppendBytes(nil, long[:19]); return f })
		}, want: ErrMalformedBlock, path: "blockAccessList[0].address", fault: rlpstream.AppendBytes(nil, long[:19])},
		{name: "storage changes as a string", edit: func(p *blockParts) {
			editAccount(t, p, accStorageChanges, func(f [][]byte) [][]byte { f[accStorageChanges] = []byte{0x80}; return f })
		}, want: ErrMalformedBlock, path: "blockAccessList[", fault: []byte{0x80}},
		{name: "33-byte slot", edit: func(p *blockParts) {
			editFirst(t, p, accStorageChanges, func(elem []byte) []byte {
				sc := rawItems(t, elem)
				sc[0] = rlpstream.AppendBytes(nil, long[:33])
				return rawListOf(sc)
			})
		}, want: ErrMalformedBlock, path: "blockAccessList[", fault: rlpstream.AppendBytes(nil, long[:33])},
		{name: "slot change with 3 fields", edit: func(p *blockParts) {
			editFirst(t, p, accStorageChanges, func(elem []byte) []byte {
				sc := rawItems(t, elem)
				w := rawItems(t, sc[1])
				w[0] = rawListOf(append(rawItems(t, w[0]), []byte{0x01}))
				sc[1] = rawListOf(w)
				return rawListOf(sc)
			})
		}, want: ErrMalformedBlock, path: "blockAccessList[", fault: []byte{0x01}},
		{name: "storage read as a list", edit: func(p *blockParts) {
			editFirst(t, p, accStorageReads, func([]byte) []byte { return []byte{0xc0} })
		}, want: ErrMalformedBlock, path: "blockAccessList[", fault: []byte{0xc0}},
		{name: "storage read with a leading zero", edit: func(p *blockParts) {
			editFirst(t, p, accStorageReads, func([]byte) []byte { return []byte{0x82, 0x00, 0x01} })
		}, want: ErrMalformedBlock, path: "blockAccessList[", fault: []byte{0x82, 0x00, 0x01}},
		{name: "5-byte access index", edit: func(p *blockParts) {
			editPair(t, p, accBalanceChanges, 0, rlpstream.AppendBytes(nil, long[:5]))
		}, want: ErrMalformedBlock, path: "blockAccessList[", fault: rlpstream.AppendBytes(nil, long[:5])},
		{name: "zero byte as access index", edit: func(p *blockParts) { editPair(t, p, accBalanceChanges, 0, []byte{0x00}) },
			want: ErrMalformedBlock, path: "blockAccessList[", fault: []byte{0x00}},
		{name: "33-byte balance", edit: func(p *blockParts) {
			editPair(t, p, accBalanceChanges, 1, rlpstream.AppendBytes(nil, long[:33]))
		}, want: ErrMalformedBlock, path: "blockAccessList[", fault: rlpstream.AppendBytes(nil, long[:33])},
		{name: "9-byte nonce", edit: func(p *blockParts) { editPair(t, p, accNonceChanges, 1, rlpstream.AppendBytes(nil, long[:9])) },
			want: ErrMalformedBlock, path: "blockAccessList[", fault: rlpstream.AppendBytes(nil, long[:9])},
		{name: "code as a list", edit: func(p *blockParts) { editPair(t, p, accCodeChanges, 1, []byte{0xc1, 0x01}) },
			want: ErrMalformedBlock, path: "blockAccessList[", fault: []byte{0xc1, 0x01}},
		{name: "nonce change with 1 field", edit: func(p *blockParts) {
			editFirst(t, p, accNonceChanges, func(elem []byte) []byte { return rawListOf(rawItems(t, elem)[:1]) })
		}, want: ErrMalformedBlock, path: "blockAccessList["},
		{name: "accounts swapped", edit: func(p *blockParts) { p.accessList[0], p.accessList[1] = p.accessList[1], p.accessList[0] },
			want: ErrAccessListHashMismatch},
		{name: "account dropped", edit: func(p *blockParts) { p.accessList = p.accessList[1:] }, want: ErrAccessListHashMismatch},
		{name: "empty access list", edit: func(p *blockParts) { p.accessList = [][]byte{} }, want: ErrAccessListHashMismatch},
		{name: "header without blockAccessListHash", edit: func(p *blockParts) { p.header = p.header[:headerBlockAccessListHash] },
			want: ErrUnexpectedAccessList},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := splitBlock(t, base.export)
			tt.edit(p)
			raw := p.encode()
			info, err := VerifyBlockRLPInfo(raw)
			hash, err2 := VerifyBlockRLP(raw)
			if (err == nil) != (err2 == nil) || err == nil && hash != info.Hash {
				t.Fatalf("VerifyBlockRLP = %x, %v; VerifyBlockRLPInfo = %+v, %v", hash, err2, info, err)
			}
			if tt.want == nil {
				if err != nil || info.Hash != base.block.Hash() || info.AccessListChecked != (p.accessList != nil) || !info.HasAccessListHash {
					t.Fatalf("VerifyBlockRLPInfo = %+v, %v; want hash %x", info, err, base.block.Hash())
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if !info.HeaderRead || info.Number != base.block.NumberU64() || info.AccessListChecked {
				t.Errorf("info %+v with the error, want the header read and no access list checked", info)
			}
			off := -1
			var se *ShapeError
			var me *MismatchError
			switch {
			case errors.As(err, &se):
				off = se.Offset
				if !strings.HasPrefix(se.Path, tt.path) {
					t.Errorf("error path %q, want %q", se.Path, tt.path)
				}
				if list := rawItems(t, raw); len(list) == 5 && strings.HasPrefix(se.Path, "blockAccessList") {
					if rlp.DecodeBytes(list[4], new(bal.BlockAccessList)) == nil {
						t.Errorf("go-ethereum decodes the access list that VerifyBlockRLP rejects: %v", err)
					}
				}
			case errors.As(err, &me):
				if me.Field != "blockAccessListHash" || me.Number != base.block.NumberU64() ||
					me.Header != *base.block.Header().BlockAccessListHash || me.Header == me.Computed ||
					!strings.Contains(err.Error(), "block access list") {
					t.Errorf("mismatch %+v (%v)", me, err)
				}
			}
			if tt.fault != nil && (off < 0 || !bytes.HasPrefix(raw[off:], tt.fault)) {
				t.Errorf("error offset %d does not point at %x: %v", off, tt.fault, err)
			}
			t.Log(err)
		})
	}
}

// TestVerifyBlockRLPEveryAccessListByte flips, one at a time, every byte of
// the block access list of every generated Amsterdam block in its export
// form (the low bit everywhere; the high bit and all bits in every fifth
// block, to keep the test short; with -short or the race detector, only the
// low bit in every fifth block), and checks that each flip is caught, and caught as go-ethereum would:
// a hash mismatch where go-ethereum decodes the changed list (whose hash
// then differs from the header's), malformed RLP or a malformed block where
// go-ethereum's decoder fails.
func TestVerifyBlockRLPEveryAccessListByte(t *testing.T) {
	kinds := map[string]int{}
	blocks, checked := 0, 0
	for _, cb := range mustTestChain(t) {
		if cb.block.AccessList() == nil {
			continue
		}
		quick := testing.Short() || raceEnabled
		if quick && blocks%5 != 0 {
			blocks++
			continue
		}
		masks := []byte{0x01}
		if blocks%5 == 0 && !quick {
			masks = append(masks, 0x80, 0xff)
		}
		blocks++
		checked++
		raw := slices.Clone(cb.export)
		start := len(raw) - len(accessListRLP(t, cb))
		for pos := start; pos < len(raw); pos++ {
			for _, m := range masks {
				raw[pos] ^= m
				_, err := VerifyBlockRLP(raw)
				gethErr := rlp.DecodeBytes(raw[start:], new(bal.BlockAccessList))
				raw[pos] ^= m
				var me *MismatchError
				var oe *rlpstream.OffsetError
				var se *ShapeError
				switch {
				case errors.As(err, &me):
					if me.Field != "blockAccessListHash" || me.Number != cb.block.NumberU64() || gethErr != nil {
						t.Fatalf("block %d byte %d ^ %#x: %v (go-ethereum: %v)", cb.block.NumberU64(), pos, m, err, gethErr)
					}
					kinds["mismatch"]++
				case errors.As(err, &oe), errors.As(err, &se):
					if gethErr == nil {
						t.Fatalf("block %d byte %d ^ %#x: %v, but go-ethereum decodes the access list", cb.block.NumberU64(), pos, m, err)
					}
					kinds["malformed"]++
				default:
					t.Fatalf("block %d byte %d ^ %#x: error %v", cb.block.NumberU64(), pos, m, err)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no block with an access list")
	}
	t.Logf("%d of %d blocks; caught: %v", checked, blocks, kinds)
}

// FuzzAccessListShape checks the shape check of block access lists against
// go-ethereum's decoder on any input: VerifyBlockRLP's checks (canonical RLP,
// then the shape) accept exactly the lists that go-ethereum's
// bal.BlockAccessList decodes. The seeds are the access lists of the
// generated chains.
func FuzzAccessListShape(f *testing.F) {
	for i, cb := range mustTestChain(f) {
		if i%3 == 0 && cb.block.AccessList() != nil {
			f.Add(accessListRLP(f, cb))
		}
	}
	f.Add([]byte{0xc0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		err := rlpstream.Validate(raw)
		if err == nil {
			var it item
			if it, err = readOne(raw, 0); err == nil {
				if it.kind != rlpstream.List {
					err = errors.New("not a list")
				} else {
					err = checkAccessList(it)
				}
			}
		}
		gethErr := rlp.DecodeBytes(raw, new(bal.BlockAccessList))
		if (err == nil) != (gethErr == nil) {
			t.Fatalf("keccakroot: %v; go-ethereum: %v; input %x", err, gethErr, raw)
		}
	})
}

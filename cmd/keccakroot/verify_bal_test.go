package main

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/rlp"
)

// TestVerifyChainAccessLists verifies the Amsterdam chain as 'geth export'
// writes it (five items a block, with its block access list), plain and
// gzip, and in the devp2p form (four items, no access lists).
func TestVerifyChainAccessLists(t *testing.T) {
	chain := mustAmsterdamChain(t)
	dir := t.TempDir()
	head := chain.blocks[len(chain.blocks)-1]
	files := []struct {
		name   string
		data   []byte
		lists  int // access lists checked
		absent int // headers whose access list the file does not carry
	}{
		{"export.rlp", chain.export, amsterdamBlocks, 1},
		{"export.rlp.gz", gzipBytes(t, chain.export), amsterdamBlocks, 1},
		{"devp2p.rlp", chain.devp2p, 0, amsterdamBlocks + 1},
	}
	for _, f := range files {
		path := writeFile(t, dir, f.name, f.data)
		r := keccakroot(t, nil, "verify-chain", "--json", path)
		wantCode(t, r, exitOK)
		var res chainResult
		decodeJSON(t, r, &res)
		if !res.OK || res.Blocks != len(chain.blocks) || *res.LastHash != head.Hash() ||
			res.AccessLists != f.lists || res.AccessListsAbsent != f.absent {
			t.Fatalf("%s: want %d blocks, %d access lists checked, %d not carried:\n%v", f.name, len(chain.blocks), f.lists, f.absent, r)
		}
		r = keccakroot(t, nil, "verify-chain", path)
		wantCode(t, r, exitOK)
		want := []string{"all blocks verified", plural(f.absent, "block") + " whose header commits to a block access list that the file does not carry"}
		if f.lists > 0 {
			want = append(want, plural(f.lists, "block access list")+" checked against their headers")
		}
		wantOutput(t, r.stdout, want...)
	}
}

// TestVerifyChainAccessListFlipped flips a byte inside a block access list:
// one that keeps the list well formed (an address byte: a mismatch, exit 1)
// and one that breaks its shape (a length byte: malformed, exit 2). Both
// name the block.
func TestVerifyChainAccessListFlipped(t *testing.T) {
	chain := mustAmsterdamChain(t)
	const number = 23
	block := chain.blocks[number]
	list, err := rlp.EncodeToBytes(block.AccessList())
	if err != nil {
		t.Fatal(err)
	}
	start, end := chain.offsets[number], chain.offsets[number+1]
	at := bytes.LastIndex(chain.export[start:end], list)
	if at < 0 || start+at+len(list) != end {
		t.Fatal("the access list is not the block's last item")
	}
	listStart := start + at
	// The list header, the first account's header, then its address: the
	// 0x94 string header and 20 bytes.
	accountStart := rlpHeaderLen(list)
	addrByte := listStart + accountStart + rlpHeaderLen(list[accountStart:]) + 5
	if chain.export[addrByte-5] != 0x94 {
		t.Fatalf("byte %#x where the address header should be", chain.export[addrByte-5])
	}

	data := bytes.Clone(chain.export)
	data[addrByte] ^= 0x01
	path := writeFile(t, t.TempDir(), "flipped.rlp", data)
	r := keccakroot(t, nil, "verify-chain", path)
	wantCode(t, r, exitMismatch)
	wantOutput(t, r.stderr, fmt.Sprintf("block #%d %s", number, block.Hash().Hex()),
		"block access list mismatch", "blockAccessListHash", block.Header().BlockAccessListHash.Hex())
	r = keccakroot(t, nil, "verify-chain", "--json", path)
	wantCode(t, r, exitMismatch)
	var res chainResult
	decodeJSON(t, r, &res)
	if bad := res.BadBlock; bad == nil || bad.Kind != "mismatch" || *bad.Number != number || bad.Offset != int64(start) || res.Blocks != number {
		t.Fatalf("want a mismatch in block #%d:\n%v", number, r)
	}

	// The address's string header 0x94 (20 bytes) made 0x95: the RLP is
	// broken.
	data = bytes.Clone(chain.export)
	data[addrByte-5] ^= 0x01
	r = keccakroot(t, nil, "verify-chain", writeFile(t, t.TempDir(), "broken.rlp", data))
	wantCode(t, r, exitUsage)
	wantOutput(t, r.stderr, fmt.Sprintf("block #%d %s", number, block.Hash().Hex()), "not a valid block")
}

// rlpHeaderLen returns the length of the RLP list header at the start of b.
func rlpHeaderLen(b []byte) int {
	if b[0] > 0xf7 {
		return 1 + int(b[0]-0xf7)
	}
	return 1
}

package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestVerifyChain(t *testing.T) {
	chain := mustChain(t)
	dir := t.TempDir()
	path := writeFile(t, dir, "chain.rlp", chain.export)
	head := chain.blocks[len(chain.blocks)-1]

	r := keccakroot(t, nil, "verify-chain", path)
	wantCode(t, r, exitOK)
	wantOutput(t, r.stdout,
		fmt.Sprintf("verified %d blocks #0..#%d", len(chain.blocks), chainBlocks),
		"blocks/s", "MB/s", head.Hash().Hex(), "all blocks verified")

	r = keccakroot(t, nil, "verify-chain", "--json", path)
	wantCode(t, r, exitOK)
	var res chainResult
	decodeJSON(t, r, &res)
	txs := 0
	for _, b := range chain.blocks {
		txs += len(b.Transactions())
	}
	switch {
	case !res.OK, res.Blocks != len(chain.blocks), res.Gzip:
		t.Fatalf("want %d blocks verified, not gzip:\n%v", len(chain.blocks), r)
	case res.LastHash == nil || *res.LastHash != head.Hash() || *res.LastBlock != chainBlocks || *res.FirstBlock != 0:
		t.Fatalf("want head #%d %s:\n%v", chainBlocks, head.Hash().Hex(), r)
	case res.Transactions != int64(txs), res.RLPBytes != int64(len(chain.export)), res.FileBytes != int64(len(chain.export)):
		t.Fatalf("want %d transactions and %d bytes:\n%v", txs, len(chain.export), r)
	case res.BlocksPerSecond <= 0 || res.MBPerSecond <= 0:
		t.Fatalf("want positive rates:\n%v", r)
	}

	// One worker gives the same.
	r = keccakroot(t, nil, "verify-chain", "--workers", "1", "--json", path)
	wantCode(t, r, exitOK)

	// Standard input, with plain progress lines (standard error is not a
	// terminal here).
	r = keccakroot(t, chain.export, "verify-chain", "--progress-interval", "1ns", "-")
	wantCode(t, r, exitOK)
	wantOutput(t, r.stderr, "verify-chain: ", "blocks, at #")
	wantOutput(t, r.stdout, fmt.Sprintf("%d blocks", len(chain.blocks)))
}

func TestVerifyChainGzip(t *testing.T) {
	chain := mustChain(t)
	dir := t.TempDir()
	gz := gzipBytes(t, chain.export)
	// Detected by its magic bytes, not its name.
	path := writeFile(t, dir, "chain-export.rlp", gz)
	r := keccakroot(t, nil, "verify-chain", "--json", path)
	wantCode(t, r, exitOK)
	var res chainResult
	decodeJSON(t, r, &res)
	if !res.OK || !res.Gzip || res.Blocks != len(chain.blocks) || res.FileBytes != int64(len(gz)) || res.RLPBytes != int64(len(chain.export)) {
		t.Fatalf("want %d blocks from a gzip file:\n%v", len(chain.blocks), r)
	}
	r = keccakroot(t, nil, "verify-chain", writeFile(t, dir, "chain.rlp.gz", gz))
	wantCode(t, r, exitOK)
	wantOutput(t, r.stdout, "chain.rlp.gz (gzip, ")

	// Two gzip members one after the other (cat a.gz b.gz), the cut inside
	// a block: one stream of RLP, as gzip -d reads it.
	cut := len(chain.export) / 3
	two := slices.Concat(gzipBytes(t, chain.export[:cut]), gzipBytes(t, chain.export[cut:]))
	r = keccakroot(t, nil, "verify-chain", "--json", writeFile(t, dir, "two-members.rlp.gz", two))
	wantCode(t, r, exitOK)
	res = chainResult{}
	decodeJSON(t, r, &res)
	if !res.OK || res.Blocks != len(chain.blocks) || res.RLPBytes != int64(len(chain.export)) {
		t.Fatalf("want %d blocks from a gzip file of two members:\n%v", len(chain.blocks), r)
	}

	// A gzip file cut short.
	r = keccakroot(t, nil, "verify-chain", writeFile(t, dir, "cut.rlp.gz", gz[:len(gz)*2/3]))
	wantCode(t, r, exitUsage)
	wantOutput(t, r.stderr, "cut.rlp.gz", "truncated")
}

func TestVerifyChainFlippedByte(t *testing.T) {
	chain := mustChain(t)
	const number = 57
	block := chain.blocks[number]
	tx := block.Transactions()[1]
	enc, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Clone(chain.export)
	start, end := chain.offsets[number], chain.offsets[number+1]
	at := bytes.Index(data[start:end], enc)
	if at < 0 {
		t.Fatal("transaction not found in its block's export")
	}
	// The last byte of the signature's S: the RLP stays well formed.
	data[start+at+len(enc)-1] ^= 0x01
	path := writeFile(t, t.TempDir(), "flipped.rlp", data)

	r := keccakroot(t, nil, "verify-chain", path)
	wantCode(t, r, exitMismatch)
	wantOutput(t, r.stderr,
		fmt.Sprintf("block #%d %s", number, block.Hash().Hex()),
		"transactionsRoot mismatch", block.TxHash().Hex())
	wantOutput(t, r.stdout, fmt.Sprintf("verified before the failure: %d blocks", number), "FIRST BAD BLOCK")

	r = keccakroot(t, nil, "verify-chain", "--json", path)
	wantCode(t, r, exitMismatch)
	var res chainResult
	decodeJSON(t, r, &res)
	bad := res.BadBlock
	switch {
	case res.OK || res.Error == "" || bad == nil:
		t.Fatalf("want a failure with a bad block:\n%v", r)
	case bad.Number == nil || *bad.Number != number || bad.Hash == nil || *bad.Hash != block.Hash():
		t.Fatalf("want bad block #%d %s:\n%v", number, block.Hash().Hex(), r)
	case bad.Kind != "mismatch" || bad.Position != number+1 || bad.Offset != int64(start) || res.Blocks != number:
		t.Fatalf("want a mismatch at position %d, byte %d, after %d blocks:\n%v", number+1, start, number, r)
	}
}

func TestVerifyChainBrokenLink(t *testing.T) {
	chain := mustChain(t)
	// Block 100 left out: block 101 does not follow block 99.
	data := slices.Concat(chain.export[:chain.offsets[100]], chain.export[chain.offsets[101]:])
	r := keccakroot(t, nil, "verify-chain", writeFile(t, t.TempDir(), "gap.rlp", data))
	wantCode(t, r, exitMismatch)
	wantOutput(t, r.stderr, fmt.Sprintf("block #101 %s", chain.blocks[101].Hash().Hex()),
		"is not the hash of the block before it, #99 "+chain.blocks[99].Hash().Hex())

	// Blocks 100 and 101 swapped.
	data = slices.Concat(chain.export[:chain.offsets[100]], chain.export[chain.offsets[101]:chain.offsets[102]],
		chain.export[chain.offsets[100]:chain.offsets[101]], chain.export[chain.offsets[102]:])
	r = keccakroot(t, nil, "verify-chain", "--json", writeFile(t, t.TempDir(), "swapped.rlp", data))
	wantCode(t, r, exitMismatch)
	var res chainResult
	decodeJSON(t, r, &res)
	if res.BadBlock == nil || res.BadBlock.Kind != "link" || *res.BadBlock.Number != 101 || res.Blocks != 100 {
		t.Fatalf("want a broken link at #101 after 100 blocks:\n%v", r)
	}
}

func TestVerifyChainBadInput(t *testing.T) {
	chain := mustChain(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	random := make([]byte, 1<<16)
	fill(rng, random)
	tests := []struct {
		name string
		data []byte
		want []string
		good int // blocks verified before the failure
	}{
		{"truncated.rlp", chain.export[:len(chain.export)-100], []string{"truncated.rlp", "truncated", fmt.Sprintf("block %d of the file", chainBlocks+1)}, chainBlocks},
		{"header-cut.rlp", chain.export[:chain.offsets[10]+1], []string{"truncated", "block 11 of the file", "ends inside the block's RLP header"}, 10},
		{"random.bin", random, nil, 0},
		{"string.bin", []byte{0x85, 'h', 'e', 'l', 'l', 'o'}, []string{"not a chain export", "RLP string"}, 0},
		{"text.txt", []byte("hello, world\n"), []string{"not a chain export", "single RLP byte"}, 0},
		{"huge.rlp", []byte{0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, []string{"block too large"}, 0},
		{"noncanonical.rlp", []byte{0xf8, 0x01, 0x00}, []string{"non-canonical"}, 0},
		{"empty-list.rlp", []byte{0xc0}, []string{"block 1 of the file (at byte 0): not a valid block"}, 0},
		{"empty.rlp", nil, []string{"holds no blocks"}, 0},
		// Well-framed lists of random content: malformed blocks.
		{"random-lists.rlp", slices.Concat([]byte{0xf9, 0x01, 0x00}, random[:256]), []string{"random-lists.rlp", "block"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, dir, tt.name, tt.data)
			r := keccakroot(t, nil, "verify-chain", path)
			wantCode(t, r, exitUsage)
			wantOutput(t, r.stderr, append([]string{"keccakroot: " + path}, tt.want...)...)
			if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n != 0 {
				t.Errorf("want a one-line error, got:\n%s", r.stderr)
			}
			if tt.good == 0 && r.stdout != "" {
				t.Errorf("want no summary for a file without a good block, got:\n%s", r.stdout)
			}
			if tt.good > 0 {
				wantOutput(t, r.stdout, fmt.Sprintf("verified before the failure: %d blocks", tt.good))
			}
			r = keccakroot(t, nil, "verify-chain", "--json", path)
			wantCode(t, r, exitUsage)
			var res chainResult
			decodeJSON(t, r, &res)
			if res.OK || res.Error == "" || res.Blocks != tt.good {
				t.Fatalf("want ok false, an error and %d good blocks:\n%v", tt.good, r)
			}
		})
	}

	r := keccakroot(t, nil, "verify-chain", dir+"/does-not-exist.rlp")
	wantCode(t, r, exitUsage)
	wantOutput(t, r.stderr, "does-not-exist.rlp", "no such file")
	r = keccakroot(t, nil, "verify-chain", dir)
	wantCode(t, r, exitUsage)
	wantOutput(t, r.stderr, "is a directory")
}

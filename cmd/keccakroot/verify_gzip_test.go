package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestVerifyChainGzipFaults: a gzip file cut short, with trailing garbage,
// or with a corrupt checksum is named as a broken gzip stream, not as an
// "unexpected EOF"; in JSON each, like every framing fault, has a badBlock
// with its position and offset.
func TestVerifyChainGzipFaults(t *testing.T) {
	chain := mustChain(t)
	gz := gzipBytes(t, chain.export)
	corrupt := slices.Clone(gz)
	corrupt[len(corrupt)-6] ^= 0xff // the CRC-32 in the trailer
	tests := []struct {
		name string
		data []byte
		want []string
	}{
		{"cut.rlp.gz", gz[:len(gz)*2/3], []string{"broken gzip stream", "the compressed stream ends early: the file is truncated"}},
		{"cut-trailer.rlp.gz", gz[:len(gz)-4], []string{"broken gzip stream", "ends early"}},
		{"garbage.rlp.gz", slices.Concat(gz, []byte("garbage after the stream")), []string{"broken gzip stream", "trailing garbage"}},
		{"short-garbage.rlp.gz", slices.Concat(gz, []byte{1, 2, 3}), []string{"broken gzip stream", "trailing garbage"}},
		{"one-byte-garbage.rlp.gz", slices.Concat(gz, []byte{0x1f}), []string{"broken gzip stream", "trailing garbage"}},
		{"cut-second-header.rlp.gz", slices.Concat(gz, gz[:5]), []string{"broken gzip stream", "ends early: the file is truncated"}},
		{"bad-second-header.rlp.gz", slices.Concat(gz, []byte{0x1f, 0x8b, 0x09, 0, 0, 0, 0, 0, 0, 0xff}), []string{"broken gzip stream", "header is invalid"}},
		{"checksum.rlp.gz", corrupt, []string{"broken gzip stream", "checksum"}},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, dir, tt.name, tt.data)
			r := keccakroot(t, nil, "verify-chain", path)
			wantCode(t, r, exitUsage)
			wantOutput(t, r.stderr, append([]string{path}, tt.want...)...)
			r = keccakroot(t, nil, "verify-chain", "--json", path)
			wantCode(t, r, exitUsage)
			var res chainResult
			decodeJSON(t, r, &res)
			bad := res.BadBlock
			if res.OK || bad == nil || bad.Kind != "malformed" || bad.Position != res.Blocks+1 || bad.Position < 1 ||
				bad.Offset < 0 || bad.Offset > int64(len(chain.export)) {
				t.Fatalf("want a badBlock after %d good blocks:\n%v", res.Blocks, r)
			}
			if bad.Position <= len(chain.offsets) && bad.Offset != int64(chain.offsets[bad.Position-1]) && bad.Position <= len(chain.blocks) {
				t.Fatalf("badBlock at position %d, offset %d; that block starts at %d:\n%v", bad.Position, bad.Offset, chain.offsets[bad.Position-1], r)
			}
		})
	}
}

// TestVerifyChainFramingJSON: truncation and framing faults of a plain file
// carry a badBlock in JSON too.
func TestVerifyChainFramingJSON(t *testing.T) {
	chain := mustChain(t)
	dir := t.TempDir()
	for _, tt := range []struct {
		name     string
		data     []byte
		position int
		offset   int
	}{
		{"truncated.rlp", chain.export[:len(chain.export)-100], chainBlocks + 1, chain.offsets[chainBlocks]},
		{"header-cut.rlp", chain.export[:chain.offsets[10]+1], 11, chain.offsets[10]},
		{"string.rlp", slices.Concat(chain.export[:chain.offsets[5]], []byte{0x83, 1, 2, 3}), 6, chain.offsets[5]},
	} {
		r := keccakroot(t, nil, "verify-chain", "--json", writeFile(t, dir, tt.name, tt.data))
		wantCode(t, r, exitUsage)
		var res chainResult
		decodeJSON(t, r, &res)
		bad := res.BadBlock
		if bad == nil || bad.Position != tt.position || bad.Offset != int64(tt.offset) || bad.Kind != "malformed" || bad.Reason == "" {
			t.Fatalf("%s: want a badBlock at position %d, offset %d:\n%v", tt.name, tt.position, tt.offset, r)
		}
		if want := fmt.Sprintf("block %d of the file (at byte %d)", tt.position, tt.offset); !strings.Contains(res.Error, want) {
			t.Fatalf("%s: error %q does not say %q", tt.name, res.Error, want)
		}
	}
}

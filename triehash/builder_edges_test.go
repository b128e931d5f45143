package triehash

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// edgeValue returns a value of n bytes, its first byte below 0x80 when lowByte
// (so that a one-byte value is its own encoding) and above it otherwise.
func edgeValue(rng *rand.Rand, n int, lowByte bool) []byte {
	v := make([]byte, n)
	for i := range v {
		v[i] = byte(rng.Uint32())
	}
	if lowByte {
		v[0] &= 0x7f
	} else {
		v[0] |= 0x80
	}
	return v
}

// edgeSets returns small key sets at the edges of the Builder's encodings:
// a single key, two keys parting at the last nibble, full and two-child
// bottom branches, keys of every length up to MaxKeyLength, and values
// around the sizes where an RLP header grows (55/56, 255/256, 65535/65536).
func edgeSets() (names []string, keySets, valueSets [][][]byte) {
	rng := rand.New(rand.NewPCG(77, 78))
	valueLens := []int{1, 2, 31, 32, 55, 56, 255, 256, 65535, 65536}
	keyLens := []int{0, 1, 2, 7, 8, 9, 31, 32, 33, 255, 256, MaxKeyLength}
	if testing.Short() {
		// Keys of 255 bytes and more (the spread sets of 1 KiB keys make
		// tries 2,048 nibbles deep) and values of 64 KiB are for the test
		// command, which runs without -short: in the legs that run with it,
		// under -race and under emulation, they took half of the
		// package's time (57 s of 111 under -race, 61 of 134 under qemu).
		keyLens = slices.DeleteFunc(keyLens, func(n int) bool { return n >= 255 })
		valueLens = slices.DeleteFunc(valueLens, func(n int) bool { return n > 256 })
	}
	add := func(name string, keys [][]byte, valueLen int, low bool) {
		values := make([][]byte, len(keys))
		for i := range values {
			values[i] = edgeValue(rng, valueLen, low)
		}
		names = append(names, fmt.Sprintf("%s/value%d/low%v", name, valueLen, low))
		keySets, valueSets = append(keySets, keys), append(valueSets, values)
	}
	for _, keyLen := range keyLens {
		key := bytes.Repeat([]byte{0xab}, keyLen)
		for _, vl := range valueLens {
			for _, low := range []bool{true, false} {
				add(fmt.Sprintf("one key of %d bytes", keyLen), [][]byte{key}, vl, low)
			}
		}
		if keyLen == 0 {
			continue
		}
		// Two keys that share all but the last nibble.
		a := bytes.Clone(key)
		b := bytes.Clone(key)
		a[keyLen-1], b[keyLen-1] = 0xa0, 0xa1
		// Sixteen keys under one bottom branch at the last nibble.
		var sixteen [][]byte
		for nib := range 16 {
			k := bytes.Clone(key)
			k[keyLen-1] = 0x50 | byte(nib)
			sixteen = append(sixteen, k)
		}
		// Keys that part at each byte, some pairs at the last nibble.
		var spread [][]byte
		for i := range keyLen {
			k := bytes.Clone(key)
			k[i] = 0xc0
			spread = append(spread, k)
			k = bytes.Clone(k)
			k[keyLen-1] ^= 0x01
			spread = append(spread, k)
		}
		slices.SortFunc(spread, bytes.Compare)
		spread = slices.CompactFunc(spread, bytes.Equal)
		for _, vl := range valueLens {
			for _, low := range []bool{true, false} {
				add(fmt.Sprintf("two keys of %d bytes", keyLen), [][]byte{a, b}, vl, low)
				if vl <= 256 || keyLen <= 32 {
					add(fmt.Sprintf("sixteen keys of %d bytes", keyLen), sixteen, vl, low)
				}
				if vl <= 56 || vl == 256 {
					add(fmt.Sprintf("spread keys of %d bytes", keyLen), spread, vl, low)
				}
			}
		}
	}
	return names, keySets, valueSets
}

// TestBuilderEdges checks the Builder, with and without onNode, the
// ParallelBuilder with several chunk sizes and Options.Root on the edge
// sets, against go-ethereum's StackTrie (root and node stream).
func TestBuilderEdges(t *testing.T) {
	names, keySets, valueSets := edgeSets()
	for s, name := range names {
		keys, values := keySets[s], valueSets[s]
		var want [32]byte
		var wantNodes []gethNode
		if len(keys) == 1 && len(keys[0]) == 0 {
			want = gethTrieRoot(t, keys, values) // StackTrie takes no empty key
		} else {
			want, wantNodes = gethStackTrie(t, keys, values)
		}
		got, nodes := buildRecorded(t, keys, values)
		if got != want {
			t.Fatalf("%s: Builder root %x, want %x", name, got, want)
		}
		if wantNodes != nil {
			if len(nodes) != len(wantNodes) {
				t.Fatalf("%s: %d nodes, StackTrie %d", name, len(nodes), len(wantNodes))
			}
			for i := range nodes {
				g, w := nodes[i], wantNodes[i]
				if !bytes.Equal(g.path, w.path) || g.hash != w.hash || !bytes.Equal(g.blob, w.blob) {
					t.Fatalf("%s: node %d:\n got %v\nwant %v", name, i, g, w)
				}
			}
		}
		plain := NewBuilder(nil)
		for i := range keys {
			if err := plain.Update(keys[i], values[i]); err != nil {
				t.Fatal(err)
			}
		}
		if got := plain.Hash(); got != want {
			t.Fatalf("%s: Builder without onNode root %x, want %x", name, got, want)
		}
		for _, chunkSize := range []int{1, 3, parallelChunk} {
			for _, onNode := range []NodeFunc{nil, func([]byte, [32]byte, []byte) {}} {
				p := NewParallelBuilder(onNode, 2)
				p.chunkSize = chunkSize
				for i := range keys {
					if err := p.Update(keys[i], values[i]); err != nil {
						t.Fatal(err)
					}
				}
				if got := p.Hash(); got != want {
					t.Fatalf("%s: ParallelBuilder (chunks of %d, onNode %v) root %x, want %x", name, chunkSize, onNode != nil, got, want)
				}
			}
		}
		if got, err := (Options{Workers: 2}).Root(keys, values); err != nil || got != want {
			t.Fatalf("%s: Options.Root %x, %v; want %x", name, got, err, want)
		}
	}
}

package triehash

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
)

// The proof fuzz targets read from their input one of two things. Either a
// small trie (keys and values), a key or a range to prove in it with
// go-ethereum's Prove, and changes to make to the proof and the range; or a
// crafted proof: nodes written by the fuzzer that refer to one another
// through placeholders, so that the fuzzer can build trees of any shape,
// ones no trie has included. Crafted nodes are filed under their hashes, or
// under their placeholders, to test that a node filed under a hash not its
// own stands for that hash as in go-ethereum. Every decision is compared
// with go-ethereum's, and where go-ethereum panics ours must be an error.

// fuzzByte takes one byte from data, 0 when it is used up.
func fuzzByte(data *[]byte) byte {
	if len(*data) == 0 {
		return 0
	}
	b := (*data)[0]
	*data = (*data)[1:]
	return b
}

// fuzzProof is a proof to check: its root and its nodes, in a list and in
// the database go-ethereum reads them from.
type fuzzProof struct {
	root  [32]byte
	nodes [][]byte
	// misfiled says the database files nodes under their placeholders, not
	// their hashes; the list then does not stand for the proof.
	misfiled bool
	db       *memorydb.Database
}

// source returns the proof for our verifiers: the list, or, for misfiled
// nodes, the database.
func (p *fuzzProof) source() (list [][]byte, src NodeSource) {
	if p.misfiled {
		return nil, dbSource{p.db}
	}
	return p.nodes, newProofSet(p.nodes)
}

type dbSource struct{ db ethdb.KeyValueReader }

func (s dbSource) Node(_ []byte, hash [32]byte) ([]byte, error) { return s.db.Get(hash[:]) }

// fuzzTrie is a small trie read from fuzz input, in go-ethereum's trie.
type fuzzTrie struct {
	keys, values [][]byte // in key order
	geth         *trie.Trie
	root         [32]byte
}

// readFuzzTrie builds a trie of up to 24 keys of one of three shapes: 0
// to 3 bytes from a four-letter alphabet (keys that are prefixes of one
// another), 2 bytes from that alphabet, or Keccak-256 hashes.
func readFuzzTrie(data *[]byte) *fuzzTrie {
	n := int(fuzzByte(data) % 25)
	shape := fuzzByte(data) % 3
	entries := map[string][]byte{}
	for range n {
		var key []byte
		switch shape {
		case 0:
			key = fuzzAlphabet(fuzzBytes(data, 4))
		case 1:
			key = fuzzAlphabet([]byte{fuzzByte(data), fuzzByte(data)})
		default:
			key = crypto.Keccak256(fuzzBytes(data, 8))
		}
		value := fuzzBytes(data, 41)
		if len(value) == 0 {
			value = []byte{byte(len(entries) + 1)}
		}
		entries[string(key)] = value
	}
	ft := &fuzzTrie{geth: trie.NewEmpty(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil))}
	for _, key := range slices.Sorted(maps.Keys(entries)) {
		ft.keys = append(ft.keys, []byte(key))
		ft.values = append(ft.values, entries[key])
		ft.geth.MustUpdate([]byte(key), entries[key])
	}
	ft.root = ft.geth.Hash()
	return ft
}

// fuzzAlphabet maps each byte of key onto a four-letter alphabet, so that
// keys share long paths.
func fuzzAlphabet(key []byte) []byte {
	for i := range key {
		key[i] = "ab\x00\xff"[key[i]%4]
	}
	return key
}

// fuzzKey reads a key near the trie's keys: one of them, one of the
// alphabet, a raw one, or nil.
func (ft *fuzzTrie) fuzzKey(data *[]byte) []byte {
	switch fuzzByte(data) % 4 {
	case 0:
		if len(ft.keys) > 0 {
			return ft.keys[int(fuzzByte(data))%len(ft.keys)]
		}
	case 1:
		return fuzzAlphabet(fuzzBytes(data, 5))
	case 2:
		return fuzzBytes(data, 33)
	}
	return nil
}

// prove returns go-ethereum's proof of the keys, as one list, never nil
// (nil would say there is no proof).
func (ft *fuzzTrie) prove(t *testing.T, keys ...[]byte) [][]byte {
	if proof := gethProve(t, ft.geth, keys...); proof != nil {
		return proof
	}
	return [][]byte{}
}

// mutateNodes changes a proof's nodes as the input says: up to three
// times a node dropped, a byte changed, a node added, or a node cut short.
func mutateNodes(data *[]byte, nodes [][]byte) [][]byte {
	nodes = slices.Clone(nodes)
	for range fuzzByte(data) % 4 {
		op, at := fuzzByte(data)%4, int(fuzzByte(data))
		if op != 2 && len(nodes) == 0 {
			continue
		}
		switch op {
		case 0:
			nodes = slices.Delete(nodes, at%len(nodes), at%len(nodes)+1)
		case 1:
			i := at % len(nodes)
			if len(nodes[i]) > 0 {
				nodes[i] = bytes.Clone(nodes[i])
				nodes[i][int(fuzzByte(data))%len(nodes[i])] ^= fuzzByte(data) | 1
			}
		case 2:
			nodes = append(nodes, fuzzBytes(data, 80))
		case 3:
			i := at % len(nodes)
			nodes[i] = nodes[i][:int(fuzzByte(data))%(len(nodes[i])+1)]
		}
	}
	return nodes
}

// readCraftedProof reads up to 6 nodes of up to 120 bytes. In a node, the
// 33 bytes a0 ee j .. (a 32-byte string starting ee j) refer to node j,
// if j comes after it: they are replaced by node j's hash, or by its
// placeholder (ee j then zeros) when the nodes are misfiled, under which
// node j is then filed. The root is node 0's.
func readCraftedProof(data *[]byte) *fuzzProof {
	p := &fuzzProof{misfiled: fuzzByte(data)%2 == 1, db: memorydb.New()}
	count := 1 + int(fuzzByte(data)%6)
	for range count {
		p.nodes = append(p.nodes, fuzzBytes(data, 121))
	}
	refs := make([][32]byte, count)
	for i := count - 1; i >= 0; i-- {
		node := p.nodes[i]
		for at := 0; at+33 <= len(node); at++ {
			if node[at] != 0xa0 || node[at+1] != 0xee {
				continue
			}
			if j := int(node[at+2]); j > i && j < count {
				copy(node[at+1:at+33], refs[j][:])
			}
		}
		refs[i] = crypto.Keccak256Hash(node)
		if p.misfiled {
			refs[i] = [32]byte{0xee, byte(i)}
		}
		p.db.Put(refs[i][:], node)
	}
	p.root = refs[0]
	return p
}

// trieProof is a proof of go-ethereum's, changed as the input says.
func trieProof(data *[]byte, root [32]byte, nodes [][]byte) *fuzzProof {
	p := &fuzzProof{root: root, nodes: mutateNodes(data, nodes)}
	if fuzzByte(data)%8 == 0 {
		p.root[0] ^= 1
	}
	p.db = proofDB(p.nodes)
	return p
}

// FuzzVerifyProof checks VerifyProof against go-ethereum's on proofs of
// small tries, changed, and on crafted proofs.
func FuzzVerifyProof(f *testing.F) {
	f.Add([]byte("\x00\x05\x00\x02ab\x05hello\x02ba\x03xyz\x01a\x01q\x03\x02aab\x00\x01\x00"))
	f.Add([]byte("\x00\x10\x02\x01a\x20aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\x01b\x01x\x01c\x01y\x00\x03\x02\x00\x01\x00\x03\x01\x05zz"))
	f.Add([]byte("\x00\x08\x01aaaa\x01\x01abab\x01\x02bbbb\x01\x03\x00\x00\x01\x00\x00\x01\x05\x03\x00"))
	f.Add([]byte("\x01\x00\x02\x06\xc4\x82\x00a\x80\x23\xf8\x21\x80\xa0\xee\x01aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\x03\x01\x02"))
	f.Add([]byte("\x01\x01\x02\x22\xe2\x10\xa0\xee\x01aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\x05\xc4\x30\x82hi\x01\x00"))
	f.Add(append(append([]byte("\x01\x01\x00\x23\xe2\x80\xa0\xee\x00"), make([]byte, 30)...), 1, 1))
	f.Fuzz(func(t *testing.T, data []byte) { checkFuzzedProof(t, data) })
}

// checkFuzzedProof is FuzzVerifyProof's check of one input; it returns
// go-ethereum's decision.
func checkFuzzedProof(t *testing.T, data []byte) ([]byte, error) {
	var (
		p   *fuzzProof
		key []byte
	)
	if fuzzByte(&data)%2 == 0 {
		ft := readFuzzTrie(&data)
		key = ft.fuzzKey(&data)
		p = trieProof(&data, ft.root, ft.prove(t, key))
	} else {
		p = readCraftedProof(&data)
		key = fuzzBytes(&data, 5)
	}
	want, wantErr, panicked := gethVerifyProof(p.root, key, &endlessReader{db: p.db})
	list, src := p.source()
	var got []byte
	var err error
	if list != nil {
		got, err = VerifyProof(p.root, key, list)
	} else {
		got, err = VerifyProofFrom(p.root, key, src)
	}
	switch {
	case errors.Is(wantErr, errEndless) != errors.Is(err, ErrProofCycle):
		t.Fatalf("key %x: go-ethereum: %v; we: %v", key, wantErr, err)
	case panicked && err == nil:
		t.Fatalf("key %x: go-ethereum panics (%v), we return %x", key, wantErr, got)
	case !panicked && ((err != nil) != (wantErr != nil) || !bytes.Equal(got, want)):
		t.Fatalf("key %x: VerifyProof = %x, %v; go-ethereum %x, %v", key, got, err, want, wantErr)
	}
	return want, wantErr
}

// gethVerifyProof runs go-ethereum's VerifyProof, its panics recovered.
func gethVerifyProof(root [32]byte, key []byte, db ethdb.KeyValueReader) (value []byte, err error, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			value, err, panicked = nil, fmt.Errorf("%v", r), true
			if isEndless(r) {
				err = errEndless
			}
		}
	}()
	value, err = trie.VerifyProof(common.Hash(root), key, db)
	return value, err, false
}

// FuzzVerifyRangeProof checks VerifyRangeProof against go-ethereum's on
// ranges of small tries with their edge proofs, both changed, and on
// crafted proofs with ranges read from the input.
func FuzzVerifyRangeProof(f *testing.F) {
	f.Add([]byte("\x00\x06\x01aaaa\x01\x01abab\x01\x02bbbb\x01\x03abba\x01\x04baba\x01\x05\x00\x01\x00\x03\x00\x00"))
	f.Add([]byte("\x00\x10\x02\x01a\x20aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\x01b\x01x\x01c\x01y\x01d\x02zz\x02\x05\x00\x00\x01\x02\x00\x00"))
	f.Add([]byte("\x00\x08\x00\x02ab\x05hello\x02ba\x03xyz\x01a\x01q\x03aab\x02uv\x01\x02\x04\x01\x00\x00"))
	f.Add([]byte("\x00\x0c\x01\x00\x00\x01a\x00\x01\x01b\x00\x02\x01c\x00\x03\x01d\x01\x00\x01e\x01\x01\x01f\x00\x00\x03\x03\x01\x02\x01\x00"))
	f.Add([]byte("\x01\x00\x02\x06\xc4\x82\x00a\x80\x23\xf8\x21\x80\xa0\xee\x01aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\x01\x00\x02\x01\x00\x01v\x01\x01\x01w"))
	f.Add([]byte("\x01\x01\x02\x22\xe2\x10\xa0\xee\x01aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\x05\xc4\x30\x82hi\x01\x01\x02\x02\x01\x00\x01v\x01\x10\x01w"))
	f.Add(append(append([]byte("\x01\x01\x00\x23\xe2\x80\xa0\xee\x00"), make([]byte, 30)...), 1, 1, 1, 1, 1, 1, 1, 2, 1, 1))
	f.Fuzz(func(t *testing.T, data []byte) { checkFuzzedRange(t, data) })
}

// checkFuzzedRange is FuzzVerifyRangeProof's check of one input; it
// returns go-ethereum's decision.
func checkFuzzedRange(t *testing.T, data []byte) rangeDecision {
	var (
		p            *fuzzProof
		firstKey     []byte
		keys, values [][]byte
		noProof      bool
	)
	if fuzzByte(&data)%2 == 0 {
		ft := readFuzzTrie(&data)
		n := len(ft.keys)
		lo := int(fuzzByte(&data)) % (n + 1)
		hi := lo + int(fuzzByte(&data))%(n-lo+1)
		keys, values = slices.Clone(ft.keys[lo:hi]), slices.Clone(ft.values[lo:hi])
		if lo < n && fuzzByte(&data)%2 == 0 {
			firstKey = ft.keys[lo]
		} else {
			firstKey = ft.fuzzKey(&data)
		}
		edges := [][]byte{firstKey}
		if hi > lo {
			edges = append(edges, keys[len(keys)-1])
		}
		p = trieProof(&data, ft.root, ft.prove(t, edges...))
		keys, values = mutateRange(&data, keys, values)
		noProof = fuzzByte(&data)%8 == 0
	} else {
		p = readCraftedProof(&data)
		firstKey = fuzzBytes(&data, 4)
		for range fuzzByte(&data) % 5 {
			keys = append(keys, fuzzBytes(&data, 4))
			values = append(values, fuzzBytes(&data, 5))
		}
	}
	var db ethdb.KeyValueReader = p.db
	if noProof {
		db = nil
	}
	want := gethRangeFrom(p.root, firstKey, keys, values, db)
	var got rangeDecision
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("VerifyRangeProof panics: %v", r)
			}
		}()
		list, src := p.source()
		switch {
		case noProof:
			got.more, got.err = VerifyRangeProof(p.root, firstKey, keys, values, nil)
		case list != nil:
			got.more, got.err = VerifyRangeProof(p.root, firstKey, keys, values, list)
		default:
			got.more, got.err = VerifyRangeProofFrom(p.root, firstKey, keys, values, src)
		}
	}()
	if d := agree(got, want); d != "" {
		t.Fatalf("first key %x, keys %x, values %x, %d proof nodes: %s", firstKey, keys, values, len(p.nodes), d)
	}
	return want
}

// mutateRange changes a range as the input says: up to two times a key
// dropped, a value changed, a key added, or two keys swapped.
func mutateRange(data *[]byte, keys, values [][]byte) ([][]byte, [][]byte) {
	for range fuzzByte(data) % 3 {
		op, at := fuzzByte(data)%4, int(fuzzByte(data))
		if op != 2 && len(keys) == 0 {
			continue
		}
		i := at % max(len(keys), 1)
		switch op {
		case 0:
			keys, values = slices.Delete(keys, i, i+1), slices.Delete(values, i, i+1)
		case 1:
			values[i] = fuzzBytes(data, 5)
		case 2:
			i = at % (len(keys) + 1)
			keys = slices.Insert(keys, i, fuzzAlphabet(fuzzBytes(data, 4)))
			values = slices.Insert(values, i, []byte{1})
		case 3:
			j := (i + 1) % len(keys)
			keys[i], keys[j] = keys[j], keys[i]
		}
	}
	return keys, values
}

package triehash

import (
	"bytes"
	"testing"

	"github.com/ethereum/go-ethereum/trie"
)

// FuzzTrie reads a sequence of operations from its input and applies them
// to a Trie and to go-ethereum's trie.Trie. Each operation is a byte of
// opcode then a key of 0 to 3 bytes from a four-letter alphabet (so keys
// are prefixes of one another and share long paths) and, for updates, a
// value of up to 40 bytes, short enough for embedded nodes. Opcode 3
// commits: the node sets must match path by path, and go-ethereum's trie
// is reopened from the store at the new root, from which a second Trie is
// opened too, over a VerifyingSource, so that its checks of the nodes it
// loads meet every shape of path and never refuse a right one. Values,
// roots and the final commit are compared as well.
// A change whose opcode byte has bit 2 set joins a batch, applied to the
// Tries by one UpdateBatch when a change without it, a commit or the end
// comes (go-ethereum's trie takes each change as it comes), after which
// the batch's keys are read back. The reopened Trie's source is a
// HintedSource that knows the committed value of every key, wrong for keys
// that begin with 0xff: each leaf it takes from a hint must be the node
// stored at its path.
func FuzzTrie(f *testing.F) {
	f.Add([]byte("\x00\x02ab\x05hello\x00\x01a\x01x\x03\x01\x02ab\x03\x00\x00\x03y"))
	f.Add([]byte("\x00\x03abc\x20aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\x00\x03abd\x01b\x03\x02\x03abc\x03"))
	f.Add([]byte("\x00\x01\x00\x01a\x00\x01\x01\x01b\x00\x01\x02\x01c\x03\x01\x01\x00\x03\x01\x01\x01\x03"))
	// Batches large enough to be spread over workers, with deletions.
	var batches []byte
	for i := range 48 {
		batches = append(batches, 4, 3, byte(i), byte(i>>2), byte(i>>4), 2, 'v', byte(i))
	}
	batches = append(batches, 3)
	for i := range 40 {
		code := byte(4 + 2*(i%3&1)) // updates and deletions
		batches = append(batches, code, 3, byte(i), byte(i>>2), byte(i>>4))
		if code == 4 {
			batches = append(batches, 1, 'w')
		}
	}
	f.Add(append(batches, 3))
	f.Fuzz(func(t *testing.T, data []byte) {
		store := newPathStore()
		gt, _ := trie.New(trie.TrieID(EmptyRoot), store)
		kept, _ := Options{Workers: 1 + len(data)%3}.NewTrie(EmptyRoot, store.source())
		reopened, _ := NewTrie(EmptyRoot, VerifyingSource(store.source()))
		var hinted *hintedStore
		current := map[string][]byte{} // the values go-ethereum's trie holds
		var batch []op
		batchErr := false
		flush := func() {
			if len(batch) == 0 {
				return
			}
			bk, bv := batchOf(batch)
			for name, tr := range map[string]*Trie{"kept": kept, "reopened": reopened} {
				if err := tr.UpdateBatch(bk, bv); (err != nil) != batchErr {
					t.Fatalf("%s: UpdateBatch of %d changes: error %v, go-ethereum's failed: %v", name, len(bk), err, batchErr)
				}
				for _, k := range bk {
					got, _ := tr.Get(k)
					want, _ := gt.Get(k)
					if !bytes.Equal(got, want) {
						t.Fatalf("%s: after UpdateBatch, Get(%x) = %x, want %x", name, k, got, want)
					}
				}
			}
			batch, batchErr = batch[:0], false
		}
		for len(data) > 0 {
			code, batched := data[0]%4, data[0]&4 != 0
			data = data[1:]
			if code == 3 || !batched {
				flush()
			}
			if code == 3 {
				wantRoot, set := gt.Commit(false)
				want := gethChanges(set)
				for name, tr := range map[string]*Trie{"kept": kept, "reopened": reopened} {
					checkPendingPaths(t, name, tr)
					checkCommit(t, name+" ", tr, wantRoot, want)
				}
				if hinted != nil {
					for path, blob := range hinted.taken {
						if !bytes.Equal(blob, store.nodes[path]) {
							t.Fatalf("leaf taken from a hint at %x is %x, the stored node %x", path, blob, store.nodes[path])
						}
					}
				}
				store.apply(set)
				hints := map[string][]byte{}
				for k, v := range current {
					if len(k) > 0 && k[0] == 0xff {
						v = append(bytes.Clone(v), 0) // a wrong hint
					}
					hints[k] = v
				}
				hinted = newHintedStore(store, hints)
				var err error
				if gt, err = trie.New(trie.TrieID(wantRoot), store); err != nil {
					t.Fatal(err)
				}
				if reopened, err = NewTrie(wantRoot, VerifyingSource(hinted)); err != nil {
					t.Fatal(err)
				}
				continue
			}
			key := fuzzBytes(&data, 4)
			for i := range key {
				key[i] = "ab\x00\xff"[key[i]%4]
			}
			var value []byte
			if code == 0 {
				value = fuzzBytes(&data, 41)
			}
			wantErr := gt.Update(key, value)
			if wantErr == nil && len(value) > 0 {
				current[string(key)] = value
			} else if wantErr == nil {
				delete(current, string(key))
			}
			if batched {
				batch = append(batch, op{key, value})
				batchErr = batchErr || wantErr != nil
				continue
			}
			for name, tr := range map[string]*Trie{"kept": kept, "reopened": reopened} {
				var err error
				if code == 2 {
					err = tr.Delete(key)
				} else {
					err = tr.Update(key, value)
				}
				if (err != nil) != (wantErr != nil) {
					t.Fatalf("%s: change of %x: error %v, go-ethereum %v", name, key, err, wantErr)
				}
				got, _ := tr.Get(key)
				want, _ := gt.Get(key)
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: Get(%x) = %x, want %x", name, key, got, want)
				}
			}
		}
		flush()
		want := gt.Hash()
		for name, tr := range map[string]*Trie{"kept": kept, "reopened": reopened} {
			if got := tr.Hash(); got != want {
				t.Fatalf("%s root %x, want %x", name, got, want)
			}
		}
	})
}

// fuzzBytes takes a length byte (modulo max) and that many bytes from data.
func fuzzBytes(data *[]byte, max int) []byte {
	if len(*data) == 0 {
		return nil
	}
	n := min(int((*data)[0])%max, len(*data)-1)
	out := bytes.Clone((*data)[1 : 1+n])
	*data = (*data)[1+n:]
	return out
}

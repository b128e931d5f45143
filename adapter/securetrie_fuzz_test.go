package adapter

import (
	"bytes"
	"maps"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"
)

// fuzzTrieKeys is how many addresses (or slots) the operations of
// FuzzSecureTrie pick from; the first half is in the trie it starts from.
const fuzzTrieKeys = 32

// FuzzSecureTrie applies a sequence of operations read from its input to a
// SecureTrie and to go-ethereum's trie.StateTrie over the same trie
// database, and compares every answer: reads, errors, roots, witnesses and
// the node sets committed. The first byte picks the scheme (bit 0: path)
// and the trie (bit 1: an account's storage trie, else the account trie).
// Then each operation is an opcode byte, whose upper bits pick one of
// fuzzTrieKeys keys, and for a write a value byte:
//
//	0 read the key (GetAccount / GetStorage)
//	1 write the key (UpdateAccount with the value as nonce and balance /
//	  UpdateStorage with a value of that many bytes)
//	2 delete the key, present or not
//	3 prefetch the key and the next seven keys
//	4 compare the roots (Hash)
//	5 compare the witnesses: the nodes each trie read, by path
//	6 commit, with the leaves: the same root and node set, written to the
//	  trie database, and both tries opened anew at the new root
//	7 prove the key: the same proof (the nodes it loads stay out of both
//	  witnesses)
//
// At the end both tries are committed and compared once more.
func FuzzSecureTrie(f *testing.F) {
	f.Add([]byte("\x00\x00\x11\x07\x22\x09\x13\x05\x04\x06\x00\x10\x32\x15\x05\x06"))
	f.Add([]byte("\x01\x03\x41\x01\x99\x02\x62\x05\x04\x06\x03\x05\x12\x31\x20\x06\x05"))
	f.Add([]byte("\x02\x01\x33\x01\x44\x02\x12\x00\x03\x03\x05\x06\x21\x07\x06\x05\x04"))
	f.Add([]byte("\x03\x02\x01\x22\x00\x12\x23\x00\x32\x24\x00\x05\x06\x00\x20\x05\x06"))
	f.Add([]byte("\x00\x11\x07\x29\x03\x06\x0f\x05\x4f\x05\x08\x05")) // proofs after a commit, then a read
	f.Add([]byte("\x03\x11\x07\x29\x03\x06\x1f\x05\x67\x18\x05\x04")) // the same in a storage trie, path scheme
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		config := triedb.HashDefaults
		if data[0]&1 == 1 {
			config = schemes[1].config
		}
		storage := data[0]&2 != 0
		var keys [fuzzTrieKeys]common.Address
		for i := range keys {
			keys[i] = common.BytesToAddress([]byte{0xfe, byte(i)})
		}
		tries := newFuzzTries(t, config, storage, keys[:fuzzTrieKeys/2])
		data = data[1:]
		for len(data) > 0 {
			op, key := data[0]&7, keys[int(data[0]>>3)%fuzzTrieKeys]
			data = data[1:]
			switch op {
			case 0:
				tries.read(key)
			case 1:
				var value byte
				if len(data) > 0 {
					value, data = data[0], data[1:]
				}
				tries.write(key, value)
			case 2:
				tries.delete(key)
			case 3:
				start := int(key[len(key)-1])
				var batch []common.Address
				for i := range 8 {
					batch = append(batch, keys[(start+i)%fuzzTrieKeys])
				}
				tries.prefetch(batch)
			case 4:
				if got, want := tries.ours.Hash(), tries.theirs.Hash(); got != want {
					t.Fatalf("Hash %x, go-ethereum %x", got, want)
				}
			case 5:
				tries.sameWitness()
			case 6:
				tries.commit()
			case 7:
				tries.prove(key)
			}
		}
		tries.commit()
	})
}

// fuzzTries are FuzzSecureTrie's two tries over one trie database.
type fuzzTries struct {
	t       *testing.T
	db      *triedb.Database
	storage bool
	owner   common.Hash
	root    common.Hash // the committed root both tries were opened at
	block   uint64
	ours    *SecureTrie
	theirs  *trie.StateTrie
}

// newFuzzTries makes a trie of the given keys with go-ethereum, commits
// it and opens both tries on it.
func newFuzzTries(t *testing.T, config *triedb.Config, storage bool, initial []common.Address) *fuzzTries {
	f := &fuzzTries{t: t, db: triedb.NewDatabase(rawdb.NewMemoryDatabase(), config), storage: storage, root: types.EmptyRootHash}
	if storage {
		f.owner = common.Hash{0xaa}
	}
	f.open()
	for i, key := range initial {
		f.write(key, byte(i+1))
	}
	f.commit()
	return f
}

// open opens both tries at the committed root.
func (f *fuzzTries) open() {
	id := trie.StateTrieID(f.root)
	if f.storage {
		id = trie.StorageTrieID(f.root, f.owner, f.root)
	}
	var err error
	if f.ours, err = OpenSecureTrie(id, f.db); err != nil {
		f.t.Fatal(err)
	}
	if f.theirs, err = trie.NewStateTrie(id, f.db); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fuzzTries) read(key common.Address) {
	if f.storage {
		got, err := f.ours.GetStorage(key, key[:])
		want, werr := f.theirs.GetStorage(key, key[:])
		if !bytes.Equal(got, want) || (err == nil) != (werr == nil) {
			f.t.Fatalf("GetStorage %x: %x, %v; go-ethereum %x, %v", key, got, err, want, werr)
		}
		return
	}
	got, err := f.ours.GetAccount(key)
	want, werr := f.theirs.GetAccount(key)
	if !reflect.DeepEqual(got, want) || (err == nil) != (werr == nil) {
		f.t.Fatalf("GetAccount %x: %v, %v; go-ethereum %v, %v", key, got, err, want, werr)
	}
}

// write sets key: an account with value as its nonce and balance, or a
// slot holding value+1 bytes (a storage value is never empty).
func (f *fuzzTries) write(key common.Address, value byte) {
	var err, werr error
	if f.storage {
		v := bytes.Repeat([]byte{value | 1}, int(value%32)+1)
		err, werr = f.ours.UpdateStorage(key, key[:], v), f.theirs.UpdateStorage(key, key[:], v)
	} else {
		acc := &types.StateAccount{Nonce: uint64(value), Balance: uint256.NewInt(uint64(value) << 40), Root: types.EmptyRootHash, CodeHash: types.EmptyCodeHash[:]}
		err, werr = f.ours.UpdateAccount(key, acc, 0), f.theirs.UpdateAccount(key, acc, 0)
	}
	if err != nil || werr != nil {
		f.t.Fatalf("update %x: %v; go-ethereum %v", key, err, werr)
	}
}

func (f *fuzzTries) delete(key common.Address) {
	var err, werr error
	if f.storage {
		err, werr = f.ours.DeleteStorage(key, key[:]), f.theirs.DeleteStorage(key, key[:])
	} else {
		err, werr = f.ours.DeleteAccount(key), f.theirs.DeleteAccount(key)
	}
	if err != nil || werr != nil {
		f.t.Fatalf("delete %x: %v; go-ethereum %v", key, err, werr)
	}
}

func (f *fuzzTries) prefetch(batch []common.Address) {
	var err, werr error
	if f.storage {
		slots := make([][]byte, len(batch))
		for i := range batch {
			slots[i] = batch[i][:]
		}
		err, werr = f.ours.PrefetchStorage(common.Address{}, slots), f.theirs.PrefetchStorage(common.Address{}, slots)
	} else {
		err, werr = f.ours.PrefetchAccount(batch), f.theirs.PrefetchAccount(batch)
	}
	if err != nil || werr != nil {
		f.t.Fatalf("prefetch: %v; go-ethereum %v", err, werr)
	}
}

func (f *fuzzTries) sameWitness() {
	got, want := f.ours.Witness(), f.theirs.Witness()
	if !maps.EqualFunc(got, want, bytes.Equal) {
		f.t.Fatalf("a witness of %d nodes, go-ethereum's %d", len(got), len(want))
	}
}

// prove compares the proofs of key's hash, an empty one included.
func (f *fuzzTries) prove(key common.Address) {
	got, want := memorydb.New(), memorydb.New()
	err, werr := f.ours.Prove(Keccak256(key[:]), got), f.theirs.Prove(Keccak256(key[:]), want)
	if (err == nil) != (werr == nil) || got.Len() != want.Len() {
		f.t.Fatalf("Prove %x: %d nodes, %v; go-ethereum %d nodes, %v", key, got.Len(), err, want.Len(), werr)
	}
	it := want.NewIterator(nil, nil)
	defer it.Release()
	for it.Next() {
		if blob, _ := got.Get(it.Key()); !bytes.Equal(blob, it.Value()) {
			f.t.Fatalf("Prove %x: the proof lacks node %x", key, it.Key())
		}
	}
}

// commit commits both tries, compares what they commit, writes it to the
// trie database if the root changed and opens both anew at the new root
// (go-ethereum's trie is not usable after Commit).
func (f *fuzzTries) commit() {
	gotRoot, gotSet := f.ours.Commit(true)
	wantRoot, wantSet := f.theirs.Commit(true)
	if gotRoot != wantRoot {
		f.t.Fatalf("Commit: root %x, go-ethereum %x", gotRoot, wantRoot)
	}
	if err := sameNodeSet(gotSet, wantSet); err != nil {
		f.t.Fatal(err)
	}
	if wantSet != nil {
		if err := sameLeaves(gotSet, wantSet); err != nil {
			f.t.Fatal(err)
		}
	}
	merged := trienode.NewMergedNodeSet()
	if wantSet != nil {
		if err := merged.Merge(wantSet); err != nil {
			f.t.Fatal(err)
		}
	}
	if wantRoot != f.root {
		// A storage trie's nodes go in under its own root as the state's,
		// as the other tests of SecureTrie do (the path scheme's layers
		// need a root that changes).
		f.block++
		updateDB(f.t, f.db, wantRoot, f.root, f.block, merged)
	}
	f.root = wantRoot
	f.open()
}

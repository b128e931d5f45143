package triehash

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestTrieBatchDenseKeys: batches over a small set of short keys of mixed
// lengths (so that keys are often prefixes of one another, repeat, and are
// deleted and set again, and branches empty and collapse), on tries
// committed to a store, against go-ethereum's loop of Update.
func TestTrieBatchDenseKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	alphabet := []byte{0x00, 0x01, 0x10, 0x11, 0xab, 0xac, 0xba, 0xff}
	randomKey := func() []byte {
		k := make([]byte, rng.IntN(4))
		for i := range k {
			k[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if rng.IntN(3) == 0 {
			k = append([]byte{0xab}, k...) // below an extension root, often
		}
		return k
	}
	trials := 300
	if testing.Short() {
		trials = 40
	}
	split := 0
	for trial := range trials {
		store := newPathStore()
		var keys, values [][]byte
		for range rng.IntN(300) {
			keys = append(keys, randomKey())
			values = append(values, randomValue(rng, 40))
		}
		root := gethCommitted(t, store, keys, values)
		var ops []op
		for range 32 + rng.IntN(100) {
			o := op{key: randomKey()}
			if rng.IntN(3) != 0 {
				o.value = randomValue(rng, 40)
			}
			ops = append(ops, o)
		}
		gt := gethUpdated(t, store, root, ops)
		tr, err := Options{Workers: 2 + trial%3}.NewTrie(root, store.source())
		if err != nil {
			t.Fatal(err)
		}
		bk, bv := batchOf(ops)
		bySubtree, err := tr.updateBatch(bk, bv)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if bySubtree {
			split++
		}
		wantRoot, set := gt.Commit(false)
		checkCommit(t, fmt.Sprintf("trial %d: ", trial), tr, wantRoot, gethChanges(set))
	}
	if split == 0 {
		t.Fatal("no batch was applied subtree by subtree")
	}
	t.Logf("%d of %d batches applied subtree by subtree", split, trials)
}

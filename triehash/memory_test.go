package triehash

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// accountLikeSet returns n sorted random 32-byte keys with values of
// valueLen bytes: the shape of a state trie, without hashing addresses.
func accountLikeSet(seed uint64, n, valueLen int) (keys, values [][]byte) {
	rng := rand.New(rand.NewPCG(seed, 7))
	keys = make([][]byte, n)
	for i := range keys {
		keys[i] = make([]byte, 32)
		for j := range keys[i] {
			keys[i][j] = byte(rng.Uint32())
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	keys = slices.CompactFunc(keys, bytes.Equal)
	for range keys {
		v := make([]byte, valueLen)
		for j := range v {
			v[j] = byte(rng.Uint32())
		}
		values = append(values, v)
	}
	return keys, values
}

// maxBuilderBytes bounds what a fresh Builder allocates to build a state
// trie of any size: its buffers for a chunk of keys, the open branches and
// the deferred queue, about 20 KB on 64-bit platforms. go-ethereum's
// StackTrie holds 22 to 25 KB for 100,000 to 1,000,000 accounts
// (BenchmarkSortedAccountsMemory); a Builder must stay below that.
const maxBuilderBytes = 22 << 10

// TestBuilderMemoryBounded checks what a Builder allocates: a bounded
// amount, once, however many keys, and nothing once warm, for account-sized
// values and for values of 2 KiB.
func TestBuilderMemoryBounded(t *testing.T) {
	if verifyPrecomputed {
		t.Skip("with triehash_verify a Builder keeps every value of its chunk, for the check")
	}
	keys, values := accountLikeSet(1, 100000, 80)
	want, _ := (Options{Workers: 1}).Root(keys, values)

	total, peak, got := measureBuilder(t, keys, values)
	if got != want {
		t.Fatalf("root %x, want %x", got, want)
	}
	if total > maxBuilderBytes {
		t.Errorf("a fresh Builder allocated %d bytes for %d keys, want at most %d", total, len(keys), maxBuilderBytes)
	}
	// The live heap also holds what the runtime and the test allocate
	// meanwhile, a few hundred bytes.
	if limit := uint64(maxBuilderBytes + 2<<10); peak > limit {
		t.Errorf("a Builder held up to %d bytes of live heap for %d keys, want at most %d", peak, len(keys), limit)
	}
	t.Logf("%d keys: %d bytes allocated, %d bytes of live heap at most", len(keys), total, peak)

	big := make([][]byte, 2000)
	for i := range big {
		big[i] = bytes.Repeat([]byte{byte(i)}, 2048)
	}
	for _, tc := range []struct {
		name   string
		onNode NodeFunc
		keys   [][]byte
		values [][]byte
	}{
		{"accounts", nil, keys[:20000], values[:20000]},
		{"accounts/onNode", func([]byte, [32]byte, []byte) {}, keys[:20000], values[:20000]},
		{"2KiB values", nil, keys[:len(big)], big},
		{"2KiB values/onNode", func([]byte, [32]byte, []byte) {}, keys[:len(big)], big},
	} {
		b := NewBuilder(tc.onNode)
		build := func() {
			b.Reset()
			feed(t, b, tc.keys, tc.values)
			b.Hash()
		}
		build() // warm up
		if allocs := testing.AllocsPerRun(3, build); allocs != 0 {
			t.Errorf("%s: a warm Builder made %v allocations per build of %d keys, want 0", tc.name, allocs, len(tc.keys))
		}
	}
}

// measureBuilder builds the trie of keys with fresh Builders: once to count
// the bytes it allocates in all, then to sample the live heap it holds, as
// BenchmarkSortedAccountsMemory does.
func measureBuilder(t *testing.T, keys, values [][]byte) (total, peak uint64, root [32]byte) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// Direct calls, not feed: only the Builder may allocate in this stretch.
	b := NewBuilder(nil)
	for i := range keys {
		if err := b.Update(keys[i], values[i]); err != nil {
			t.Fatal(err)
		}
	}
	root = b.Hash()
	runtime.ReadMemStats(&after)
	total = after.TotalAlloc - before.TotalAlloc

	peak, again := measurePeak(t, testPeakPasses, keys, values,
		func() trieUpdater { return NewBuilder(nil) },
		func(u trieUpdater) [32]byte { return u.(*Builder).Hash() })
	if again != root {
		t.Fatalf("root %x, then %x from the same keys", root, again)
	}
	return total, peak, root
}

package triehash

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/trie"
)

// rangeKinds are the key sets of the range proof tests: go-ethereum's
// range proofs need edge keys of one length, so besides secure keys and
// short keys that are prefixes of one another (whose ranges go-ethereum
// rejects) there are short keys of one length sharing long prefixes,
// whose tries embed small nodes.
var rangeKinds = append(slices.Clone(keyKinds), keyKind{"fixed", func(rng *rand.Rand, n int) [][]byte {
	keys, _ := randomSet(rng, n, 3, false, 1)
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return keys
}})

// rangeDecision is what a range proof verifier decided.
type rangeDecision struct {
	more     bool
	err      error
	panicked bool
	hangs    bool // go-ethereum went on reading nodes for ever
}

func (d rangeDecision) String() string {
	switch {
	case d.hangs:
		return "endless loop"
	case d.panicked:
		return fmt.Sprintf("panic: %v", d.err)
	case d.err != nil:
		return fmt.Sprintf("error: %v", d.err)
	}
	return fmt.Sprintf("accepted, more %v", d.more)
}

// gethRange runs go-ethereum's VerifyRangeProof, its panics recovered; a
// nil proof is passed as no proof database.
func gethRange(root [32]byte, firstKey []byte, keys, values, proof [][]byte) (d rangeDecision) {
	var db ethdb.KeyValueReader
	if proof != nil {
		db = proofDB(proof)
	}
	return gethRangeFrom(root, firstKey, keys, values, db)
}

func gethRangeFrom(root [32]byte, firstKey []byte, keys, values [][]byte, db ethdb.KeyValueReader) (d rangeDecision) {
	defer func() {
		if r := recover(); r != nil {
			d = rangeDecision{err: fmt.Errorf("%v", r), panicked: true, hangs: isEndless(r)}
		}
	}()
	if db != nil {
		db = &endlessReader{db: db}
	}
	// go-ethereum's verifier changes nothing it is given, but its tries
	// keep the values: hand it copies so that ours sees the same input.
	keys, values = cloneAll(keys), cloneAll(values)
	more, err := trie.VerifyRangeProof(common.Hash(root), bytes.Clone(firstKey), keys, values, db)
	return rangeDecision{more: more, err: err}
}

func cloneAll(list [][]byte) [][]byte {
	if list == nil {
		return nil
	}
	out := make([][]byte, len(list))
	for i, b := range list {
		out[i] = bytes.Clone(b)
	}
	return out
}

// endlessReader stops go-ethereum's verifiers, by a panic of errEndless,
// when they read more nodes than any proof of the tests can make them
// read: on proofs that lead them round in a cycle, where they would loop
// for ever.
type endlessReader struct {
	db    ethdb.KeyValueReader
	reads int
}

var errEndless = errors.New("endless loop")

// isEndless reports whether a recovered panic is endlessReader's.
func isEndless(r any) bool {
	err, ok := r.(error)
	return ok && errors.Is(err, errEndless)
}

func (r *endlessReader) Get(key []byte) ([]byte, error) {
	if r.reads++; r.reads > 4096 {
		panic(errEndless)
	}
	return r.db.Get(key)
}

func (r *endlessReader) Has(key []byte) (bool, error) { return r.db.Has(key) }

// ourRange runs VerifyRangeProof; a panic fails the test.
func ourRange(t testing.TB, root [32]byte, firstKey []byte, keys, values, proof [][]byte) rangeDecision {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("VerifyRangeProof panics: %v (first key %x, %d keys, %d proof nodes)", r, firstKey, len(keys), len(proof))
		}
	}()
	more, err := VerifyRangeProof(root, firstKey, keys, values, proof)
	return rangeDecision{more: more, err: err}
}

// agree reports how ours differs from go-ethereum's decision, "" if it
// does not: the same acceptance and more, and an error where go-ethereum
// panics.
func agree(got, want rangeDecision) string {
	switch {
	case want.hangs != errors.Is(got.err, ErrProofCycle):
		return fmt.Sprintf("got %v, go-ethereum %v", got, want)
	case want.panicked && got.err == nil:
		return fmt.Sprintf("got %v, go-ethereum %v", got, want)
	case want.panicked:
		return ""
	case (got.err == nil) != (want.err == nil), got.err == nil && got.more != want.more:
		return fmt.Sprintf("got %v, go-ethereum %v", got, want)
	}
	return ""
}

// rangeCase is one range proof to check.
type rangeCase struct {
	name         string
	root         [32]byte
	firstKey     []byte
	keys, values [][]byte
	proof        [][]byte
}

// sortedTrie is a provenTrie's entries in key order.
type sortedTrie struct {
	*provenTrie
	sorted, sortedValues [][]byte
}

func newSortedTrie(t testing.TB, rng *rand.Rand, kind keyKind, n int) *sortedTrie {
	p := newProvenTrie(t, rng, kind, n)
	s := &sortedTrie{provenTrie: p}
	order := make([]int, len(p.keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(p.keys[a], p.keys[b]) })
	for _, i := range order {
		s.sorted = append(s.sorted, p.keys[i])
		s.sortedValues = append(s.sortedValues, p.values[i])
	}
	return s
}

// edgeProof is go-ethereum's proof of both edges, in one list.
func (s *sortedTrie) edgeProof(t testing.TB, first, last []byte) [][]byte {
	t.Helper()
	if last == nil {
		return gethProve(t, s.geth, first)
	}
	return gethProve(t, s.geth, first, last)
}

// rangeOf is the case of the entries [lo, hi) with firstKey as first edge.
func (s *sortedTrie) rangeOf(t testing.TB, name string, firstKey []byte, lo, hi int) rangeCase {
	c := rangeCase{name: name, root: s.root, firstKey: firstKey,
		keys: slices.Clone(s.sorted[lo:hi]), values: slices.Clone(s.sortedValues[lo:hi])}
	var last []byte
	if hi > lo {
		last = s.sorted[hi-1]
	}
	c.proof = s.edgeProof(t, firstKey, last)
	return c
}

// nextKey returns the key of key's length just above it, if any.
func nextKey(key []byte) ([]byte, bool) {
	next := bytes.Clone(key)
	for i := len(next) - 1; i >= 0; i-- {
		next[i]++
		if next[i] != 0 {
			return next, true
		}
	}
	return nil, false
}

// prevKey returns the key of key's length just below it, if any.
func prevKey(key []byte) ([]byte, bool) {
	prev := bytes.Clone(key)
	for i := len(prev) - 1; i >= 0; i-- {
		prev[i]--
		if prev[i] != 0xff {
			return prev, true
		}
	}
	return nil, false
}

// rangeCases returns good ranges of s: at the start, in the middle and at
// the end, with edges present and absent, single keys, empty ranges and the
// whole trie.
func (s *sortedTrie) rangeCases(t testing.TB, rng *rand.Rand) []rangeCase {
	n := len(s.sorted)
	var cases []rangeCase
	for range 8 {
		lo := rng.IntN(n)
		hi := lo + 1 + rng.IntN(min(n-lo, 60))
		cases = append(cases, s.rangeOf(t, "middle", s.sorted[lo], lo, hi))
		if before, ok := prevKey(s.sorted[lo]); ok && (lo == 0 || bytes.Compare(before, s.sorted[lo-1]) > 0) {
			cases = append(cases, s.rangeOf(t, "middle, first edge absent", before, lo, hi))
		}
		cases = append(cases, s.rangeOf(t, "single key", s.sorted[lo], lo, lo+1))
		cases = append(cases, s.rangeOf(t, "start", nil, 0, hi))
		cases = append(cases, s.rangeOf(t, "start, zero first edge", make([]byte, len(s.sorted[0])), 0, hi))
		cases = append(cases, s.rangeOf(t, "end", s.sorted[lo], lo, n))
		if after, ok := nextKey(s.sorted[lo]); ok && (lo+1 == n || bytes.Compare(after, s.sorted[lo+1]) < 0) {
			cases = append(cases, s.rangeOf(t, "empty, between keys", after, lo+1, lo+1))
		}
	}
	// The last key is the only one after these ranges, often in the very
	// next slot of a branch.
	for lo := range min(n-1, 20) {
		cases = append(cases, s.rangeOf(t, "all but the last key", s.sorted[n-2-lo], n-2-lo, n-1))
	}
	last := s.sorted[n-1]
	if after, ok := nextKey(last); ok {
		cases = append(cases, s.rangeOf(t, "empty, past the last key", after, n, n))
	}
	cases = append(cases, s.rangeOf(t, "empty, past the last key, all 0xff", bytes.Repeat([]byte{0xff}, len(last)+1), n, n))
	cases = append(cases, s.rangeOf(t, "empty, at a key", s.sorted[n/2], n/2, n/2))
	whole := rangeCase{name: "whole trie, no proof", root: s.root, keys: s.sorted, values: s.sortedValues}
	cases = append(cases, whole)
	return cases
}

// rangeTamperings change a good range case.
var rangeTamperings = []struct {
	name string
	do   func(rng *rand.Rand, c rangeCase) rangeCase
}{
	{"wrong root", func(_ *rand.Rand, c rangeCase) rangeCase { c.root[5] ^= 1; return c }},
	{"value changed", func(rng *rand.Rand, c rangeCase) rangeCase {
		if len(c.values) == 0 {
			return c
		}
		c.values = slices.Clone(c.values)
		i := rng.IntN(len(c.values))
		c.values[i] = append(bytes.Clone(c.values[i]), 1)
		return c
	}},
	{"middle element missing", func(rng *rand.Rand, c rangeCase) rangeCase {
		if len(c.keys) < 3 {
			return c
		}
		i := 1 + rng.IntN(len(c.keys)-2)
		c.keys, c.values = slices.Delete(slices.Clone(c.keys), i, i+1), slices.Delete(slices.Clone(c.values), i, i+1)
		return c
	}},
	{"first element missing", func(_ *rand.Rand, c rangeCase) rangeCase {
		if len(c.keys) < 2 {
			return c
		}
		c.keys, c.values = c.keys[1:], c.values[1:]
		return c
	}},
	{"last element missing", func(_ *rand.Rand, c rangeCase) rangeCase {
		if len(c.keys) < 2 {
			return c
		}
		c.keys, c.values = c.keys[:len(c.keys)-1], c.values[:len(c.values)-1]
		return c
	}},
	{"extra element", func(rng *rand.Rand, c rangeCase) rangeCase {
		if len(c.keys) == 0 {
			return c
		}
		i := rng.IntN(len(c.keys))
		extra, ok := nextKey(c.keys[i])
		if !ok || i+1 < len(c.keys) && bytes.Compare(extra, c.keys[i+1]) >= 0 {
			return c
		}
		c.keys, c.values = slices.Insert(slices.Clone(c.keys), i+1, extra), slices.Insert(slices.Clone(c.values), i+1, []byte{7})
		return c
	}},
	{"keys swapped", func(rng *rand.Rand, c rangeCase) rangeCase {
		if len(c.keys) < 2 {
			return c
		}
		i := rng.IntN(len(c.keys) - 1)
		c.keys = slices.Clone(c.keys)
		c.keys[i], c.keys[i+1] = c.keys[i+1], c.keys[i]
		return c
	}},
	{"key repeated", func(rng *rand.Rand, c rangeCase) rangeCase {
		if len(c.keys) == 0 {
			return c
		}
		i := rng.IntN(len(c.keys))
		c.keys, c.values = slices.Insert(slices.Clone(c.keys), i, c.keys[i]), slices.Insert(slices.Clone(c.values), i, c.values[i])
		return c
	}},
	{"empty value", func(rng *rand.Rand, c rangeCase) rangeCase {
		if len(c.values) == 0 {
			return c
		}
		c.values = slices.Clone(c.values)
		c.values[rng.IntN(len(c.values))] = nil
		return c
	}},
	{"value dropped", func(_ *rand.Rand, c rangeCase) rangeCase {
		if len(c.values) == 0 {
			return c
		}
		c.values = c.values[:len(c.values)-1]
		return c
	}},
	{"first edge after the first key", func(_ *rand.Rand, c rangeCase) rangeCase {
		if len(c.keys) == 0 {
			return c
		}
		if after, ok := nextKey(c.keys[0]); ok {
			c.firstKey = after
		}
		return c
	}},
	{"proof dropped", func(_ *rand.Rand, c rangeCase) rangeCase {
		if c.proof == nil {
			return c
		}
		c.proof = [][]byte{}
		return c
	}},
	{"proof node dropped", onProof(dropProofNode)},
	{"proof byte changed", onProof(changeProofByte)},
	{"junk nodes added", onProof(addJunkNodes)},
}

// onProof makes a tampering of proofs one of range cases that have a proof:
// a nil proof, which says the keys are the whole trie, stays nil.
func onProof(tamper func(*rand.Rand, [][]byte) [][]byte) func(*rand.Rand, rangeCase) rangeCase {
	return func(rng *rand.Rand, c rangeCase) rangeCase {
		if c.proof != nil {
			c.proof = tamper(rng, c.proof)
		}
		return c
	}
}

// TestVerifyRangeProofMatchesGeth: on good ranges of random tries and on
// every tampering of them, VerifyRangeProof accepts exactly what
// go-ethereum accepts, with the same more, and errs where it panics.
func TestVerifyRangeProofMatchesGeth(t *testing.T) {
	for _, kind := range rangeKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, 22))
			s := newSortedTrie(t, rng, kind, 300)
			decisions := map[string]int{}
			check := func(c rangeCase, how string) {
				want := gethRange(c.root, c.firstKey, c.keys, c.values, c.proof)
				got := ourRange(t, c.root, c.firstKey, c.keys, c.values, c.proof)
				if d := agree(got, want); d != "" {
					t.Fatalf("%s, %s: first key %x, keys %x..: %s", c.name, how, c.firstKey, c.keys[:min(len(c.keys), 3)], d)
				}
				switch {
				case want.panicked:
					decisions["go-ethereum panics"]++
				case want.err != nil:
					decisions["rejected"]++
				default:
					decisions[fmt.Sprintf("accepted, more %v", want.more)]++
				}
			}
			for _, c := range s.rangeCases(t, rng) {
				check(c, "untampered")
				for _, tamper := range rangeTamperings {
					check(tamper.do(rng, c), tamper.name)
				}
			}
			t.Log(decisions)
			for _, d := range []string{"rejected", "accepted, more true", "accepted, more false"} {
				if decisions[d] == 0 {
					t.Errorf("no case %q: the test lost its coverage (%v)", d, decisions)
				}
			}
		})
	}
}

// TestProofCycle: a source that files an extension with an empty key
// under the hash it refers to sends go-ethereum's verifiers round for
// ever; ours return ErrProofCycle.
func TestProofCycle(t *testing.T) {
	root := [32]byte{0xee}
	node := append([]byte{0xe2, 0x80, 0xa0}, root[:]...) // [empty key, root]
	db := memorydb.New()
	db.Put(root[:], node)
	if _, err, _ := gethVerifyProof(root, []byte{1}, &endlessReader{db: db}); !errors.Is(err, errEndless) {
		t.Fatalf("go-ethereum's VerifyProof: %v, want an endless loop", err)
	}
	if _, err := VerifyProofFrom(root, []byte{1}, dbSource{db}); !errors.Is(err, ErrProofCycle) {
		t.Errorf("VerifyProofFrom: %v, want ErrProofCycle", err)
	}
	for _, keys := range [][][]byte{nil, {{1}}, {{1}, {2}}} {
		values := slices.Repeat([][]byte{{1}}, len(keys))
		want := gethRangeFrom(root, []byte{1}, keys, values, db)
		if !want.hangs {
			t.Fatalf("go-ethereum's VerifyRangeProof with %d keys: %v, want an endless loop", len(keys), want)
		}
		if _, err := VerifyRangeProofFrom(root, []byte{1}, keys, values, dbSource{db}); !errors.Is(err, ErrProofCycle) {
			t.Errorf("VerifyRangeProofFrom with %d keys: %v, want ErrProofCycle", len(keys), err)
		}
	}
}

// TestInsertRangeMatchesInsert: insertRange, which builds the runs of keys
// that reach empty slots at once, leaves the tree that inserting the keys
// one by one leaves, on tries of every key kind, into an empty trie and
// into one that already holds keys among and equal to the batch's.
func TestInsertRangeMatchesInsert(t *testing.T) {
	for _, kind := range rangeKinds {
		t.Run(kind.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(23, 24))
			for round := range 40 {
				keys := kind.make(rng, 1+rng.IntN(300))
				slices.SortFunc(keys, bytes.Compare)
				// The batch and the keys held before it interleave and overlap,
				// except in every fourth round, which starts empty; in every
				// other round few keys are held, so that long runs of the
				// batch reach empty slots.
				var batch, held [][]byte
				for _, key := range keys {
					if rng.IntN(2) == 0 {
						batch = append(batch, key)
					}
					if round%4 != 0 && rng.IntN(3+30*(round%2)) == 0 {
						held = append(held, key)
					}
				}
				if len(batch) == 0 {
					continue
				}
				values := make([][]byte, len(batch))
				for i := range values {
					values[i] = randomValue(rng, 40)
				}
				one, bulk := &Trie{}, &Trie{}
				for _, tr := range []*Trie{one, bulk} {
					for _, key := range held {
						if err := tr.Update(key, []byte{1, 2, 3}); err != nil {
							t.Fatal(err)
						}
					}
					tr.Hash()
				}
				for i, key := range batch {
					if err := one.Update(key, values[i]); err != nil {
						t.Fatal(err)
					}
				}
				if err := bulk.insertRange(batch, values); err != nil {
					t.Fatal(err)
				}
				checkAllFiled(t, fmt.Sprintf("round %d, insertRange", round), bulk)
				if got, want := bulk.Hash(), one.Hash(); got != want {
					t.Fatalf("round %d: %d keys into %d: root %x, one by one %x", round, len(batch), len(held), got, want)
				}
			}
		})
	}
}

// TestVerifyRangeProofLongKeys: go-ethereum takes keys of any length, so
// a whole trie of keys longer than a Builder takes still verifies.
func TestVerifyRangeProofLongKeys(t *testing.T) {
	var keys, values [][]byte
	for i := range 5 {
		key := bytes.Repeat([]byte{0xab}, MaxKeyLength+100)
		key[len(key)-1-i%2] = byte(i)
		keys = append(keys, key)
		values = append(values, []byte{byte(i + 1)})
	}
	slices.SortFunc(keys, bytes.Compare)
	st := trie.NewStackTrie(nil)
	for i := range keys {
		st.Update(keys[i], values[i])
	}
	root := [32]byte(st.Hash())
	for _, r := range [][32]byte{root, {1}} {
		want := gethRange(r, nil, keys, values, nil)
		got := ourRange(t, r, nil, keys, values, nil)
		if d := agree(got, want); d != "" || (r == root) != (got.err == nil) {
			t.Errorf("root %x: %s (%v)", r[:4], d, got)
		}
	}
}

// TestVerifyRangeProofLarge: ranges long enough that their subtrees are
// hashed in several groups on several goroutines (run with -race), and in
// one group by a lone goroutine, decide as go-ethereum's do, good and with
// one value changed.
func TestVerifyRangeProofLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	s := newSortedTrie(t, rng, keyKinds[0], 4000)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		for _, span := range [][2]int{{100, 2100}, {1, 4000}, {0, 3999}} {
			c := s.rangeOf(t, "large", s.sorted[span[0]], span[0], span[1])
			for _, changed := range []bool{false, true} {
				if changed {
					c.values = slices.Clone(c.values)
					c.values[len(c.values)/3] = []byte{0xbe, 0xef}
				}
				want := gethRange(c.root, c.firstKey, c.keys, c.values, c.proof)
				got := ourRange(t, c.root, c.firstKey, c.keys, c.values, c.proof)
				if d := agree(got, want); d != "" || want.err != nil != changed {
					t.Errorf("GOMAXPROCS %d, keys %d to %d, value changed %v: %s (go-ethereum %v)", procs, span[0], span[1], changed, d, want)
				}
			}
		}
	}
}

// TestVerifyRangeProofRejectsPrefixes: a range in which a key is a prefix
// of the next is rejected, by go-ethereum and by us with ErrRangeKeys,
// even when its keys and proof are the trie's own.
func TestVerifyRangeProofRejectsPrefixes(t *testing.T) {
	keys := [][]byte{[]byte("a"), []byte("ab"), []byte("b")}
	values := [][]byte{{1}, {2}, {3}}
	gt := trie.NewEmpty(nil)
	for i := range keys {
		gt.MustUpdate(keys[i], values[i])
	}
	root := [32]byte(gt.Hash())
	proof := gethProve(t, gt, keys[0], keys[2])
	for _, p := range [][][]byte{proof, nil} {
		if want := gethRange(root, keys[0], keys, values, p); want.err == nil {
			t.Fatalf("go-ethereum accepts a range with a prefix key (proof %v)", p != nil)
		}
		if _, err := VerifyRangeProof(root, keys[0], keys, values, p); !errors.Is(err, ErrRangeKeys) {
			t.Errorf("proof %v: %v, want ErrRangeKeys", p != nil, err)
		}
	}
}

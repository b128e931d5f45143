package triehash

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb/database"

	"github.com/keccakroot/keccakroot/internal/benchturns"
	"github.com/keccakroot/keccakroot/internal/nodeset"
)

// memNodes is a committed trie's nodes by path, served from memory without
// checks to go-ethereum's trie.Trie and to a Trie alike, so that the
// benchmarks time the tries and not the store. Like a database's cache it
// holds almost no Go pointers, so the collector does not scan it on every
// cycle. It is filled before the benchmarks and only read after, so the
// batch methods' goroutines may read it at once.
type memNodes struct {
	short map[uint64]uint64 // paths of up to 15 nibbles, packed: see shortPath
	long  map[string]uint64 // longer paths
	arena []byte            // the nodes, one after another
}

func newMemNodes() *memNodes {
	return &memNodes{short: map[uint64]uint64{}, long: map[string]uint64{}}
}

// shortPath packs a path of up to 15 nibbles and its length into a word.
func shortPath(path []byte) (uint64, bool) {
	if len(path) > 15 {
		return 0, false
	}
	k := uint64(len(path))
	for _, nib := range path {
		k = k<<4 | uint64(nib)
	}
	return k, true
}

func (m *memNodes) put(path, blob []byte) {
	span := uint64(len(m.arena))<<24 | uint64(len(blob)) // offset and length
	m.arena = append(m.arena, blob...)
	if k, ok := shortPath(path); ok {
		m.short[k] = span
	} else {
		m.long[string(path)] = span
	}
}

func (m *memNodes) get(path []byte) []byte {
	var span uint64
	var ok bool
	if k, short := shortPath(path); short {
		span, ok = m.short[k]
	} else {
		span, ok = m.long[string(path)]
	}
	if !ok {
		return nil
	}
	off, n := span>>24, span&(1<<24-1)
	return m.arena[off : off+n : off+n]
}

func (m *memNodes) NodeReader(common.Hash) (database.NodeReader, error) { return gethReader{m}, nil }

type gethReader struct{ m *memNodes }

func (r gethReader) Node(_ common.Hash, path []byte, _ common.Hash) ([]byte, error) {
	return r.m.get(path), nil
}

func (m *memNodes) Node(path []byte, _ [32]byte) ([]byte, error) { return m.get(path), nil }

// benchState is a committed state trie of random accounts.
type benchState struct {
	root  [32]byte
	nodes *memNodes
	keys  [][]byte // the hashed addresses, sorted
}

var benchStates = map[int]*benchState{}

func committedAccounts(b *testing.B, n int) *benchState {
	if s, ok := benchStates[n]; ok {
		return s
	}
	accounts := benchAccounts(b, n)
	s := &benchState{nodes: newMemNodes(), keys: accounts.sortedKeys}
	builder := NewBuilder(func(path []byte, _ [32]byte, blob []byte) {
		s.nodes.put(path, blob)
	})
	feed(b, builder, accounts.sortedKeys, accounts.sortedValues)
	s.root = builder.Hash()
	benchStates[n] = s
	return s
}

// blockChanges returns a block's worth of changes to s: 80% changed
// accounts, 15% new ones and 5% deleted.
func blockChanges(s *benchState, n int) []op {
	rng := rand.New(rand.NewPCG(uint64(n), 2))
	ops := make([]op, n)
	for i := range ops {
		value := AppendAccount(nil, &Account{Nonce: rng.Uint64N(1000), StorageRoot: EmptyRoot, CodeHash: EmptyCodeHash})
		switch r := rng.IntN(100); {
		case r < 80:
			ops[i] = op{s.keys[rng.IntN(len(s.keys))], value}
		case r < 95:
			ops[i] = op{crypto.Keccak256(fmt.Appendf(nil, "new %d", i)), value}
		default:
			ops[i] = op{key: s.keys[rng.IntN(len(s.keys))]}
		}
	}
	return ops
}

// blockTrie is one implementation's side of BenchmarkTrieBlock.
type blockTrie interface {
	Update(k, v []byte) error
	UpdateBatch(keys, values [][]byte) error
	Prefetch(keys [][]byte) error
	Hash() common.Hash
}

// oursAsGeth gives a Trie go-ethereum's Hash signature.
type oursAsGeth struct{ *Trie }

func (t oursAsGeth) Hash() common.Hash { return t.Trie.Hash() }

// trieNames are the implementations the Trie benchmarks compare, in the order
// of openers.
var trieNames = []string{"go-ethereum", "keccakroot"}

// openers returns, for each of trieNames, a function that opens a trie at the
// root of s.
func openers(b *testing.B, s *benchState) []func() blockTrie {
	return []func() blockTrie{
		func() blockTrie {
			gt, err := trie.New(trie.TrieID(common.Hash(s.root)), s.nodes)
			if err != nil {
				b.Fatal(err)
			}
			return gt
		},
		func() blockTrie {
			tr, err := NewTrie(s.root, s.nodes)
			if err != nil {
				b.Fatal(err)
			}
			return oursAsGeth{tr}
		},
	}
}

// benchProcs are the GOMAXPROCS values the Trie benchmarks run at.
var benchProcs = []int{1, 2}

// BenchmarkTrieBlock opens a state trie of a million accounts at its root,
// applies a block's changes (80% changed accounts, 15% new, 5% deleted)
// and hashes it, with go-ethereum's trie.Trie and with Trie taking turns
// (benchturns). op=hash times Hash alone, the changes applied untimed
// before each turn; op=update+hash times opening, changing and hashing;
// op=prefetch+update+hash does the same after each side's Prefetch of the
// block's keys, the way go-ethereum's state prefetcher loads a block's
// accounts before they are updated one by one; op=batch+hash applies the
// changes in one UpdateBatch (go-ethereum's and Trie's), and
// op=batch+hash/layout=scattered with each key and value an allocation of
// its own, as a caller's decoded changes are. All report ns per
// change and the speed-up as metrics, at procs=1 and procs=2 (GOMAXPROCS,
// which both tries' Hash, Prefetch and UpdateBatch spread over). op=memory
// reports the live heap each trie holds after Hash, per change (the nodes it
// loaded included).
func BenchmarkTrieBlock(b *testing.B) {
	accounts := 1000000
	if testing.Short() {
		accounts = 10000
	}
	s := committedAccounts(b, accounts)
	open := openers(b, s)
	for _, changes := range []int{1000, 10000} {
		ops := blockChanges(s, changes)
		check := rootCheck(b, gethBlockRoot(b, s, ops))
		prefix := fmt.Sprintf("accounts=%d/changes=%d", accounts, changes)
		benchturns.AtProcs(b, prefix+"/op=hash", benchProcs, func(b *testing.B) {
			turns := hashTurns(b, open, ops, check)
			reportBlockTurns(b, benchturns.Measure(b, 1, turns), changes, trieNames)
			counted := open[1]().(oursAsGeth)
			applyAll(b, counted, ops)
			b.ReportMetric(float64(counted.pendingBlocks())/float64(changes), "blocks/change")
		})
		benchturns.AtProcs(b, prefix+"/op=update+hash", benchProcs, func(b *testing.B) {
			turns := openedTurns(open, func(impl int, tr blockTrie) {
				applyAll(b, tr, ops)
				check(impl, tr.Hash())
			})
			reportBlockTurns(b, benchturns.Measure(b, 1, turns), changes, trieNames)
		})
		batchKeys, batchValues := batchOf(ops)
		benchturns.AtProcs(b, prefix+"/op=prefetch+update+hash", benchProcs, func(b *testing.B) {
			turns := openedTurns(open, func(impl int, tr blockTrie) {
				if err := tr.Prefetch(batchKeys); err != nil {
					b.Fatal(err)
				}
				applyAll(b, tr, ops)
				check(impl, tr.Hash())
			})
			reportBlockTurns(b, benchturns.Measure(b, 1, turns), changes, trieNames)
		})
		// UpdateBatch of the block's pairs as blockChanges makes them (keys
		// taken at random from the state's key buffer, values allocated one
		// after another), and of a copy with each key and value an
		// allocation of its own, far apart (layout=scattered).
		scatteredKeys, scatteredValues := scatterPairs(batchKeys, batchValues, uint64(changes))
		for _, layout := range layouts {
			keys, values, name := batchKeys, batchValues, prefix+"/op=batch+hash"
			if layout == "scattered" {
				keys, values, name = scatteredKeys, scatteredValues, name+"/layout=scattered"
			}
			benchturns.AtProcs(b, name, benchProcs, func(b *testing.B) {
				turns := openedTurns(open, func(impl int, tr blockTrie) {
					if err := tr.UpdateBatch(keys, values); err != nil {
						b.Fatal(err)
					}
					check(impl, tr.Hash())
				})
				reportBlockTurns(b, benchturns.Measure(b, 1, turns), changes, trieNames)
			})
		}
		benchturns.AtProcs(b, prefix+"/op=commit", benchProcs, func(b *testing.B) {
			reportBlockTurns(b, benchturns.Measure(b, 1, commitTurns(b, open, ops, check)), changes, trieNames)
		})
		b.Run(prefix+"/op=memory", func(b *testing.B) {
			var held [2]float64
			var books float64
			for b.Loop() {
				for impl := range open {
					before := liveHeap()
					tr := open[impl]()
					applyAll(b, tr, ops)
					if ours, ok := tr.(oursAsGeth); ok {
						books += float64(ours.bookkeeping())
					}
					check(impl, tr.Hash())
					held[impl] += float64(liveHeap() - before)
					runtime.KeepAlive(tr)
				}
			}
			for impl, name := range trieNames {
				b.ReportMetric(held[impl]/float64(b.N*changes), "B/change-"+name)
			}
			b.ReportMetric(books/float64(b.N*changes), "B/change-keccakroot-bookkeeping")
		})
	}
}

// BenchmarkTrieStorage is BenchmarkTrieBlock's op=hash for the commonest
// trie of a block: a storage trie of 2,000 slots of which a block changes
// 5, where Hash's fixed costs show rather than its batching.
func BenchmarkTrieStorage(b *testing.B) {
	s := committedAccounts(b, 2000)
	const changes = 5
	ops := blockChanges(s, changes)
	turns := hashTurns(b, openers(b, s), ops, rootCheck(b, gethBlockRoot(b, s, ops)))
	reportBlockTurns(b, benchturns.Measure(b, 1, turns), changes, trieNames)
}

// rootCheck returns a check that fails b unless a root is want.
func rootCheck(b *testing.B, want [32]byte) func(impl int, root common.Hash) {
	return func(impl int, root common.Hash) {
		if root != want {
			b.Fatalf("%s: root %x, want %x", trieNames[impl], root, want)
		}
	}
}

// hashTurns returns the turns of a benchmark of Hash alone: each opens its
// trie and applies ops before its turn, untimed, then hashes it and checks
// the root.
func hashTurns(b *testing.B, open []func() blockTrie, ops []op, check func(impl int, root common.Hash)) []benchturns.Turn {
	return preparedTurns(b, open, ops, func(impl int, tr blockTrie) { check(impl, tr.Hash()) })
}

// openedTurns returns one turn for each opener in open, whose calls open a
// trie at the state's root and hand it to call, all of it timed.
func openedTurns(open []func() blockTrie, call func(impl int, tr blockTrie)) []benchturns.Turn {
	turns := make([]benchturns.Turn, len(open))
	for impl := range turns {
		turns[impl].Call = func(int) { call(impl, open[impl]()) }
	}
	return turns
}

// preparedTurns returns turns that each open their trie and apply ops
// before the turn, untimed, then call call with it.
//
// The preparation ends with a garbage collection. Opening and changing a
// trie allocates much, and a collection it sets off would otherwise still
// be marking during the timed call after it, on the calls of one turn more
// than the other's: with the same Trie in both turns, the second came out
// faster on two cores (docs/performance.md, Methods: A/A runs).
func preparedTurns(b *testing.B, open []func() blockTrie, ops []op, call func(impl int, tr blockTrie)) []benchturns.Turn {
	turns := make([]benchturns.Turn, len(open))
	for impl := range turns {
		var tr blockTrie
		turns[impl] = benchturns.Turn{
			Prepare: func() {
				tr = open[impl]()
				applyAll(b, tr, ops)
				runtime.GC()
			},
			Call: func(int) { call(impl, tr) },
		}
	}
	return turns
}

// commitTurns returns the turns of a benchmark of Commit, which hashes
// first: each opens its trie and applies ops before its turn, untimed, then
// commits it into a go-ethereum trienode.NodeSet, as a client does after a
// block (go-ethereum's Commit(false); the Trie's CommitChanges, building the
// set as adapter.CommitTrie does), and checks the root and that both sets
// hold as many nodes.
func commitTurns(b *testing.B, open []func() blockTrie, ops []op, check func(impl int, root common.Hash)) []benchturns.Turn {
	commit := []func(blockTrie) (common.Hash, *trienode.NodeSet){
		func(tr blockTrie) (common.Hash, *trienode.NodeSet) {
			return tr.(*trie.Trie).Commit(false)
		},
		func(tr blockTrie) (common.Hash, *trienode.NodeSet) {
			changes := nodeset.New(common.Hash{})
			root, err := tr.(oursAsGeth).CommitChanges(changes.Add)
			if err != nil {
				b.Fatal(err)
			}
			return root, changes.Set
		},
	}
	want := -1
	return preparedTurns(b, open, ops, func(impl int, tr blockTrie) {
		root, set := commit[impl](tr)
		check(impl, root)
		if want < 0 {
			want = len(set.Nodes)
		}
		if len(set.Nodes) != want {
			b.Fatalf("%s: %d nodes committed, want %d", trieNames[impl], len(set.Nodes), want)
		}
	})
}

// bookkeeping is what the trie holds for its changes beyond the nodes:
// the list of changed nodes and the dropped paths with their origins.
func (t *Trie) bookkeeping() int {
	d := &t.dropped
	return cap(t.pending)*int(unsafe.Sizeof(pendingNode{})) + cap(d.paths) + cap(d.ends)*8 + cap(d.prevs)*24
}

// pendingBlocks is the number of Keccak blocks the next Hash absorbs: the
// permutations it cannot do without, whoever runs them. Encoding a node
// hashes its children first where Hash has not, so the count takes a trie
// of its own, not one whose Hash is timed.
func (t *Trie) pendingBlocks() int {
	blocks := 0
	for _, p := range t.pending {
		if enc := appendNode(nil, p.n); len(enc) >= 32 {
			blocks += len(enc)/136 + 1
		}
	}
	return blocks
}

// reportBlockTurns reports each implementation's time per change and the
// speed-up of the second over the first.
func reportBlockTurns(b *testing.B, perCall []float64, changes int, names []string) {
	for i, name := range names {
		b.ReportMetric(perCall[i]/float64(changes), "ns/change-"+name)
	}
	b.ReportMetric(perCall[0]/perCall[1], "speedup")
}

func gethBlockRoot(b *testing.B, s *benchState, ops []op) [32]byte {
	gt, err := trie.New(trie.TrieID(common.Hash(s.root)), s.nodes)
	if err != nil {
		b.Fatal(err)
	}
	applyAll(b, gt, ops)
	return gt.Hash()
}

func applyAll(b *testing.B, tr interface{ Update(k, v []byte) error }, ops []op) {
	for _, o := range ops {
		if err := tr.Update(o.key, o.value); err != nil {
			b.Fatal(err)
		}
	}
}

package adapter

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/rlpstream"
	"github.com/keccakroot/keccakroot/triehash"
)

// The values a StateDB read, as hints for its tries. go-ethereum's StateDB
// reads every account and slot it changes through its state reader (the
// flat state of the snapshot or of the path scheme, or its own tries)
// before it changes them, and its trie prefetcher then loads the paths of
// the same keys from the trie database, down to their leaves. A leaf is
// the node of a path least likely to be in a cache, and its content is
// what the reader returned: the StateDatabase's readers keep the values
// they return, by state root, and its tries hand them to keccakroot's
// Trie as a triehash.HintedSource, which takes a leaf from the value
// where the leaf's hash is the one its parent holds, without reading it.
// A value the reader got wrong costs a hash and nothing else: the trie
// then reads the node as before.

// hintRoots is the number of state roots whose reads a StateDatabase
// keeps: a client reads at its head and, for a while, at the blocks just
// before.
const hintRoots = 4

// hintsPerRoot bounds the values kept for one state root, so that a
// long-lived reader (one serving calls at the head) cannot grow them
// without end: about 20 MB at this many, several times the distinct
// accounts and slots a block reads.
const hintsPerRoot = 1 << 17

// stateHints keeps the values read at state roots, the last hintRoots
// roots read at.
type stateHints struct {
	mu    sync.Mutex
	roots []*rootHints // oldest first
	taken atomic.Int64 // the leaves the tries took from hints, for the tests
}

// at returns the hints of root, made if it has none; nil for a nil s.
func (s *stateHints) at(root common.Hash) *rootHints {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.roots {
		if h.root == root {
			return h
		}
	}
	h := &rootHints{root: root, storage: make(map[common.Address]*keyHints[common.Hash]), taken: &s.taken}
	h.accounts.taken = &s.taken
	if len(s.roots) == hintRoots {
		s.roots = append(s.roots[:0], s.roots[1:]...)
	}
	s.roots = append(s.roots, h)
	return h
}

// rootHints are the values read at one state root: the accounts' and each
// account's slots. They are kept as read, without pointers, and encoded
// as the trie holds them only when a trie asks: a block reads many values
// it does not change.
type rootHints struct {
	root     common.Hash
	accounts keyHints[triehash.Account]
	mu       sync.Mutex
	storage  map[common.Address]*keyHints[common.Hash]
	kept     atomic.Int64 // the values kept, up to hintsPerRoot
	taken    *atomic.Int64
}

// accountHints returns the hints of the account trie; nil for a nil h.
func (h *rootHints) accountHints() hintedValues {
	if h == nil {
		return nil
	}
	return &h.accounts
}

// slots returns the hints of addr's storage, made if it has none; nil for
// a nil h.
func (h *rootHints) slots(addr common.Address) *keyHints[common.Hash] {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	k := h.storage[addr]
	if k == nil {
		k = &keyHints[common.Hash]{taken: h.taken}
		h.storage[addr] = k
	}
	return k
}

// slotHints returns the hints of addr's storage as the trie asks for them;
// nil for a nil h.
func (h *rootHints) slotHints(addr common.Address) hintedValues {
	if h == nil {
		return nil
	}
	return h.slots(addr)
}

// room reports whether another value may be kept, counting it.
func (h *rootHints) room() bool {
	return h.kept.Load() < hintsPerRoot && h.kept.Add(1) <= hintsPerRoot
}

// noteAccount keeps acc, read at addr, as the value its leaf holds. An
// account of a shape the trie's encoder does not take is left out.
func (h *rootHints) noteAccount(addr common.Address, acc *types.StateAccount) {
	if v, ok := trieAccount(acc); ok && h.room() {
		h.accounts.put(addr[:], v)
	}
}

// noteSlot keeps value, read at addr's slot, as the value its leaf holds.
// A zero value is no leaf.
func (h *rootHints) noteSlot(addr common.Address, slot, value common.Hash) {
	if value == (common.Hash{}) || !h.room() {
		return
	}
	h.slots(addr).put(slot[:], value)
}

// hintValue is what a trie's hints keep of a value: an account, or a
// slot's 32 bytes.
type hintValue interface {
	triehash.Account | common.Hash
}

// encodeHint returns v as the trie stores it: the account's RLP, or the
// slot's value trimmed and RLP-encoded.
func encodeHint[V hintValue](v V) []byte {
	switch v := any(v).(type) {
	case triehash.Account:
		return triehash.AppendAccount(nil, &v)
	case common.Hash:
		return rlpstream.AppendBytes(nil, common.TrimLeftZeroes(v[:]))
	}
	return nil
}

// keyHints are the values of one trie's keys: the readers add them from
// the StateDB's goroutines, by the key as read (an address, a slot), while
// the trie's workers ask for them by hashed key. A read only appends the
// value to a list, and the first question after reads hashes the list's
// keys together, in one Sum256Batch, and files the values by hash: the
// reads are on the path of a block's execution, the questions on the
// prefetcher's, and most values read are never asked for.
type keyHints[V hintValue] struct {
	// pending holds the values read and not yet filed, in chunks that
	// double up to maxPendingChunk (chunk is the size of the last): a read
	// appends without copying the values before it. Its lock is held only
	// to append to it or to take it, so that a read, on the way of a
	// block's execution, does not wait while the prefetcher files.
	pendingMu sync.Mutex
	pending   [][]readValue[V]
	chunk     int
	filed     int // the values of the last chunk filed already

	mu     sync.Mutex     // for the values, and file's buffers
	values map[[32]byte]V // by hashed key
	keys   [][]byte
	sums   [][32]byte
	taken  *atomic.Int64 // the state's count of leaves taken from hints
}

// The sizes of a keyHints' chunks of pending values: most storage tries
// read a few slots, the account trie thousands of accounts.
const (
	minPendingChunk = 8
	maxPendingChunk = 512
)

// readValue is a value read at a key of n bytes.
type readValue[V hintValue] struct {
	key [32]byte
	n   uint8
	v   V
}

// put keeps v, read at key (at most 32 bytes).
func (k *keyHints[V]) put(key []byte, v V) {
	r := readValue[V]{v: v}
	r.n = uint8(copy(r.key[:], key))
	k.pendingMu.Lock()
	last := len(k.pending) - 1
	if last < 0 || len(k.pending[last]) == cap(k.pending[last]) {
		k.chunk = min(max(2*k.chunk, minPendingChunk), maxPendingChunk)
		k.pending = append(k.pending, make([]readValue[V], 0, k.chunk))
		last++
	}
	k.pending[last] = append(k.pending[last], r)
	k.pendingMu.Unlock()
}

// expected returns the value kept for key (a hashed key) as the trie
// stores it, or nil.
func (k *keyHints[V]) expected(key []byte) []byte {
	if len(key) != 32 {
		return nil
	}
	k.mu.Lock()
	k.file(k.takePending())
	v, ok := k.values[[32]byte(key)]
	k.mu.Unlock()
	if !ok {
		return nil
	}
	return encodeHint(v)
}

// takePending returns the values read since the last call and leaves the
// last chunk in place, so that reads go on filling it: they append past
// the values returned, which nothing writes again.
func (k *keyHints[V]) takePending() [][]readValue[V] {
	k.pendingMu.Lock()
	defer k.pendingMu.Unlock()
	n := len(k.pending)
	if n == 0 || n == 1 && len(k.pending[0]) == k.filed {
		return nil
	}
	taken := slices.Clone(k.pending)
	taken[0] = taken[0][k.filed:]
	last := k.pending[n-1]
	k.pending = append(k.pending[:0], last)
	k.filed = len(last)
	return taken
}

// file hashes the keys of the values read and files the values by hash.
func (k *keyHints[V]) file(pending [][]readValue[V]) {
	n := 0
	for _, chunk := range pending {
		n += len(chunk)
	}
	if n == 0 {
		return
	}
	keys := k.keys[:0]
	for _, chunk := range pending {
		for i := range chunk {
			keys = append(keys, chunk[i].key[:chunk[i].n])
		}
	}
	sums := slices.Grow(k.sums[:0], n)[:n]
	fastkeccak.Sum256Batch(sums, keys)
	clear(keys)
	k.keys, k.sums = keys[:0], sums[:0]
	if k.values == nil {
		k.values = make(map[[32]byte]V, n)
	}
	i := 0
	for _, chunk := range pending {
		for j := range chunk {
			k.values[sums[i]] = chunk[j].v
			i++
		}
	}
}

// took counts a leaf taken from the hints.
func (k *keyHints[V]) took() { k.taken.Add(1) }

// hintedValues are a trie's hints, as hintedReads asks them.
type hintedValues interface {
	expected(key []byte) []byte
	took()
}

// hintedReads is a trie's readRecorder with the values its keys were read
// with: the trie's triehash.HintedSource.
type hintedReads struct {
	*readRecorder
	hints hintedValues
}

// ExpectedValue returns the value key's leaf holds, as the state reader
// read it, or nil.
func (r hintedReads) ExpectedValue(key []byte) []byte { return r.hints.expected(key) }

// HintTaken records the leaf the trie took from a hint as read, for the
// witness.
func (r hintedReads) HintTaken(path, blob []byte) {
	r.hints.took()
	r.record(path, blob)
}

var _ triehash.HintedSource = hintedReads{}

// hintingReader is a state reader that keeps the values it returns as
// hints.
type hintingReader struct {
	state.Reader
	hints *rootHints
}

// Account is the wrapped reader's, kept.
func (r *hintingReader) Account(addr common.Address) (*types.StateAccount, error) {
	acc, err := r.Reader.Account(addr)
	if err == nil {
		r.hints.noteAccount(addr, acc)
	}
	return acc, err
}

// Storage is the wrapped reader's, kept.
func (r *hintingReader) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	value, err := r.Reader.Storage(addr, slot)
	if err == nil {
		r.hints.noteSlot(addr, slot, value)
	}
	return value, err
}

// hintingReaderStater is a hintingReader over a reader with statistics,
// which it passes on.
type hintingReaderStater struct {
	*hintingReader
	stater state.ReaderStater
}

// GetStats is the wrapped reader's.
func (r hintingReaderStater) GetStats() state.ReaderStats { return r.stater.GetStats() }

// hinting wraps reader to keep what it reads in hints, keeping the
// optional statistics method if it has it.
func hinting(reader state.Reader, hints *rootHints) state.Reader {
	if reader == nil || hints == nil {
		return reader
	}
	r := &hintingReader{Reader: reader, hints: hints}
	if stater, ok := reader.(state.ReaderStater); ok {
		return hintingReaderStater{hintingReader: r, stater: stater}
	}
	return r
}

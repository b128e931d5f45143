package adapter

import (
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
	h := &rootHints{root: root, storage: make(map[common.Address]*keyHints), taken: &s.taken}
	h.accounts.taken = &s.taken
	if len(s.roots) == hintRoots {
		s.roots = append(s.roots[:0], s.roots[1:]...)
	}
	s.roots = append(s.roots, h)
	return h
}

// rootHints are the values read at one state root: the accounts' and each
// account's slots.
type rootHints struct {
	root     common.Hash
	accounts keyHints
	mu       sync.Mutex
	storage  map[common.Address]*keyHints
	kept     atomic.Int64 // the values kept, up to hintsPerRoot
	taken    *atomic.Int64
}

// accountHints returns the hints of the account trie; nil for a nil h.
func (h *rootHints) accountHints() *keyHints {
	if h == nil {
		return nil
	}
	return &h.accounts
}

// slots returns the hints of addr's storage, made if it has none; nil for
// a nil h.
func (h *rootHints) slots(addr common.Address) *keyHints {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	k := h.storage[addr]
	if k == nil {
		k = &keyHints{taken: h.taken}
		h.storage[addr] = k
	}
	return k
}

// room reports whether another value may be kept, counting it.
func (h *rootHints) room() bool {
	return h.kept.Load() < hintsPerRoot && h.kept.Add(1) <= hintsPerRoot
}

// noteAccount keeps acc, read at addr, as the value its leaf holds.
func (h *rootHints) noteAccount(addr common.Address, acc *types.StateAccount) {
	if acc == nil || !h.room() {
		return
	}
	value, err := appendAccount(nil, addr, acc)
	if err != nil {
		return
	}
	h.accounts.put(fastkeccak.Sum256(addr[:]), value)
}

// noteSlot keeps value, read at addr's slot, as the value its leaf holds
// (trimmed and RLP-encoded, as the trie stores it). A zero value is no
// leaf.
func (h *rootHints) noteSlot(addr common.Address, slot, value common.Hash) {
	if value == (common.Hash{}) || !h.room() {
		return
	}
	h.slots(addr).put(fastkeccak.Sum256(slot[:]), rlpstream.AppendBytes(nil, common.TrimLeftZeroes(value[:])))
}

// keyHints are the values of one trie's keys, by hashed key, in shards by
// the key's first byte: the readers write them from the StateDB's
// goroutines while the tries' workers read them.
type keyHints struct {
	shards [16]struct {
		mu     sync.RWMutex
		values map[[32]byte][]byte
	}
	taken *atomic.Int64 // the state's count of leaves taken from hints
}

func (k *keyHints) put(key [32]byte, value []byte) {
	s := &k.shards[key[0]>>4]
	s.mu.Lock()
	if s.values == nil {
		s.values = make(map[[32]byte][]byte)
	}
	s.values[key] = value
	s.mu.Unlock()
}

// get returns the value kept for key (a hashed key), or nil.
func (k *keyHints) get(key []byte) []byte {
	if len(key) != 32 {
		return nil
	}
	s := &k.shards[key[0]>>4]
	s.mu.RLock()
	v := s.values[[32]byte(key)]
	s.mu.RUnlock()
	return v
}

// hintedReads is a trie's readRecorder with the values its keys were read
// with: the trie's triehash.HintedSource.
type hintedReads struct {
	*readRecorder
	hints *keyHints
}

// ExpectedValue returns the value key's leaf holds, as the state reader
// read it, or nil.
func (r hintedReads) ExpectedValue(key []byte) []byte { return r.hints.get(key) }

// HintTaken records the leaf the trie took from a hint as read, for the
// witness.
func (r hintedReads) HintTaken(path, blob []byte) {
	r.hints.taken.Add(1)
	if !r.proving.Load() {
		r.record(path, blob)
	}
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

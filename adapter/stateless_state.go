package adapter

import (
	"errors"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/stateless"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/triehash"
)

// witnessState is the state of a stateless execution, served from an
// execution witness: the trie nodes keyed by hash, the codes by hash and the
// headers by hash. It is the go-ethereum state.Database of the execution's
// StateDB (whose tries are SecureTries over the nodes) and the chain context
// of its StateProcessor.
type witnessState struct {
	witnessChain
	root  common.Hash // the parent's state root
	nodes triehash.NodeSource
	codes map[common.Hash][]byte

	mu       sync.Mutex
	failures []error // what the readers could not find, which they cannot return
}

var _ state.Database = (*witnessState)(nil)

// errStateless is the error of the state database's methods that a
// stateless execution has no use for.
var errStateless = errors.New("adapter: not available in a stateless execution")

// newWitnessState hashes the witness's nodes and codes, each once, in
// batches.
func newWitnessState(config *params.ChainConfig, w *stateless.Witness) (*witnessState, error) {
	if len(w.Headers) == 0 || w.Headers[0] == nil {
		return nil, fmt.Errorf("%w: no parent header", ErrWitness)
	}
	ws := &witnessState{
		witnessChain: newWitnessChain(config, w), root: w.Headers[0].Root,
		codes: make(map[common.Hash][]byte, len(w.Codes)),
	}
	ws.nodes = witnessSource(w)
	codes := make([][]byte, 0, len(w.Codes))
	for code := range w.Codes {
		codes = append(codes, []byte(code))
	}
	hashes := make([][32]byte, len(codes))
	fastkeccak.Sum256Batch(hashes, codes)
	for i, code := range codes {
		ws.codes[hashes[i]] = code
	}
	return ws, nil
}

// witnessChain is the chain context of a stateless execution: the
// witness's headers by hash, as go-ethereum's stateless execution serves
// them (for BLOCKHASH and the parent; none by number or as the head), and
// go-ethereum's consensus engine.
type witnessChain struct {
	config  *params.ChainConfig
	engine  consensus.Engine
	headers map[common.Hash]*types.Header
}

func newWitnessChain(config *params.ChainConfig, w *stateless.Witness) witnessChain {
	c := witnessChain{config: config, engine: beacon.New(ethash.NewFaker()), headers: make(map[common.Hash]*types.Header, len(w.Headers))}
	for _, h := range w.Headers {
		if h != nil {
			c.headers[HeaderHash(h)] = h
		}
	}
	return c
}

func (c witnessChain) Config() *params.ChainConfig  { return c.config }
func (c witnessChain) Engine() consensus.Engine     { return c.engine }
func (c witnessChain) CurrentHeader() *types.Header { return nil }
func (c witnessChain) GetHeaderByNumber(uint64) *types.Header {
	return nil
}
func (c witnessChain) GetHeaderByHash(hash common.Hash) *types.Header { return c.headers[hash] }
func (c witnessChain) GetHeader(hash common.Hash, number uint64) *types.Header {
	if h := c.headers[hash]; h != nil && h.Number != nil && h.Number.Uint64() == number {
		return h
	}
	return nil
}

// GetHeader serves the witness's header of hash at number, and records,
// as a failure of the execution, one that the witness lacks. The EVM asks
// for headers only to walk from the block's parent back to the block that
// BLOCKHASH names, each header giving the hash of the one before it, and
// go-ethereum's witness holds every header of that walk: a header missing,
// or altered so that its hash no longer links, would otherwise give
// BLOCKHASH a zero hash, which go-ethereum's execution goes on with.
func (ws *witnessState) GetHeader(hash common.Hash, number uint64) *types.Header {
	h := ws.witnessChain.GetHeader(hash, number)
	if h == nil {
		ws.fail(fmt.Errorf("%w: header of block %d (%x) is missing: BLOCKHASH needs it, and the witness's headers do not link to it", ErrWitness, number, hash))
	}
	return h
}

// fail records what a reader could not find.
func (ws *witnessState) fail(err error) {
	ws.mu.Lock()
	ws.failures = append(ws.failures, err)
	ws.mu.Unlock()
}

// explain returns err, or the first thing the witness lacked that made the
// execution go wrong: the StateDB's first database error, or a code the
// readers could not find.
func (ws *witnessState) explain(err error, statedb *state.StateDB) error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var lacked error
	if dbErr := statedb.Error(); dbErr != nil {
		lacked = fmt.Errorf("%w: %w", ErrWitness, dbErr)
	} else if len(ws.failures) > 0 {
		lacked = ws.failures[0]
	}
	var missing *triehash.MissingNodeError
	switch {
	case lacked == nil && errors.As(err, &missing):
		return fmt.Errorf("%w: %w", ErrWitness, err)
	case lacked == nil:
		return err
	case err == nil:
		return lacked
	}
	return fmt.Errorf("%w (%w)", lacked, err)
}

// The state.Database of the execution.

// Type reports a Merkle state.
func (ws *witnessState) Type() state.DatabaseType { return state.TypeMPT }

// Reader returns the reader of the witness's state, the parent's.
func (ws *witnessState) Reader(root common.Hash) (state.Reader, error) {
	if root != ws.root {
		return nil, fmt.Errorf("%w: state %x asked for, the witness holds %x", ErrWitness, root, ws.root)
	}
	accounts, err := ws.openTrie(trie.StateTrieID(root), 0)
	if err != nil {
		return nil, err
	}
	return &witnessReader{ws: ws, accounts: accounts, storages: map[common.Address]*SecureTrie{}}, nil
}

// OpenTrie opens the account trie on the witness's nodes.
func (ws *witnessState) OpenTrie(root common.Hash) (state.Trie, error) {
	t, err := ws.openTrie(trie.StateTrieID(root), 0)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// OpenStorageTrie opens the storage trie of address on the witness's nodes.
func (ws *witnessState) OpenStorageTrie(stateRoot common.Hash, address common.Address, root common.Hash, _ state.Trie) (state.Trie, error) {
	t, err := ws.openTrie(storageTrieID(stateRoot, address, root), 1)
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (ws *witnessState) openTrie(id *trie.ID, workers int) (*SecureTrie, error) {
	t, err := newSecureTrie(triehash.Options{Workers: workers}, id, nil, ws.nodes, false, false, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWitness, err)
	}
	return t, nil
}

// Iteratee is not available: a stateless execution does not iterate.
func (ws *witnessState) Iteratee(common.Hash) (state.Iteratee, error) { return nil, errStateless }

// TrieDB is nil: the nodes are in no trie database.
func (ws *witnessState) TrieDB() *triedb.Database { return nil }

// Commit is not available: a stateless execution stores nothing.
func (ws *witnessState) Commit(*state.StateUpdate) error { return errStateless }

// witnessReader reads accounts, slots and codes of the witness's state,
// through tries of its own (StateDB changes its tries; the reader serves
// the state before the block). StateDB reads from several goroutines (the
// parallel execution of an Amsterdam block), hence the lock.
type witnessReader struct {
	ws       *witnessState
	mu       sync.Mutex
	accounts *SecureTrie
	storages map[common.Address]*SecureTrie
}

// Account returns the account at addr, nil if there is none.
func (r *witnessReader) Account(addr common.Address) (*types.StateAccount, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	acc, err := r.accounts.GetAccount(addr)
	return acc, r.failed(err)
}

// failed records a read's error as the execution's failure too: go-ethereum's
// parallel execution of an Amsterdam block does not pass its readers'
// errors on to the StateDB.
func (r *witnessReader) failed(err error) error {
	switch {
	case err == nil:
	case errors.Is(err, ErrWitness):
		r.ws.fail(err)
	default:
		r.ws.fail(fmt.Errorf("%w: %w", ErrWitness, err))
	}
	return err
}

// Storage returns the value of slot in the storage of addr.
func (r *witnessReader) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st, ok := r.storages[addr]
	if !ok {
		acc, err := r.accounts.GetAccount(addr)
		if err != nil || acc == nil {
			return common.Hash{}, r.failed(err)
		}
		if st, err = r.ws.openTrie(storageTrieID(r.ws.root, addr, acc.Root), 1); err != nil {
			return common.Hash{}, r.failed(err)
		}
		r.storages[addr] = st
	}
	value, err := st.GetStorage(addr, slot[:])
	if err != nil {
		return common.Hash{}, r.failed(err)
	}
	return common.BytesToHash(value), nil
}

// Has reports whether the code is at hand: the empty code always is.
func (r *witnessReader) Has(_ common.Address, codeHash common.Hash) bool {
	_, ok := r.ws.codes[codeHash]
	return ok || codeHash == types.EmptyCodeHash
}

// Code returns the code with codeHash; one the witness lacks is recorded
// as the execution's failure (a reader cannot return an error), and nil
// returned, as go-ethereum's reader returns it.
func (r *witnessReader) Code(addr common.Address, codeHash common.Hash) []byte {
	code, ok := r.ws.codes[codeHash]
	if !ok && codeHash != types.EmptyCodeHash && codeHash != (common.Hash{}) {
		r.ws.fail(fmt.Errorf("%w: code %x of account %x is missing", ErrWitness, codeHash, addr))
	}
	return code
}

// CodeSize returns the length of the code with codeHash (see Code).
func (r *witnessReader) CodeSize(addr common.Address, codeHash common.Hash) int {
	return len(r.Code(addr, codeHash))
}

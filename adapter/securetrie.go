package adapter

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb/database"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/internal/nodeset"
	"github.com/keccakroot/keccakroot/rlpstream"
	"github.com/keccakroot/keccakroot/triehash"
)

// ErrTrieChanged is returned by SecureTrie.NodeIterator for a trie changed
// since it was opened: the iterator reads the stored trie, which does not
// have the changes yet.
var ErrTrieChanged = errors.New("adapter: node iterator of a changed trie")

// errNoTrieDatabase is NodeIterator's error for a trie over nodes that are
// not in a trie database, such as a witness's.
var errNoTrieDatabase = errors.New("adapter: node iterator of a trie that is not in a trie database")

// SecureTrie is one trie of go-ethereum's Merkle state, the account trie or
// an account's storage trie, with keccakroot's Trie underneath: it
// implements go-ethereum's state.Trie with the behaviour of its
// trie.StateTrie (keys are the Keccak-256 of the address or the slot), and
// is what the tries of NewStateDatabase are.
//
// Beyond go-ethereum's StateTrie, a SecureTrie stays usable after Commit,
// on top of what it committed, while the trie database still serves the
// state it was opened at (see StateTrie.Commit). Unlike it, its
// NodeIterator serves only a
// trie unchanged since it was opened (ErrTrieChanged otherwise), and
// go-ethereum cannot copy it: StateDB.Copy panics on a StateDB whose tries
// are SecureTries (see NewStateDatabase).
//
// A SecureTrie is not safe for concurrent use, as go-ethereum's is not:
// go-ethereum's trie prefetcher fills a trie on its own goroutine and hands
// it over once done, and StateDB hashes different storage tries on
// different goroutines, which is fine. Prefetch and batch updates load
// nodes on several goroutines inside one call.
type SecureTrie struct {
	trie  *triehash.Trie
	id    trie.ID // the state root, owner and root it was opened at
	db    database.NodeDatabase
	reads *readRecorder // the nodes read from db, for Witness
	// changed is set by the first change: NodeIterator serves only the
	// stored trie.
	changed bool

	// preimages is the trie database's preimage store when it records
	// preimages; secKeyCache holds the preimages of the keys changed since
	// the last Commit, which Commit hands to the store, as go-ethereum's
	// StateTrie does.
	preimages   preimageStore
	secKeyCache map[common.Hash][]byte

	// cache is the NodeCache of a CachedNodeDatabase the trie was opened
	// on, which reads go through (see trieNodes) and Commit keeps the
	// committed nodes in; nil without one.
	cache *NodeCache
}

// preimageStore is what go-ethereum's triedb.Database offers for
// preimages.
type preimageStore interface {
	Preimage(hash common.Hash) []byte
	InsertPreimage(preimages map[common.Hash][]byte)
	PreimageEnabled() bool
}

var _ state.Trie = (*SecureTrie)(nil)

// OpenSecureTrie opens the trie id names in go-ethereum's trie database, as
// go-ethereum's trie.NewStateTrie does: the root node is read at once (a
// missing root is an error wrapping a *trie.MissingNodeError), the rest as
// the trie needs it. A nil id is an ErrNilArgument, and so is a nil db for a
// trie that is not empty.
//
// Unlike go-ethereum's trie on the hash scheme, it checks each node read
// from a hash-scheme database against the hash it is stored under, as the
// path scheme's reader does (see trieNodes): a spoiled node, or another
// node stored in its place, is a missing node error naming it, where
// go-ethereum's trie takes one that decodes and goes on to a wrong root.
func OpenSecureTrie(id *trie.ID, db database.NodeDatabase) (*SecureTrie, error) {
	return openSecureTrie(triehash.Options{}, id, db, true, nil)
}

// openSecureTrie is OpenSecureTrie with the trie's options; with record,
// the trie keeps the nodes it reads for Witness (work that ends in a root,
// such as AccessListStateRoot's, has no use for them).
func openSecureTrie(opts triehash.Options, id *trie.ID, db database.NodeDatabase, record bool, hints hintedValues) (*SecureTrie, error) {
	// The nodes are read through a CachedNodeDatabase's cache (see
	// trieNodes), everything else (preimages, iteration) is the wrapped
	// database's.
	nodes := db
	db, cache := splitCache(db)
	if id == nil {
		return nil, nilArgument("trie ID")
	}
	var src triehash.NodeSource // none for an empty trie
	check := false
	if id.Root != (common.Hash{}) && id.Root != types.EmptyRootHash {
		if db == nil {
			return nil, nilArgument("trie database")
		}
		var err error
		if src, check, err = trieNodes(nodes, id); err != nil {
			s := &SecureTrie{id: *id}
			return nil, s.missing(&triehash.MissingNodeError{Hash: id.Root, Err: err})
		}
	}
	s, err := newSecureTrie(opts, id, db, src, record, check, hints)
	if err != nil {
		return nil, err
	}
	// An empty trie's Commit keeps its nodes in the cache too: a storage
	// trie created in a block is read from there by the next.
	s.cache = cache
	return s, nil
}

// newSecureTrie opens the trie id names on the nodes of src, which may be
// nil for an empty trie. db, where not nil, is where NodeIterator reads the
// stored trie and where preimages go. With record, the trie keeps the nodes
// it reads for Witness; a trie over a witness's own nodes has no use for
// them.
func newSecureTrie(opts triehash.Options, id *trie.ID, db database.NodeDatabase, src triehash.NodeSource, record, check bool, hints hintedValues) (*SecureTrie, error) {
	s := &SecureTrie{id: *id, db: db, reads: &readRecorder{src: src}}
	if store, ok := db.(preimageStore); ok && store.PreimageEnabled() {
		s.preimages, s.secKeyCache = store, make(map[common.Hash][]byte)
	}
	var err error
	if id.Root == (common.Hash{}) || id.Root == types.EmptyRootHash {
		s.trie, err = opts.NewTrie(types.EmptyRootHash, nil)
		return s, err
	}
	if record {
		src = s.reads // keeps what it serves, for Witness
		if hints != nil {
			src = hintedReads{s.reads, hints}
		}
	}
	if check {
		// Outermost, so that the trie sees it (see trieNodes): a node the
		// check refuses may then be recorded, an extra node for a witness
		// of a block that fails on it.
		src = triehash.VerifyingSource(src)
	}
	if s.trie, err = opts.NewTrie(id.Root, src); err != nil {
		return nil, s.missing(err)
	}
	return s, nil
}

// Trie returns the keccakroot trie underneath, keyed by the hashed keys.
func (s *SecureTrie) Trie() *triehash.Trie { return s.trie }

// missing names the trie, by its owner, in an error about one of its
// nodes: to an error that wraps a *triehash.MissingNodeError it adds the
// *trie.MissingNodeError that go-ethereum's tries return for it, so that
// errors.As finds either; an error that wraps a *triehash.InvalidNodeError
// (go-ethereum has no such type) gains the owner in its message. Other
// errors pass as they are.
func (s *SecureTrie) missing(err error) error {
	if err == nil {
		return nil // the common case, without errors.As's reflection
	}
	var ours *triehash.MissingNodeError
	if errors.As(err, &ours) {
		return &trieNodeError{
			err:   err,
			owner: s.id.Owner,
			geth:  &trie.MissingNodeError{Owner: s.id.Owner, NodeHash: ours.Hash, Path: ours.Path},
		}
	}
	var invalid *triehash.InvalidNodeError
	if errors.As(err, &invalid) {
		return &trieNodeError{err: err, owner: s.id.Owner}
	}
	return err
}

// trieNodeError is an error about a node of a trie, with the trie's
// owner: a node missing from the trie database, as keccakroot and as
// go-ethereum report it, or a stored node that does not decode (geth nil).
type trieNodeError struct {
	err   error
	owner common.Hash
	geth  *trie.MissingNodeError
}

func (e *trieNodeError) Error() string {
	if e.owner == (common.Hash{}) {
		return e.err.Error() + " in the account trie"
	}
	return fmt.Sprintf("%v in the storage trie of %x", e.err, e.owner)
}

func (e *trieNodeError) Unwrap() []error {
	if e.geth == nil {
		return []error{e.err}
	}
	return []error{e.err, e.geth}
}

// GetKey returns the preimage of a hashed key, from the keys changed since
// the last Commit or from the trie database, nil if the trie database does
// not record preimages or does not have it.
func (s *SecureTrie) GetKey(hashedKey []byte) []byte {
	if s.preimages == nil {
		return nil
	}
	if key, ok := s.secKeyCache[common.BytesToHash(hashedKey)]; ok {
		return key
	}
	return s.preimages.Preimage(common.BytesToHash(hashedKey))
}

// GetAccount returns the account at address, nil if there is none.
func (s *SecureTrie) GetAccount(address common.Address) (*types.StateAccount, error) {
	hashed := fastkeccak.Sum256(address[:])
	return s.accountAt(address, hashed[:])
}

// accountAt is GetAccount for a caller that has the hashed address.
func (s *SecureTrie) accountAt(address common.Address, hashed []byte) (*types.StateAccount, error) {
	enc, err := s.trie.Get(hashed)
	if err != nil || len(enc) == 0 {
		return nil, s.missing(err)
	}
	acc := new(types.StateAccount)
	if err := rlp.DecodeBytes(enc, acc); err != nil {
		return nil, fmt.Errorf("adapter: account %x: %w", address, err)
	}
	return acc, nil
}

// GetStorage returns the value of slot key without its leading zeros, nil
// for an empty slot, as go-ethereum's StateTrie.GetStorage does. address
// is unused: the trie is the storage trie of one account. A stored value
// that is not an RLP string is an error.
func (s *SecureTrie) GetStorage(address common.Address, key []byte) ([]byte, error) {
	hashed := fastkeccak.Sum256(key)
	return s.storageAt(address, key, hashed[:])
}

// storageAt is GetStorage for a caller that has the hashed key.
func (s *SecureTrie) storageAt(address common.Address, key, hashed []byte) ([]byte, error) {
	enc, err := s.trie.Get(hashed)
	if err != nil || len(enc) == 0 {
		return nil, s.missing(err)
	}
	kind, content, _, err := rlpstream.Split(enc)
	if err != nil || kind == rlpstream.List {
		return nil, fmt.Errorf("adapter: storage slot %x of account %x is not an RLP string: %x", key, address, enc)
	}
	return content, nil
}

// UpdateAccount stores acc at address. codeLen is unused, as in
// go-ethereum's Merkle StateTrie.
func (s *SecureTrie) UpdateAccount(address common.Address, acc *types.StateAccount, codeLen int) error {
	// The trie keeps its own copy of the value: encode it on the stack.
	var buf [accountSize]byte
	value, err := appendAccount(buf[:0], address, acc)
	if err != nil {
		return err
	}
	return s.update(address[:], value)
}

// accountSize is room for the encoding of any account AppendAccount
// writes: a list header, a nonce, a balance and two hashes.
const accountSize = 3 + 9 + 33 + 33 + 33

// encodeAccount returns acc's encoding in the account trie, as go-ethereum's
// StateTrie writes it.
func encodeAccount(addr common.Address, acc *types.StateAccount) ([]byte, error) {
	return appendAccount(nil, addr, acc)
}

// appendAccount appends acc's encoding in the account trie to dst.
func appendAccount(dst []byte, addr common.Address, acc *types.StateAccount) ([]byte, error) {
	v, ok := trieAccount(acc)
	if !ok {
		// Not a shape AppendAccount writes: encode as go-ethereum does.
		value, err := rlp.EncodeToBytes(acc)
		if err != nil {
			return nil, fmt.Errorf("adapter: account %x: %w", addr, err)
		}
		return append(dst, value...), nil
	}
	return triehash.AppendAccount(dst, &v), nil
}

// trieAccount returns acc as triehash.AppendAccount takes it, and false for
// a nil account or one of another shape (no balance, a code hash that is
// not 32 bytes).
func trieAccount(acc *types.StateAccount) (triehash.Account, bool) {
	if acc == nil || len(acc.CodeHash) != 32 || acc.Balance == nil {
		return triehash.Account{}, false
	}
	return triehash.Account{
		Nonce: acc.Nonce, Balance: *acc.Balance, StorageRoot: acc.Root, CodeHash: [32]byte(acc.CodeHash),
	}, true
}

// UpdateStorage sets slot key to value (its leading zeros trimmed, as
// go-ethereum's StateDB trims them). As in go-ethereum's StateTrie, an
// empty value is stored as the RLP empty string, not deleted: clear a slot
// with DeleteStorage. address is unused.
func (s *SecureTrie) UpdateStorage(address common.Address, key, value []byte) error {
	var buf [33]byte // a slot's value and its header; the trie copies it
	return s.update(key, rlpstream.AppendBytes(buf[:0], value))
}

// update stores value under the hash of key.
func (s *SecureTrie) update(key, value []byte) error {
	hashed := fastkeccak.Sum256(key)
	s.changed = true
	if err := s.trie.Update(hashed[:], value); err != nil {
		return s.missing(err)
	}
	if s.preimages != nil {
		s.secKeyCache[common.Hash(hashed)] = common.CopyBytes(key)
	}
	return nil
}

// DeleteAccount removes the account at address.
func (s *SecureTrie) DeleteAccount(address common.Address) error {
	return s.delete(address[:])
}

// DeleteStorage clears slot key. address is unused.
func (s *SecureTrie) DeleteStorage(address common.Address, key []byte) error {
	return s.delete(key)
}

// delete removes the value under the hash of key.
func (s *SecureTrie) delete(key []byte) error {
	hashed := fastkeccak.Sum256(key)
	s.changed = true
	if s.preimages != nil {
		delete(s.secKeyCache, common.Hash(hashed))
	}
	return s.missing(s.trie.Delete(hashed[:]))
}

// UpdateContractCode does nothing: a Merkle trie does not hold code.
func (s *SecureTrie) UpdateContractCode(common.Address, common.Hash, []byte) error { return nil }

// Hash returns the trie's root, rehashing what changed since the last
// Hash.
func (s *SecureTrie) Hash() common.Hash { return s.trie.Hash() }

// Commit hashes the trie and returns its root and the nodes to store, the
// set go-ethereum's StateTrie.Commit(collectLeaf) returns: each stored node
// that changed and each stale path, with the paths' origins, and with
// collectLeaf the leaves among the stored nodes (their values, each with
// its node's hash as parent; go-ethereum's order of leaves depends on its
// goroutines, this one is by path, deepest first within a subtree). The set
// is nil when nothing changed. The preimages of the keys changed since the
// last Commit go to the trie database, where it records them. A trie
// opened on a CachedNodeDatabase keeps the stored nodes in its NodeCache
// too.
//
// Unlike go-ethereum's, the trie stays usable, on top of what it
// committed, while the trie database serves the state it was opened at
// (see StateTrie.Commit).
func (s *SecureTrie) Commit(collectLeaf bool) (common.Hash, *trienode.NodeSet) {
	if len(s.secKeyCache) > 0 {
		s.preimages.InsertPreimage(s.secKeyCache)
		s.secKeyCache = make(map[common.Hash][]byte)
	}
	changes := nodeset.NewSized(s.id.Owner, s.trie.CommitSizeHint())
	add := changes.Add
	if s.cache != nil || collectLeaf {
		add = func(path []byte, hash [32]byte, blob, prev []byte) {
			changes.Add(path, hash, blob, prev)
			if blob == nil { // a deletion
				return
			}
			// The committed nodes are what the next block reads first:
			// with the path scheme, from the newest diff layers (see
			// NewStateDatabaseWithNodeCache). The blobs are the trie's and
			// never change, so the cache shares them, as the set does.
			if s.cache != nil {
				s.cache.add(hash, blob)
			}
			if !collectLeaf {
				return
			}
			if value, ok := leafValue(blob); ok {
				changes.Set.AddLeaf(hash, value)
			}
		}
	}
	// A Trie's Commit has nothing to load, so it cannot fail.
	root, _ := s.trie.CommitChanges(add)
	s.id.Root = root
	if len(changes.Set.Nodes) == 0 {
		return root, nil
	}
	return root, changes.Set
}

// leafValue returns the value of a stored leaf node: a two-item list whose
// first item is a compact key with the terminator flag, and whose second is
// the value. Extensions and branches are not leaves.
func leafValue(blob []byte) ([]byte, bool) {
	kind, items, _, err := rlpstream.Split(blob)
	if err != nil || kind != rlpstream.List {
		return nil, false
	}
	kind, key, rest, err := rlpstream.Split(items)
	if err != nil || kind == rlpstream.List || len(key) == 0 || key[0]&0x20 == 0 {
		return nil, false
	}
	kind, value, rest, err := rlpstream.Split(rest)
	if err != nil || kind == rlpstream.List || len(rest) != 0 {
		return nil, false
	}
	return value, true
}

// Witness returns every node the trie read from the trie database since it
// was opened, by path, as go-ethereum's trie.Witness does; nil if none.
func (s *SecureTrie) Witness() map[string][]byte { return s.reads.witness() }

// NodeIterator returns go-ethereum's iterator over the stored trie, starting
// at the key after start, for a trie that has not changed since it was
// opened; ErrTrieChanged otherwise.
func (s *SecureTrie) NodeIterator(start []byte) (trie.NodeIterator, error) {
	if s.changed {
		return nil, fmt.Errorf("%w: commit it, store the nodes and open the new root", ErrTrieChanged)
	}
	if s.db == nil {
		return nil, errNoTrieDatabase
	}
	stored, err := trie.New(&s.id, s.db)
	if err != nil {
		return nil, err
	}
	return stored.NodeIterator(start)
}

// Prove writes the proof of key (already hashed, as go-ethereum's
// StateTrie.Prove takes it) into proofDb, each node under its hash. The
// nodes it loads are not kept, in the trie or for Witness, as go-ethereum
// keeps them in neither.
func (s *SecureTrie) Prove(key []byte, proofDb ethdb.KeyValueWriter) error {
	// As in go-ethereum, the nodes a proof loads stay out of the witness
	// and out of the trie (see triehash.Trie.Prove): a later read of
	// them loads and records them.
	s.reads.proving.Store(true)
	defer s.reads.proving.Store(false)
	return s.missing(Prove(s.trie, key, proofDb))
}

// IsUBT reports false: a SecureTrie is a Merkle trie.
func (s *SecureTrie) IsUBT() bool { return false }

package adapter

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/state/snapshot"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/triehash"
)

// faultBlocks is how many blocks of the state chain are executed before
// the state that goes bad: enough accounts for the account trie's nodes
// below the root to be branches.
const faultBlocks = 30

// faultMode is how the StateDB of a faulty state is set up: the scheme
// (an index into schemes), a snapshot tree beside the trie database (as
// core.BlockChain keeps one on the hash scheme), and core.BlockChain's
// prefetching reader (ReadersWithCacheStats).
type faultMode struct {
	name     string
	scheme   int
	snapshot bool
	warm     bool
}

// faultModes: without a snapshot on the hash scheme, go-ethereum's trie
// reader reads every account and slot and meets a bad node on their way
// before the tries do; with one, and on the path scheme (whose flat state
// serves the reads), the tries meet it first, when the block's changes go
// into them.
var faultModes = []faultMode{
	{name: "hash", scheme: 0},
	{name: "hash+snapshot", scheme: 0, snapshot: true},
	{name: "path", scheme: 1},
	{name: "path+warm", scheme: 1, warm: true},
}

func (m faultMode) hashScheme() bool { return schemes[m.scheme].config.PathDB == nil }

// trieFault is how a stored node goes bad.
type trieFault int

const (
	faultDeleted   trieFault = iota // the node is gone
	faultTruncated                  // its last byte is gone
	// faultByteOnPath changes the last byte of the child reference on the
	// key's way: the node decodes, and leads to a node nobody stored.
	faultByteOnPath
	// faultByteOffPath changes the last byte of another child reference:
	// the node decodes, and the key's way through it is intact, but its
	// hash is no longer the one its parent refers to it by.
	faultByteOffPath
	// faultReplaced stores another valid node of the same trie (a sibling
	// of the same depth) in the node's place.
	faultReplaced
)

func (f trieFault) String() string {
	return [...]string{"deleted", "truncated", "byte-on-path", "byte-off-path", "replaced"}[f]
}

// Where go-ethereum's own StateDB meets a fault, given the same store.
const (
	// gethReader: its state reader, reading the account or slot before
	// the block changes it: the StateDB records the reader's error, which
	// is go-ethereum's on NewStateDatabase too (the reader is the wrapped
	// database's).
	gethReader = "reader"
	// gethTrie: its trie, when the block's changes go in: the StateDB
	// records the trie's error and Commit refuses.
	gethTrie = "trie"
	// gethNowhere: nowhere. Its hash-scheme trie takes a node that still
	// decodes, whatever its hash, and Commit returns a wrong root without
	// an error: only a header's root can tell.
	gethNowhere = "nowhere"
)

// gethMeets returns where go-ethereum's StateDB meets fault in mode. The
// path scheme's reader checks the hash of every node it reads; the hash
// scheme's only finds a node by it.
func gethMeets(mode faultMode, fault trieFault) string {
	switch {
	case mode.hashScheme() && (fault == faultByteOffPath || fault == faultReplaced):
		return gethNowhere
	case mode.hashScheme() && !mode.snapshot:
		return gethReader
	}
	return gethTrie
}

// readerFirst reports whether go-ethereum's state reader, which
// NewStateDatabase keeps, meets fault in mode before the tries do and
// changes the block's course: on the hash scheme without a snapshot it
// reads accounts and slots through go-ethereum's trie, and every fault
// but a changed byte off the key's way makes it fail or read something
// else (another node in the node's place leads it to another account or
// slot, without an error). The block then fails alike on both sides, with
// go-ethereum's error.
func readerFirst(mode faultMode, fault trieFault) bool {
	return mode.hashScheme() && !mode.snapshot && fault != faultByteOffPath
}

// faultNode is a stored node on the way to a key the block changes: one
// level below the root of its trie, a branch, with a sibling branch.
type faultNode struct {
	owner   common.Hash // the storage trie's owner, zero for the account trie
	root    common.Hash // the root of its trie
	path    []byte      // from the trie's root, one nibble a byte
	hash    common.Hash
	blob    []byte
	refs    [16]int // offset in blob of each child's 32-byte reference, 0 for none
	next    int     // the child on the key's way
	other   int     // another child that is a reference
	sibling []byte  // another branch one level below the root
}

// faultState is the state the faults are made in: the lockstep that
// executed the chain up to it, with both sides' stores holding it on disk
// (and a generated snapshot, on the hash scheme), and the nodes to spoil.
type faultState struct {
	l       *lockstep
	root    common.Hash
	account faultNode // on the way to storeA in the account trie
	storage faultNode // on the way to slot in storeA's storage trie
	slot    common.Hash
	value   common.Hash // what the changes write to slot: not what it holds
}

// newFaultState executes the first faultBlocks blocks of chain in lockstep
// on the scheme's databases and writes the state they end in to disk on
// both sides, closing their trie databases: each case opens new ones on a
// copy of a store.
func newFaultState(t *testing.T, chain *stateChain, scheme int) *faultState {
	t.Helper()
	l := newLockstep(t, chain.genesis, beacon.New(ethash.NewFaker()), lockstepMode{scheme: scheme})
	for _, block := range chain.blocks[:faultBlocks] {
		if err := l.execute(block); err != nil {
			t.Fatal(err)
		}
	}
	root := chain.blocks[faultBlocks-1].Root()
	for _, side := range []*stateSide{l.geth, l.ours} {
		if err := side.tdb.Commit(root, false); err != nil {
			t.Fatal(err)
		}
		if err := side.tdb.Close(); err != nil {
			t.Fatal(err)
		}
		if schemes[scheme].config.PathDB == nil {
			// A snapshot generated from the trie, on disk, that each
			// case's snapshot tree loads as it is.
			tdb := triedb.NewDatabase(side.disk, schemes[scheme].config)
			snaps, err := snapshot.New(snapshot.Config{CacheSize: 1}, side.disk, tdb, root)
			if err != nil {
				t.Fatal(err)
			}
			snaps.Release()
			tdb.Close()
		}
	}
	block := chain.blocks[faultBlocks]
	slots := slotsWritten(t, block, storeA)
	f := &faultState{l: l, root: root, slot: slots[0]}
	tdb := triedb.NewDatabase(l.ours.disk, schemes[scheme].config)
	defer tdb.Close()
	f.account = findFaultNode(t, tdb, trie.StateTrieID(root), Keccak256(storeA[:]), hashedKeys(accountsNamed(block)))
	accounts, err := OpenSecureTrie(trie.StateTrieID(root), tdb)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := accounts.GetAccount(storeA)
	if err != nil || acc == nil {
		t.Fatalf("storeA's account: %v, %v", acc, err)
	}
	f.storage = findFaultNode(t, tdb, storageTrieID(root, storeA, acc.Root), Keccak256(f.slot[:]), hashedKeys(slots))
	// A value the slot does not hold already, or the StateDB would leave
	// the storage trie, and its spoiled node, alone.
	storage, err := OpenSecureTrie(storageTrieID(root, storeA, acc.Root), tdb)
	if err != nil {
		t.Fatal(err)
	}
	held, err := storage.GetStorage(storeA, f.slot[:])
	if err != nil {
		t.Fatal(err)
	}
	f.value = common.Hash{31: 0xee}
	if common.BytesToHash(held) == f.value {
		f.value[31] = 0xef
	}
	return f
}

// slotsWritten returns the slots that block's calls to a storeCode
// contract at addr write, in order.
func slotsWritten(t *testing.T, block *types.Block, addr common.Address) []common.Hash {
	t.Helper()
	var slots []common.Hash
	for _, tx := range block.Transactions() {
		if to := tx.To(); to != nil && *to == addr {
			for data := tx.Data(); len(data) >= 64; data = data[64:] {
				slots = append(slots, common.BytesToHash(data[:32]))
			}
		}
	}
	if len(slots) == 0 {
		t.Fatalf("block %d does not write the storage of %x", block.NumberU64(), addr)
	}
	return slots
}

// accountsNamed returns the accounts block names: its coinbase, the
// sender and recipient of each transaction, and its withdrawals'.
func accountsNamed(block *types.Block) []common.Address {
	accounts := []common.Address{block.Coinbase(), sender}
	for _, tx := range block.Transactions() {
		if to := tx.To(); to != nil {
			accounts = append(accounts, *to)
		}
	}
	for _, w := range block.Withdrawals() {
		accounts = append(accounts, w.Address)
	}
	return accounts
}

// hashedKeys returns the hash of each key, as a secure trie keys it.
func hashedKeys[K interface{ Bytes() []byte }](keys []K) [][]byte {
	hashed := make([][]byte, len(keys))
	for i, key := range keys {
		hashed[i] = Keccak256(key.Bytes())
	}
	return hashed
}

// findFaultNode returns the node one level below the root of the trie id
// names on the way to hashedKey, which must be a branch below a branch
// root, with a sibling that is a branch too. Its other child, the one a
// byte off the key's way spoils, is one that none of the block's keys
// (hashed) goes through: go-ethereum's reader would meet the spoiled
// reference there before the tries meet the node.
func findFaultNode(t *testing.T, tdb *triedb.Database, id *trie.ID, hashedKey []byte, block [][]byte) faultNode {
	t.Helper()
	tr, err := OpenTrie(id, tdb)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := tr.Prove(hashedKey)
	if err != nil || len(proof) < 3 {
		t.Fatalf("a proof of %d nodes: %v", len(proof), err)
	}
	n := faultNode{owner: id.Owner, root: id.Root, path: []byte{hashedKey[0] >> 4}, hash: Keccak256Hash(proof[1]), blob: proof[1], next: int(hashedKey[0] & 0xf), other: -1}
	rootRefs, ok := branchRefs(proof[0])
	refs, isBranch := branchRefs(proof[1])
	n.refs = refs
	if !ok || !isBranch || rootRefs[n.path[0]] == 0 || refs[n.next] == 0 {
		t.Fatalf("the trie of owner %x is not a branch below a branch on the key's way", id.Owner)
	}
	if !bytes.Equal(proof[0][rootRefs[n.path[0]]:][:32], n.hash[:]) {
		t.Fatal("the proof's second node is not the root's child")
	}
	var used [16]bool
	for _, key := range block {
		if key[0]>>4 == n.path[0] {
			used[key[0]&0xf] = true
		}
	}
	for i, off := range refs {
		if i != n.next && off != 0 && !used[i] {
			n.other = i
			break
		}
	}
	if n.other < 0 {
		t.Fatalf("the node of owner %x on the key's way has no other child by reference that the block leaves alone", id.Owner)
	}
	reader, err := tdb.NodeReader(id.StateRoot)
	if err != nil {
		t.Fatal(err)
	}
	for i, off := range rootRefs {
		if i == int(n.path[0]) || off == 0 {
			continue
		}
		blob, err := reader.Node(id.Owner, []byte{byte(i)}, common.BytesToHash(proof[0][off:][:32]))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := branchRefs(blob); ok {
			n.sibling = blob
			return n
		}
	}
	t.Fatalf("the root of the trie of owner %x has no other branch below it", id.Owner)
	return n
}

// branchRefs returns the offsets of a branch node's 32-byte child
// references in blob (0 for a child that is not one), and whether blob is
// a branch.
func branchRefs(blob []byte) (refs [16]int, ok bool) {
	items, rest, err := rlp.SplitList(blob)
	if err != nil || len(rest) != 0 {
		return refs, false
	}
	n := 0
	for ; len(items) > 0; n++ {
		kind, content, next, err := rlp.Split(items)
		if err != nil || n > 16 {
			return refs, false
		}
		if n < 16 && kind == rlp.String && len(content) == 32 {
			refs[n] = len(blob) - len(next) - 32
		}
		items = next
	}
	return refs, n == 17
}

// spoil returns what the store holds for n after fault: nil for no node.
func (n faultNode) spoil(fault trieFault) []byte {
	flip := func(child int) []byte {
		blob := bytes.Clone(n.blob)
		blob[n.refs[child]+31] ^= 0x01
		return blob
	}
	switch fault {
	case faultTruncated:
		return n.blob[:len(n.blob)-1]
	case faultByteOnPath:
		return flip(n.next)
	case faultByteOffPath:
		return flip(n.other)
	case faultReplaced:
		return n.sibling
	}
	return nil
}

// store puts blob, or no node for nil, where the scheme keeps n.
func (n faultNode) store(disk ethdb.KeyValueWriter, mode faultMode, blob []byte) {
	switch {
	case mode.hashScheme() && blob == nil:
		rawdb.DeleteLegacyTrieNode(disk, n.hash)
	case mode.hashScheme():
		rawdb.WriteLegacyTrieNode(disk, n.hash, blob)
	case n.owner == (common.Hash{}) && blob == nil:
		rawdb.DeleteAccountTrieNode(disk, n.path)
	case n.owner == (common.Hash{}):
		rawdb.WriteAccountTrieNode(disk, n.path, blob)
	case blob == nil:
		rawdb.DeleteStorageTrieNode(disk, n.owner, n.path)
	default:
		rawdb.WriteStorageTrieNode(disk, n.owner, n.path, blob)
	}
}

// named reports whether err names n: its hash, its path as the tries
// print it, and the owner of a storage trie.
func (n faultNode) named(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, fmt.Sprintf("%x", n.hash)) &&
		strings.Contains(msg, fmt.Sprintf("path %x", n.path)) &&
		(n.owner == (common.Hash{}) || strings.Contains(msg, fmt.Sprintf("%x", n.owner)))
}

// open returns a side over a copy of side's store with n spoiled by fault
// (intact for a negative fault), in mode, wrapped by NewStateDatabase for
// ours.
func (f *faultState) open(t *testing.T, side *stateSide, mode faultMode, n faultNode, fault trieFault) *stateSide {
	t.Helper()
	disk := copyStore(t, side.disk)
	if fault >= 0 {
		n.store(disk, mode, n.spoil(fault))
	}
	tdb := triedb.NewDatabase(disk, schemes[mode.scheme].config)
	t.Cleanup(func() { tdb.Close() })
	mpt := state.NewMPTDatabase(tdb, state.NewCodeDB(disk))
	var sdb state.Database = mpt
	if mode.snapshot {
		snaps, err := snapshot.New(snapshot.Config{CacheSize: 1, NoBuild: true}, disk, tdb, f.root)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(snaps.Release)
		sdb = mpt.WithSnapshot(snaps)
	}
	out := &stateSide{name: side.name, disk: disk, tdb: tdb, sdb: sdb}
	if side == f.l.ours {
		out.sdb = NewStateDatabase(sdb)
	}
	return out
}

// copyStore returns a new in-memory store with what src holds.
func copyStore(t *testing.T, src ethdb.Database) ethdb.Database {
	t.Helper()
	dst := rawdb.NewMemoryDatabase()
	it := src.NewIterator(nil, nil)
	defer it.Release()
	batch := dst.NewBatch()
	for it.Next() {
		if err := batch.Put(it.Key(), it.Value()); err != nil {
			t.Fatal(err)
		}
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	if err := batch.Write(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// commitChanges changes storeA's balance and f.slot on side's state, as a
// block would, and commits, as a block builder does (no header to check
// the root against): the error the StateDB recorded while reading, and
// the root StateDB.Commit returns or its error.
func (f *faultState) commitChanges(side *stateSide) (readErr error, root common.Hash, err error) {
	statedb, err := state.New(f.root, side.sdb)
	if err != nil {
		return nil, common.Hash{}, err
	}
	statedb.AddBalance(storeA, uint256.NewInt(1), tracing.BalanceChangeUnspecified)
	statedb.SetState(storeA, f.slot, f.value)
	readErr = statedb.Error()
	root, err = statedb.Commit(f.l.config.Rules(common.Big0, true, 0), faultBlocks+1)
	return readErr, root, err
}

// TestStateDatabaseFaults spoils a stored node on the way of a block's
// changes (deleted, truncated, a byte changed on or off the key's way,
// another valid node in its place), in the account trie or in a storage
// trie, on both schemes, with and without a snapshot, and checks
// NewStateDatabase against go-ethereum's database on the same store:
//
//   - the block: both StateDBs refuse it; NewStateDatabase's error names
//     the node (hash, path, and owner for a storage trie), or, where
//     go-ethereum's reader meets the node first (readerFirst), is
//     go-ethereum's own;
//   - the changes committed with no header to check the root against, as
//     a block builder commits: NewStateDatabase's StateDB refuses with an
//     error naming the node, where go-ethereum's refuses too or, on the
//     hash scheme with a node that still decodes, returns a wrong root;
//   - keccakroot's tries themselves, opened through a NodeCache: the
//     change through the node fails with a *trie.MissingNodeError for it,
//     leaves the trie's root as it was, and the node stays out of the
//     cache.
//
// Nothing panics, and NewStateDatabase never returns a root that
// go-ethereum would not: on the intact state both commit the same one.
func TestStateDatabaseFaults(t *testing.T) {
	chain := makeStateChain()
	block := chain.blocks[faultBlocks]
	states := map[int]*faultState{}
	modes := faultModes
	if testing.Short() {
		// The modes where keccakroot's tries meet the node first, one a
		// scheme.
		modes = []faultMode{faultModes[1], faultModes[2]}
	}
	for _, mode := range modes {
		if states[mode.scheme] == nil {
			states[mode.scheme] = newFaultState(t, chain, mode.scheme)
		}
		f := states[mode.scheme]
		_, wantRoot, err := f.commitChanges(f.open(t, f.l.geth, mode, f.account, -1))
		if err != nil {
			t.Fatal(err)
		}
		if _, root, err := f.commitChanges(f.open(t, f.l.ours, mode, f.account, -1)); err != nil || root != wantRoot {
			t.Fatalf("%s: changes on the intact state: %x, %v; go-ethereum %x", mode.name, root, err, wantRoot)
		}
		for _, n := range []faultNode{f.account, f.storage} {
			kind := "account"
			if n.owner != (common.Hash{}) {
				kind = "storage"
			}
			for fault := faultDeleted; fault <= faultReplaced; fault++ {
				t.Run(fmt.Sprintf("%s/%s/%v", mode.name, kind, fault), func(t *testing.T) {
					geth := gethMeets(mode, fault)
					f.checkBlock(t, mode, n, fault, block)
					f.checkCommit(t, mode, n, fault, wantRoot, geth)
					f.checkTrie(t, mode, n, fault)
				})
			}
		}
	}
}

// checkBlock executes block on both sides of a store with n spoiled by
// fault.
func (f *faultState) checkBlock(t *testing.T, mode faultMode, n faultNode, fault trieFault, block *types.Block) {
	t.Helper()
	l := *f.l
	l.t, l.mode = t, lockstepMode{scheme: mode.scheme, warm: mode.warm}
	l.geth, l.ours = f.open(t, f.l.geth, mode, n, fault), f.open(t, f.l.ours, mode, n, fault)
	parent := l.headers[block.ParentHash()]
	_, gethErr := l.run(l.geth, parent, block)
	_, err := l.run(l.ours, parent, block)
	switch first := readerFirst(mode, fault); {
	case err == nil || gethErr == nil:
		t.Fatalf("the block: keccakroot %v; go-ethereum %v", err, gethErr)
	case first && err.Error() != gethErr.Error():
		t.Fatalf("the block: keccakroot %v; go-ethereum, on what its reader read: %v", err, gethErr)
	case !first && !n.named(err):
		t.Fatalf("the block's error does not name node %x: %v", n.hash, err)
	}
}

// checkCommit commits the same changes on both sides of a store with n
// spoiled by fault, wantRoot on the intact store.
func (f *faultState) checkCommit(t *testing.T, mode faultMode, n faultNode, fault trieFault, wantRoot common.Hash, geth string) {
	t.Helper()
	gethReadErr, gethRoot, gethErr := f.commitChanges(f.open(t, f.l.geth, mode, n, fault))
	readErr, root, err := f.commitChanges(f.open(t, f.l.ours, mode, n, fault))
	if err == nil {
		t.Fatalf("keccakroot committed root %x; go-ethereum %x, %v; the intact state %x", root, gethRoot, gethErr, wantRoot)
	}
	switch geth {
	case gethReader:
		if gethReadErr == nil || readErr == nil || readErr.Error() != gethReadErr.Error() || err.Error() != gethErr.Error() {
			t.Fatalf("go-ethereum's reader did not meet the node first on both sides: keccakroot %v, %v; go-ethereum %v, %v", readErr, err, gethReadErr, gethErr)
		}
	case gethTrie:
		if gethReadErr != nil || readErr != nil || gethErr == nil {
			t.Fatalf("go-ethereum's trie did not meet the node: keccakroot %v; go-ethereum %v, %v", readErr, gethReadErr, gethErr)
		}
	case gethNowhere:
		if gethReadErr != nil || readErr != nil || gethErr != nil || gethRoot == wantRoot {
			t.Fatalf("go-ethereum met the node: %v, %v, root %x", gethReadErr, gethErr, gethRoot)
		}
	}
	if geth != gethReader && !n.named(err) {
		t.Fatalf("the commit's error does not name node %x: %v", n.hash, err)
	}
}

// checkTrie changes keccakroot's trie of n through n, spoiled by fault,
// twice, on two tries sharing a NodeCache.
func (f *faultState) checkTrie(t *testing.T, mode faultMode, n faultNode, fault trieFault) {
	t.Helper()
	side := f.open(t, f.l.ours, mode, n, fault)
	db := CachedNodeDatabase(side.tdb, NewNodeCache(1<<20))
	id := trie.StateTrieID(f.root)
	if n.owner != (common.Hash{}) {
		id = storageTrieID(f.root, storeA, n.root)
	}
	for range 2 {
		tr, err := OpenSecureTrie(id, db)
		if err != nil {
			t.Fatal(err)
		}
		if n.owner == (common.Hash{}) {
			err = tr.UpdateAccount(storeA, &types.StateAccount{Balance: uint256.NewInt(1), Root: types.EmptyRootHash, CodeHash: types.EmptyCodeHash[:]}, 0)
		} else {
			err = tr.UpdateStorage(storeA, f.slot[:], f.value[31:])
		}
		var geth *trie.MissingNodeError
		var ours *triehash.MissingNodeError
		switch {
		case err == nil:
			t.Fatal("the change through the node did not fail")
		case !n.named(err):
			t.Fatalf("the error does not name node %x: %v", n.hash, err)
		case !errors.As(err, &ours) || !errors.As(err, &geth):
			t.Fatalf("not a missing node for keccakroot and go-ethereum: %v", err)
		case geth.Owner != n.owner || geth.NodeHash != n.hash || !bytes.Equal(geth.Path, n.path):
			t.Fatalf("go-ethereum's missing node error is about owner %x, node %x, path %x", geth.Owner, geth.NodeHash, geth.Path)
		}
		if root := tr.Hash(); root != n.root {
			t.Fatalf("the failed change left the trie at root %x, not %x", root, n.root)
		}
	}
}

// TestSecureTrieInvalidNodeNamesTrie opens account and storage tries over
// a node source that serves a node that does not decode (a witness can
// hold one under its own hash): the error names the node and its trie.
func TestSecureTrieInvalidNodeNamesTrie(t *testing.T) {
	bad := []byte{0xc3, 0x80, 0x80, 0x80} // a list of three items: neither a short node nor a branch
	leaf := []byte{0xe3, 0x20, 0xa1, 0xa0}
	leaf = append(leaf, make([]byte, 32)...)
	root := make([]byte, 0, 2+17+2*32)
	root = append(root, 0xf8, 0x51)
	for i := range 17 {
		switch i {
		case 3:
			root = append(root, 0xa0)
			root = append(root, Keccak256(bad)...)
		case 5:
			root = append(root, 0xa0)
			root = append(root, Keccak256(leaf)...)
		default:
			root = append(root, 0x80)
		}
	}
	if len(root) != cap(root) {
		t.Fatalf("a root node of %d bytes", len(root))
	}
	// A key whose hash's first nibble is 3 leads to the bad node.
	var key []byte
	for i := 0; key == nil; i++ {
		if k := []byte{byte(i), byte(i >> 8)}; Keccak256(k)[0]>>4 == 3 {
			key = k
		}
	}
	for _, owner := range []common.Hash{{}, Keccak256Hash(storeA[:])} {
		id := trie.StorageTrieID(common.Hash{1}, owner, Keccak256Hash(root))
		tr, err := newSecureTrie(triehash.Options{}, id, nil, triehash.NewProofSource([][]byte{root, bad, leaf}), false, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tr.GetStorage(common.Address{}, key)
		var invalid *triehash.InvalidNodeError
		n := faultNode{owner: owner, hash: Keccak256Hash(bad), path: []byte{3}}
		if err == nil || !errors.As(err, &invalid) || !n.named(err) {
			t.Fatalf("owner %x: %v", owner, err)
		}
		if owner == (common.Hash{}) && !strings.Contains(err.Error(), "account trie") {
			t.Fatalf("the error does not name the account trie: %v", err)
		}
	}
}

package adapter

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/state/snapshot"
	"github.com/ethereum/go-ethereum/core/stateless"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"
)

// A state program is a run of go-ethereum StateDB calls decoded from bytes,
// made on go-ethereum's own state database and on NewStateDatabase side by
// side: balances, nonces, code, storage writes (zero among them), account
// and contract creation, self-destructs, touches of empty accounts,
// snapshots and reverts, transaction ends (Finalise), intermediate roots,
// reads of accounts and slots, and commits, each commit opening the next block's StateDB at the
// committed root. Eight addresses and eight slots make re-creation,
// clearing and emptying common. After every IntermediateRoot both roots
// must agree, and after every Commit the roots, the merged node sets
// (owner by owner and path by path, leaves included) and, when collected,
// the witnesses' nodes.
//
// The calls keep to what the EVM can ask of a StateDB, where go-ethereum
// would otherwise panic or refuse the commit for a reason of its own:
// nonces only grow, storage is written only to an account with a nonce,
// accounts and contracts are created as a CALL and a CREATE create them,
// and from Cancun on only a contract made in the same transaction is
// destroyed.
//
// The first byte sets up the run: bit 0 the path scheme (else the hash
// scheme), bit 1 a NodeCache on keccakroot's side, bit 2 the trie
// prefetcher, bit 3 Shanghai's rules (else Prague's, see programRules),
// bit 4 a witness for each block, bit 5 on the hash scheme a snapshot tree
// (the reads then come from it, and each commit updates it). Each operation is an opcode byte and its
// arguments (programArgs); a program ends where its bytes do (missing
// arguments read as zero) and then commits once more.

// The operations of a state program, by opcode modulo stateOps.
const (
	opAddBalance = iota
	opSubBalance
	opSetNonce
	opSetCode
	opSetState
	opSetStateZero
	opCreateAccount
	opCreateContract
	opSelfDestruct
	opTouch
	opSnapshot
	opRevert
	opFinalise
	opIntermediateRoot
	opCommit
	opReadAccount
	opReadState
	stateOps
)

// programRules returns the rules a program runs under: Shanghai, where
// SELFDESTRUCT destroys any account, or Prague, where it destroys only a
// contract made in the same transaction; both with EIP-158's deletion of
// empty accounts.
func programRules(prague bool) params.Rules {
	return params.Rules{
		IsHomestead: true, IsEIP150: true, IsEIP155: true, IsEIP158: true, IsEIP2929: true,
		IsByzantium: true, IsConstantinople: true, IsPetersburg: true, IsIstanbul: true,
		IsBerlin: true, IsLondon: true, IsMerge: true, IsShanghai: true, IsCancun: prague, IsPrague: prague,
	}
}

// programReader hands out a program's bytes, zeros once they run out.
type programReader struct {
	data []byte
	at   int
}

func (r *programReader) done() bool { return r.at >= len(r.data) }

func (r *programReader) next() byte {
	if r.done() {
		return 0
	}
	b := r.data[r.at]
	r.at++
	return b
}

// address is one of eight addresses, slot one of eight storage keys.
func (r *programReader) address() common.Address { return common.Address{19: 1 + r.next()%8} }
func (r *programReader) slot() common.Hash       { return common.Hash{31: r.next() % 8} }

// programSide is one side of a state program: its state database and the
// StateDB of the block being made.
type programSide struct {
	name     string
	sdb      state.Database
	db       *state.StateDB
	prefetch bool
	// witness, when collected, is the block's witness (see open).
	witness        *stateless.Witness
	collectWitness bool
}

// open starts block's StateDB at root.
func (s *programSide) open(t *testing.T, root common.Hash, block uint64) {
	t.Helper()
	db, err := state.New(root, s.sdb)
	if err != nil {
		t.Fatalf("%s: state.New(%x): %v", s.name, root, err)
	}
	s.db, s.witness = db, nil
	if s.collectWitness {
		// A witness needs no chain here: the block reads no block hash.
		if s.witness, err = stateless.NewWitness(&types.Header{Number: new(big.Int).SetUint64(block)}, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	if s.prefetch || s.witness != nil {
		db.StartPrefetcher("program", s.witness)
	}
}

// runStateProgram runs program on both sides and compares them. It
// counts what the commits held, as a lockstep does (see lockstep.seen).
func runStateProgram(t *testing.T, program []byte, seen map[string]int) {
	r := &programReader{data: program}
	setup := r.next()
	scheme, rules := schemes[setup&1], programRules(setup&8 == 0)
	var geth, ours programSide
	for _, side := range []*programSide{&geth, &ours} {
		disk := rawdb.NewMemoryDatabase()
		tdb := triedb.NewDatabase(disk, scheme.config)
		defer tdb.Close()
		mpt := state.NewMPTDatabase(tdb, state.NewCodeDB(disk))
		side.sdb, side.name, side.prefetch = mpt, "go-ethereum", setup&4 != 0
		side.collectWitness = setup&16 != 0
		if setup&32 != 0 && scheme.config.PathDB == nil {
			snaps, err := snapshot.New(snapshot.Config{CacheSize: 1}, disk, tdb, types.EmptyRootHash)
			if err != nil {
				t.Fatalf("snapshot: %v", err)
			}
			defer snaps.Release() // its cache's memory is not the collector's
			side.sdb = mpt.WithSnapshot(snaps)
		}
	}
	ours.name = "keccakroot"
	if setup&2 != 0 {
		ours.sdb = NewStateDatabaseWithNodeCache(ours.sdb, NewNodeCache(1<<20))
	} else {
		ours.sdb = NewStateDatabase(ours.sdb)
	}
	root, block := types.EmptyRootHash, uint64(0)
	geth.open(t, root, block+1)
	ours.open(t, root, block+1)
	defer func() {
		// The StateDBs the last commit opened: their prefetchers' goroutines
		// would hold them for ever.
		geth.db.StopPrefetcher()
		ours.db.StopPrefetcher()
	}()
	var snapshots []int
	both := func(do func(db *state.StateDB)) {
		do(geth.db)
		do(ours.db)
	}
	commit := func(at int) {
		t.Helper()
		block++
		want, wantUpdate, wantErr := geth.db.CommitWithUpdate(rules, block)
		got, gotUpdate, gotErr := ours.db.CommitWithUpdate(rules, block)
		geth.db.StopPrefetcher()
		ours.db.StopPrefetcher()
		if wantErr != nil || gotErr != nil {
			t.Fatalf("%s, byte %d, commit of block %d: keccakroot: %v; go-ethereum: %v", scheme.name, at, block, gotErr, wantErr)
		}
		if got != want {
			t.Fatalf("%s, byte %d, commit of block %d: root %x, go-ethereum %x", scheme.name, at, block, got, want)
		}
		if err := sameMergedNodeSet(gotUpdate.Nodes, wantUpdate.Nodes); err != nil {
			t.Fatalf("%s, byte %d, commit of block %d: %v", scheme.name, at, block, err)
		}
		countCommitted(seen, wantUpdate.Nodes)
		for _, account := range wantUpdate.Accounts {
			if account == nil {
				seen["account deleted"]++
			}
		}
		if _, ok := ours.db.GetTrie().(*SecureTrie); !ok {
			t.Fatalf("keccakroot's StateDB has a %T for its account trie", ours.db.GetTrie())
		}
		if want := geth.witness; want != nil {
			if err := sameWitnessNodes(ours.witness, want); err != nil {
				t.Fatalf("%s, byte %d, block %d: %v", scheme.name, at, block, err)
			}
			seen["witness node"] += len(want.State)
		}
		root = got
		geth.open(t, root, block+1)
		ours.open(t, root, block+1)
		snapshots = snapshots[:0]
	}
	// An account the program cannot reach keeps the state from ever going
	// back to the empty root: the path scheme's disk layer has that root,
	// and pathdb refuses a new layer with its disk layer's root.
	anchor := common.Address{0: 0xee}
	both(func(db *state.StateDB) { db.AddBalance(anchor, uint256.NewInt(1), tracing.BalanceChangeUnspecified) })
	commit(0)
	for !r.done() {
		at := r.at
		switch op := r.next() % stateOps; op {
		case opAddBalance, opSubBalance:
			addr, amount := r.address(), uint256.NewInt(uint64(r.next()))
			both(func(db *state.StateDB) {
				if op == opAddBalance {
					db.AddBalance(addr, amount, tracing.BalanceChangeUnspecified)
				} else {
					db.SubBalance(addr, amount, tracing.BalanceChangeUnspecified)
				}
			})
		case opSetNonce:
			// Nonces only grow, as transactions and creations make them.
			addr, step := r.address(), uint64(1+r.next()%3)
			both(func(db *state.StateDB) { db.SetNonce(addr, db.GetNonce(addr)+step, tracing.NonceChangeUnspecified) })
		case opSetCode:
			addr, code := r.address(), make([]byte, r.next()%48)
			for i := range code {
				code[i] = r.next()
			}
			both(func(db *state.StateDB) { db.SetCode(addr, code, tracing.CodeChangeUnspecified) })
		case opSetState, opSetStateZero:
			addr, slot := r.address(), r.slot()
			var value common.Hash
			if op == opSetState {
				value[31], value[0] = r.next(), r.next()&1
			}
			// Only an account with a nonce runs code that writes storage
			// (a contract is made with nonce 1, and a delegating account
			// has sent its authorization), so an account with storage is
			// never empty: EIP-158 never deletes one, which from Cancun
			// on would be an error.
			both(func(db *state.StateDB) {
				if db.GetNonce(addr) > 0 {
					db.SetState(addr, slot, value)
				}
			})
		case opCreateAccount, opCreateContract:
			// As the EVM does: an account is created only where none
			// exists (a call carrying value, or a CREATE), and a contract
			// only where there is no code, nonce or storage (EIP-684 and
			// EIP-7610), over an account that may hold a balance.
			addr := r.address()
			both(func(db *state.StateDB) {
				if !db.Exist(addr) {
					db.CreateAccount(addr)
				}
				storage := db.GetStorageRoot(addr)
				if op == opCreateContract && db.GetNonce(addr) == 0 && db.GetCodeSize(addr) == 0 &&
					(storage == common.Hash{} || storage == types.EmptyRootHash) {
					db.CreateContract(addr)
					db.SetNonce(addr, 1, tracing.NonceChangeNewContract)
				}
			})
		case opSelfDestruct:
			// From Cancun on (EIP-6780) the EVM destroys only a contract
			// made in the same transaction.
			addr := r.address()
			both(func(db *state.StateDB) {
				if !rules.IsCancun || db.IsNewContract(addr) {
					db.SelfDestruct(addr)
				}
			})
		case opTouch:
			addr := r.address()
			both(func(db *state.StateDB) { db.Touch(addr) })
		case opSnapshot:
			id := geth.db.Snapshot()
			if ours.db.Snapshot() != id {
				t.Fatal("the two StateDBs numbered a snapshot differently")
			}
			snapshots = append(snapshots, id)
		case opRevert:
			if n := len(snapshots); n > 0 {
				id := snapshots[n-1]
				snapshots = snapshots[:n-1]
				both(func(db *state.StateDB) { db.RevertToSnapshot(id) })
			}
		case opFinalise:
			both(func(db *state.StateDB) { db.Finalise(rules) })
			snapshots = snapshots[:0]
		case opIntermediateRoot:
			want, got := geth.db.IntermediateRoot(rules), ours.db.IntermediateRoot(rules)
			if got != want {
				t.Fatalf("%s, byte %d, block %d: IntermediateRoot %x, go-ethereum %x", scheme.name, at, block+1, got, want)
			}
			snapshots = snapshots[:0]
		case opCommit:
			commit(at)
		case opReadAccount:
			// A read, which a witness must prove: go-ethereum's prefetcher
			// loads it into a trie of the database, for the witness to
			// take that trie's nodes.
			addr := r.address()
			if got, want := ours.db.GetBalance(addr), geth.db.GetBalance(addr); !got.Eq(want) {
				t.Fatalf("%s, byte %d: balance of %x %v, go-ethereum %v", scheme.name, at, addr, got, want)
			}
		case opReadState:
			addr, slot := r.address(), r.slot()
			if got, want := ours.db.GetState(addr, slot), geth.db.GetState(addr, slot); got != want {
				t.Fatalf("%s, byte %d: slot %x of %x %x, go-ethereum %x", scheme.name, at, slot, addr, got, want)
			}
		}
		if err, wantErr := ours.db.Error(), geth.db.Error(); err != nil || wantErr != nil {
			t.Fatalf("%s, byte %d: state error: keccakroot: %v; go-ethereum: %v", scheme.name, at, err, wantErr)
		}
	}
	commit(len(program))
}

// FuzzStateDB runs state programs (see above) on both state databases.
func FuzzStateDB(f *testing.F) {
	p := func(ops ...byte) []byte { return ops }
	for setup := byte(0); setup < 64; setup++ {
		// Storage written, committed, then cleared slot by slot until the
		// storage trie is gone, and the account with it.
		f.Add(p(setup, opSetNonce, 1, 0, opSetState, 1, 0, 7, 0, opSetState, 1, 1, 9, 1, opCommit,
			opSetStateZero, 1, 0, opIntermediateRoot, opSetStateZero, 1, 1, opCommit))
		// A contract destroyed and made again at its address with other
		// storage, in one block and across two.
		f.Add(p(setup, opCreateContract, 2, opSetCode, 2, 3, 0x60, 0x00, 0xff, opSetState, 2, 3, 4, 0,
			opSelfDestruct, 2, opFinalise, opCreateContract, 2, opSetState, 2, 5, 6, 0, opCommit,
			opSelfDestruct, 2, opCommit, opCreateContract, 2, opSetState, 2, 5, 6, 0, opSelfDestruct, 2, opCommit))
		// Reverted writes, touched empty accounts and balances.
		f.Add(p(setup, opAddBalance, 3, 10, opSetNonce, 3, 0, opSnapshot, opSetState, 3, 1, 1, 0, opAddBalance, 4, 2,
			opRevert, opTouch, 5, opSubBalance, 3, 10, opFinalise, opAddBalance, 6, 1, opCommit))
	}
	f.Fuzz(func(t *testing.T, program []byte) {
		if len(program) > 4096 {
			return // long programs add nothing a short one cannot reach
		}
		runStateProgram(t, program, map[string]int{})
	})
}

// programArgs is the number of argument bytes of each operation; opSetCode
// takes two and then as many as its code's length.
var programArgs = [stateOps]int{
	opAddBalance: 2, opSubBalance: 2, opSetNonce: 2, opSetState: 4, opSetStateZero: 2,
	opCreateAccount: 1, opCreateContract: 1, opSelfDestruct: 1, opTouch: 1,
	opReadAccount: 1, opReadState: 2,
}

// TestStateDBRandomPrograms runs random state programs, each made of
// operations chosen with weights that favour storage and commits, on both
// state databases.
func TestStateDBRandomPrograms(t *testing.T) {
	programs := 200
	if testing.Short() {
		programs = 20
	}
	rng := rand.New(rand.NewChaCha8([32]byte{'s', 't', 'a', 't', 'e'}))
	weights := [stateOps]int{
		opAddBalance: 6, opSubBalance: 2, opSetNonce: 4, opSetCode: 2, opSetState: 12, opSetStateZero: 6,
		opCreateAccount: 2, opCreateContract: 2, opSelfDestruct: 2, opTouch: 2, opSnapshot: 2, opRevert: 2,
		opFinalise: 4, opIntermediateRoot: 2, opCommit: 3, opReadAccount: 3, opReadState: 4,
	}
	total, seen := 0, map[string]int{}
	for _, w := range weights {
		total += w
	}
	for i := range programs {
		program := []byte{byte(i % 64)}
		for range 40 + rng.IntN(80) {
			pick := rng.IntN(total)
			op := 0
			for pick >= weights[op] {
				pick -= weights[op]
				op++
			}
			program = append(program, byte(op))
			args := programArgs[op]
			if op == opSetCode {
				code := rng.IntN(48)
				program = append(program, byte(rng.Uint32()), byte(code))
				args = code
			}
			for range args {
				program = append(program, byte(rng.Uint32()))
			}
		}
		runStateProgram(t, program, seen)
	}
	for _, what := range []string{"account trie changed", "storage trie changed", "storage trie removed", "account deleted", "witness node"} {
		if seen[what] == 0 {
			t.Errorf("%d programs, and no commit had this: %s", programs, what)
		}
	}
	t.Logf("what the commits held: %v", seen)
}

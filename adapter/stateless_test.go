package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/stateless"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
)

// witnessRun is what a stateless execution made of a block: refused, or
// the roots it returned.
type witnessRun struct {
	refused bool
	err     error
}

// runStateless runs one stateless execution and reports whether it refused
// the block: an error, or a root other than the header's. go-ethereum's
// Witness.Root panics on a witness without headers: a refusal too.
func runStateless(block *types.Block, exec func() (stateRoot, receiptRoot [32]byte, err error)) (run witnessRun) {
	defer func() {
		if r := recover(); r != nil {
			run = witnessRun{refused: true}
		}
	}()
	stateRoot, receiptRoot, err := exec()
	return witnessRun{refused: err != nil || stateRoot != block.Root() || receiptRoot != block.ReceiptHash(), err: err}
}

// TestExecuteStatelessTampered builds witnesses of blocks of every fork of
// the state chain with go-ethereum, tampers with them (a node removed, a
// byte of a node changed, the parent header dropped, a code removed, an
// unreferenced node added) and has both go-ethereum's ExecuteStateless and
// keccakroot's verify each: the same decision every time, keccakroot's
// refusals as errors that say what is missing.
func TestExecuteStatelessTampered(t *testing.T) {
	chain := makeStateChain()
	l := newLockstep(t, chain.genesis, beacon.New(ethash.NewFaker()), lockstepMode{scheme: 1, witness: true})
	decisions := map[string]int{}
	for i, block := range chain.blocks {
		if i%11 == 5 {
			w := buildWitness(t, l, block)
			for name, tampered := range tamperings(w) {
				decisions[name+compareStateless(t, l, block, name, tampered)]++
			}
		}
		if err := l.execute(block); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"a node removed", "a node changed", "the parent header dropped"} {
		if decisions[name+byBoth]+decisions[name+byKeccakroot] == 0 {
			t.Errorf("%s: never refused", name)
		}
	}
	if decisions["an extra node"+byBoth]+decisions["an extra node"+byKeccakroot] != 0 {
		t.Errorf("a witness with an extra node was refused")
	}
	t.Logf("decisions: %v", decisions)
}

// TestExecuteStatelessEachNodeRemoved removes each node of the witness of a
// block in the middle of each fork of the state chain in turn (with -short,
// a third of them), a witness for each, and has both implementations
// verify every one: the same decisions, but for nodes go-ethereum's
// execution found missing too and went on without (see
// gethIgnoredMissingNode), which keccakroot refuses.
func TestExecuteStatelessEachNodeRemoved(t *testing.T) {
	chain := makeStateChain()
	l := newLockstep(t, chain.genesis, beacon.New(ethash.NewFaker()), lockstepMode{scheme: 1, witness: true})
	decisions := map[string]int{}
	for i, block := range chain.blocks {
		if i%stateChainForkBlocks == stateChainForkBlocks/2 {
			w := buildWitness(t, l, block)
			for k, node := range slices.Sorted(maps.Keys(w.State)) {
				if testing.Short() && k%3 != i%3 {
					continue // a third of the nodes, a different third each block
				}
				removed := func() *stateless.Witness {
					c := &stateless.Witness{Headers: w.Headers, Codes: w.Codes, State: maps.Clone(w.State)}
					delete(c.State, node)
					return c
				}
				name := fmt.Sprintf("node %x removed", Keccak256([]byte(node)))
				decisions["a node removed"+compareStateless(t, l, block, name, removed)]++
			}
		}
		if err := l.execute(block); err != nil {
			t.Fatal(err)
		}
	}
	if decisions["a node removed"+byBoth] == 0 {
		t.Fatal("no removed node was refused")
	}
	t.Logf("decisions: %v", decisions)
}

// gethIgnoredMissingNode reports whether go-ethereum's stateless execution
// of block on witness, as core.ExecuteStateless runs it, recorded in its
// StateDB the error of the trie node that ourErr, keccakroot's refusal,
// names as missing: go-ethereum's processing and ValidateState do not look
// at that error, so where the empty value it read instead was the right
// one (a slot absent before and after), it accepts the block.
func gethIgnoredMissingNode(t *testing.T, l *lockstep, block *types.Block, witness *stateless.Witness, ourErr error) bool {
	t.Helper()
	var ours *trie.MissingNodeError
	if !errors.As(ourErr, &ours) {
		return false
	}
	memdb := witness.MakeHashDB()
	statedb, err := state.New(witness.Root(), state.NewDatabase(triedb.NewDatabase(memdb, triedb.HashDefaults), state.NewCodeDB(memdb)))
	if err != nil {
		return false
	}
	res, err := core.NewStateProcessor(l).Process(context.Background(), block, statedb, nil, nil, vm.Config{}, nil)
	if err == nil {
		err = core.NewBlockValidator(l.config, nil).ValidateState(block, statedb, res, true)
	}
	if err != nil {
		return false
	}
	statedb.IntermediateRoot(l.config.Rules(block.Number(), true, block.Time()))
	var theirs *trie.MissingNodeError
	return errors.As(statedb.Error(), &theirs) && theirs.NodeHash == ours.NodeHash && theirs.Owner == ours.Owner
}

// The decisions compareStateless reports, after the tampering's name.
const (
	byNone       = ": accepted by both"
	byBoth       = ": refused by both"
	byKeccakroot = ": refused by keccakroot, accepted by go-ethereum ignoring its own trie error"
)

// compareStateless has go-ethereum's core.ExecuteStateless and keccakroot's
// ExecuteStateless verify block on the witness tampered makes and fails the
// test unless they decide alike, or keccakroot alone refuses a witness
// missing a node that go-ethereum's execution also found missing (see
// gethIgnoredMissingNode). keccakroot's refusals must say what is missing.
func compareStateless(t *testing.T, l *lockstep, block *types.Block, name string, tampered func() *stateless.Witness) string {
	t.Helper()
	gethRun := func() witnessRun {
		return runStateless(block, func() ([32]byte, [32]byte, error) {
			return core.ExecuteStateless(context.Background(), l.config, vm.Config{}, block, tampered())
		})
	}
	ourRun := func() witnessRun {
		return runStateless(block, func() ([32]byte, [32]byte, error) {
			return ExecuteStateless(context.Background(), l.config, vm.Config{}, block, tampered())
		})
	}
	want, got := gethRun(), ourRun()
	// Which sibling a branch's collapse needs can depend on the order
	// go-ethereum's StateDB deletes a trie's slots in, a map's, on both
	// sides: a removed node one run needs, the next may not. The decisions
	// must agree for some order.
	for try := 0; try < 20 && got.refused != want.refused; try++ {
		if want = gethRun(); got.refused != want.refused {
			got = ourRun()
		}
	}
	decision := byNone
	switch {
	case got.refused && !want.refused && gethIgnoredMissingNode(t, l, block, tampered(), got.err):
		decision = byKeccakroot
	case got.refused != want.refused:
		t.Fatalf("block %d, %s: keccakroot refused %v (%v), go-ethereum %v (%v)", block.NumberU64(), name, got.refused, got.err, want.refused, want.err)
	case got.refused:
		decision = byBoth
	}
	if got.refused && (got.err == nil || !errors.Is(got.err, ErrWitness) && !strings.Contains(got.err.Error(), "parent")) {
		t.Fatalf("block %d, %s: refused with %v, not an error that says what is missing", block.NumberU64(), name, got.err)
	}
	return decision
}

// buildWitness executes block on go-ethereum's own state database with
// witness collection, as the lockstep does, and returns the witness.
func buildWitness(t *testing.T, l *lockstep, block *types.Block) *stateless.Witness {
	t.Helper()
	parent := l.headers[block.ParentHash()]
	run, err := l.run(l.geth, parent, block)
	if err != nil {
		t.Fatal(err)
	}
	return run.witness
}

// tamperings returns ways to spoil w, by name, each making a new witness.
func tamperings(w *stateless.Witness) map[string]func() *stateless.Witness {
	nodes := slices.Sorted(maps.Keys(w.State))
	codes := slices.Sorted(maps.Keys(w.Codes))
	edit := func(f func(c *stateless.Witness)) func() *stateless.Witness {
		return func() *stateless.Witness {
			c := &stateless.Witness{Headers: slices.Clone(w.Headers), Codes: maps.Clone(w.Codes), State: maps.Clone(w.State)}
			f(c)
			return c
		}
	}
	out := map[string]func() *stateless.Witness{
		"an extra node": edit(func(c *stateless.Witness) { c.State[string([]byte{0xc2, 0x80, 0x80})] = struct{}{} }),
		"the parent header dropped": edit(func(c *stateless.Witness) {
			c.Headers = c.Headers[1:]
		}),
	}
	if len(nodes) > 0 {
		victim := nodes[len(nodes)/2]
		out["a node removed"] = edit(func(c *stateless.Witness) { delete(c.State, victim) })
		out["a node changed"] = edit(func(c *stateless.Witness) {
			delete(c.State, victim)
			b := []byte(victim)
			b[len(b)-1] ^= 1
			c.State[string(b)] = struct{}{}
		})
	}
	if len(codes) > 0 {
		out["a code removed"] = edit(func(c *stateless.Witness) { delete(c.Codes, codes[0]) })
	}
	return out
}

// TestExecuteStatelessMissingNode checks that a missing node is reported as
// go-ethereum reports one, as well as by ErrWitness.
func TestExecuteStatelessMissingNode(t *testing.T) {
	chain := makeStateChain()
	l := newLockstep(t, chain.genesis, beacon.New(ethash.NewFaker()), lockstepMode{scheme: 1, witness: true})
	block := chain.blocks[0]
	w := buildWitness(t, l, block)
	w.State = map[string]struct{}{} // not even the root
	_, _, err := ExecuteStateless(context.Background(), l.config, vm.Config{}, block, w)
	var missing *trie.MissingNodeError
	if !errors.Is(err, ErrWitness) || !errors.As(err, &missing) || missing.NodeHash != w.Headers[0].Root {
		t.Fatalf("a witness without nodes: %v, want ErrWitness and go-ethereum's missing node %x", err, w.Headers[0].Root)
	}
	if _, _, err := ExecuteStateless(context.Background(), l.config, vm.Config{}, block, &stateless.Witness{}); !errors.Is(err, ErrWitness) {
		t.Fatalf("a witness without headers: %v", err)
	}
	for _, data := range []string{"", "{", "0xzz", "{\"headers\": [null]}", "\xc0"} {
		if _, err := DecodeWitness([]byte(data)); !errors.Is(err, ErrWitness) {
			t.Errorf("DecodeWitness(%q): %v, want ErrWitness", data, err)
		}
	}
}

// FuzzExecuteStateless decodes fuzzed witnesses, in both wire forms, and
// executes the first block of the state chain on each one that decodes:
// never a panic, and a witness that gives the header's roots is one that
// go-ethereum's stateless execution accepts too.
func FuzzExecuteStateless(f *testing.F) {
	chain := generateStateChain(1) // every fuzzing process makes it: the first block only
	l := newLockstep(f, chain.genesis, beacon.New(ethash.NewFaker()), lockstepMode{scheme: 1, witness: true})
	block := chain.blocks[0]
	parent := l.headers[block.ParentHash()]
	run, err := l.run(l.geth, parent, block)
	if err != nil {
		f.Fatal(err)
	}
	for _, w := range append([]*stateless.Witness{run.witness}, wireWitnesses(f, run.witness)...) {
		enc, err := rlp.EncodeToBytes(w)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
	}
	js, err := json.Marshal(run.witness.ToExtWitness())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(js)
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := DecodeWitness(data)
		if err != nil {
			if !errors.Is(err, ErrWitness) {
				t.Fatalf("DecodeWitness: %v, not an ErrWitness", err)
			}
			return
		}
		// VerifyStateless accepts only what passes every check, with the
		// header's roots, and never panics.
		if stateRoot, receiptRoot, err := VerifyStateless(context.Background(), l.config, vm.Config{}, block, w); err == nil && (stateRoot != block.Root() || receiptRoot != block.ReceiptHash()) {
			t.Fatalf("VerifyStateless accepts roots %x, %x; the header has %x, %x", stateRoot, receiptRoot, block.Root(), block.ReceiptHash())
		}
		stateRoot, receiptRoot, err := ExecuteStateless(context.Background(), l.config, vm.Config{}, block, w)
		if err != nil || stateRoot != block.Root() || receiptRoot != block.ReceiptHash() {
			return
		}
		want := runStateless(block, func() ([32]byte, [32]byte, error) {
			return core.ExecuteStateless(context.Background(), l.config, vm.Config{}, block, w)
		})
		if want.refused {
			t.Fatalf("keccakroot accepts a witness go-ethereum refuses (%v)", want.err)
		}
	})
}

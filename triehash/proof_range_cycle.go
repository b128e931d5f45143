package triehash

import (
	"fmt"
	"slices"
)

// ErrProofCycle: the proof's nodes lead a key's path back to a node it has
// passed, without the key advancing, so the path never ends. Only a source
// that files nodes under hashes other than their own can do this (the
// proofs of a key-value database that does not check what it is given);
// go-ethereum's verifiers loop forever on it.
var ErrProofCycle = fmt.Errorf("triehash: proof nodes form a cycle")

// cycleGuard watches the stored nodes a walk down a key's path loads. The
// walk is determined by the node it loads and the position in the key, so
// a node loaded twice at one position means the walk goes round for ever.
// Positions only grow, and a path that does not advance between two loads
// needs an extension with an empty key, which no trie has: the guard keeps
// no more than the one hash of the current position unless that happens.
type cycleGuard struct {
	pos   int
	first [32]byte
	more  [][32]byte
}

func newCycleGuard() cycleGuard { return cycleGuard{pos: -1} }

// check records that the walk loads hash at key position pos, and returns
// ErrProofCycle if it has loaded it there before.
func (g *cycleGuard) check(pos int, hash [32]byte) error {
	if pos != g.pos {
		g.pos, g.first, g.more = pos, hash, g.more[:0]
		return nil
	}
	if hash == g.first || slices.Contains(g.more, hash) {
		return fmt.Errorf("%w: node %x at key position %d", ErrProofCycle, hash, pos)
	}
	g.more = append(g.more, hash)
	return nil
}

package triehash

import (
	"bytes"
	"sync"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/rlpstream"
)

// Leaves taken from a guess. Most of a batch's loads from a large stored
// trie end at a leaf: the last node on a key's path, and the one least
// likely to be in any cache (a block's keys are new to it, where the
// branches above them are shared). A caller that has just read the key's
// value elsewhere (go-ethereum's StateDB reads every account and slot it
// changes through its flat state reader first) knows what that leaf holds,
// save where it sits: the leaf of key k at depth d is the list of the
// compact encoding of k's nibbles from d and the value, so a guess of the
// value names one node for each depth, and its hash says whether it is the
// node the parent branch refers to there. A guess that is right spares the
// source's read; one that is wrong costs a hash, and the load goes on as
// before: nothing the trie reports depends on a guess.

// HintedSource is a NodeSource that may know the values its trie's keys
// hold in the stored trie. Where it knows the value of a key, the trie's
// loads along that key's path (Get, Update and Delete, Prefetch and
// UpdateBatch) hash the leaf the value would make at the depth of each
// node below the root they are about to ask the source for, and take the
// leaf without asking if its hash is the one the parent branch holds.
// Prefetch and UpdateBatch guess only for a node that no other key with a
// value needs in the same round: a leaf holds one key. Nothing the trie
// reports depends on the values: a wrong one costs a hash.
type HintedSource interface {
	NodeSource
	// ExpectedValue returns the value key (as given to the trie) is
	// believed to hold in the stored trie, or nil if the source has no
	// guess. It may be called from several goroutines at once.
	ExpectedValue(key []byte) []byte
	// HintTaken tells the source that the trie took blob, the stored node
	// at path whose hash it checked, from a guess instead of asking the
	// source for it (a source that records what the trie reads, for a
	// witness, records it). It may be called from several goroutines at
	// once.
	HintTaken(path, blob []byte)
}

// appendGuessedLeaf appends the leaf node of the nibbles suffix (ending
// with the terminator) and value.
func appendGuessedLeaf(dst, suffix, value []byte) []byte {
	dst = rlpstream.AppendListHeader(dst, compactSizeOf(suffix)+rlpstream.BytesSize(value))
	dst = appendCompactNibbles(dst, suffix)
	return rlpstream.AppendBytes(dst, value)
}

// guessScratch is guessLeaves' working memory: the guesses' encodings and
// their checks. The loaders of a batch's workers are made for each batch,
// so their scratch comes from a pool rather than growing anew each time.
type guessScratch struct {
	buf    []byte
	ends   []int
	checks nodeChecks
}

var guessScratches = sync.Pool{New: func() any { return new(guessScratch) }}

// guessLeaves takes, for the requests of reqs that carry a guess, the
// guessed leaf where its hash is the one asked for: such a request then
// has its blob and needs no lookup. Most guesses are wrong (a key's walk
// guesses at every node it loads, and only its last is a leaf), so they are
// encoded into scratch memory, and only the leaves taken copied out, into
// one allocation a chunk: the nodes decoded from them keep them.
func guessLeaves(reqs []loadRequest) {
	g := guessScratches.Get().(*guessScratch)
	defer guessScratches.Put(g)
	buf, ends := g.buf[:0], g.ends[:0]
	for i := range reqs {
		if r := &reqs[i]; r.guess != nil {
			buf = appendGuessedLeaf(buf, r.suffix, r.guess)
			ends = append(ends, len(buf))
		}
	}
	g.buf, g.ends = buf, ends
	if len(ends) == 0 {
		return
	}
	c := &g.checks
	start, j := 0, 0
	for i := range reqs {
		if r := &reqs[i]; r.guess != nil {
			c.add(r.hash, buf[start:ends[j]], i)
			start = ends[j]
			j++
		}
	}
	c.hashAll()
	size := 0
	for j := range c.tags {
		if !c.wrong(j) {
			size += len(c.blobs[j])
		}
	}
	if size > 0 {
		taken := make([]byte, 0, size)
		for j, i := range c.tags {
			if !c.wrong(j) {
				start := len(taken)
				taken = append(taken, c.blobs[j]...)
				reqs[i].blob, reqs[i].guessed = taken[start:len(taken):len(taken)], true
			}
		}
	}
	c.reset()
}

// expectedValue returns the value the trie's hints expect the key of the
// nibbles k (terminator included) to hold, or nil: also for nibbles that
// are not a whole key (a node's path).
func (t *Trie) expectedValue(k []byte) []byte {
	if t.hints == nil {
		return nil
	}
	n := len(k) - 1
	if n < 0 || k[n] != terminator || n%2 != 0 || n > 2*maxHintedKey {
		return nil
	}
	var buf [maxHintedKey]byte
	for i := 0; i < n; i += 2 {
		buf[i/2] = k[i]<<4 | k[i+1]
	}
	return t.hints.ExpectedValue(buf[:n/2])
}

// maxHintedKey is the longest key, in bytes, whose value loadPath asks the
// hints for: a secure trie's keys are 32 bytes.
const maxHintedKey = 64

// lookupOrGuess returns the node h at k[:pos] on the way of the key k:
// the leaf the expected value makes, if expect is not nil and the leaf's
// hash is h, reported to the hints as taken; otherwise the source's (see
// lookup). It reports whether the node is the guess.
func (t *Trie) lookupOrGuess(h *hashNode, k []byte, pos int, expect []byte) ([]byte, bool, error) {
	if expect != nil && pos > 0 {
		t.guessBuf = appendGuessedLeaf(t.guessBuf[:0], k[pos:], expect)
		if fastkeccak.Sum256(t.guessBuf) == [32]byte(*h) {
			blob := bytes.Clone(t.guessBuf)
			t.hints.HintTaken(k[:pos], blob)
			return blob, true, nil
		}
	}
	blob, err := t.lookup(h, k[:pos])
	return blob, false, err
}

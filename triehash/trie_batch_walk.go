package triehash

import (
	"bytes"
	"math"

	"github.com/keccakroot/keccakroot/internal/prefetch"
)

// Loading a batch's paths a level at a time. A load waits on memory twice,
// for the source's lookup and for the first read of the node's bytes, and
// the next node on a key's path is known only once its parent is decoded:
// walked key by key, a batch's loads wait one after another. The loads of
// different keys do not depend on each other, so a walk takes all of its
// keys down together, in rounds: each round moves every key as far as the
// loaded nodes take it, asks the source for every node the keys stopped
// at, reads a byte of each answer, and only then decodes them, so that the
// waits of a round's loads overlap.

// walker is one key on its way down its path.
type walker struct {
	slot   *node  // where the key's path goes next
	k      []byte // the key's nibbles, with the terminator
	pos    int    // the depth of *slot
	key    int32  // the key's index in the batch
	change int8   // what the key is loaded for: forRead, forInsert or forDelete
	// expect is the value the trie's HintedSource expects the key to hold,
	// nil if none, asked for when the walk first has a node to load below
	// the root (asked): see trie_hints.go.
	expect []byte
	asked  bool
}

// loadRequest is a node a round loads, into the slot that holds its hash.
type loadRequest struct {
	slot           *node
	hash           *hashNode
	pathAt, pathTo int   // the node's path in the loader's path buffer
	key            int32 // the first key whose path needs the node, noKey if none does
	blob           []byte
	loaded         node
	err            error
	// guess is the value of the one key with a guess whose walk needs the
	// node, if no other such key's does, and suffix that key's nibbles
	// from the node's depth: the leaf they make may be the node.
	guess, suffix []byte
	guessed       bool // blob is the guessed leaf, its hash checked
	guessedTwice  bool // two keys with guesses need the node
}

// noKey marks a node loaded only in case a change needs it.
const noKey = math.MaxInt32

// walk loads, for every walker, the nodes along its key's nibbles from its
// slot down to where the key ends or leaves the trie, putting each loaded
// node in place of its hash. On the way it loads the nodes the key's change
// may need: for a deletion the children of the branches that the batch's
// deletions might leave with one child, for an insertion the child of an
// extension it splits, which a deletion of the same key later in the batch
// merges with. A failure of those loads only marks the loader incomplete.
// It returns the smallest index of a key whose own path fails to load and
// that load's error, or -1 and nil; keys after a key that fails may stay
// unloaded, as in a walk key by key.
func (l *nodeLoader) walk(ws []walker) (int, error) {
	if l.seen == nil {
		l.seen = make(map[*node]int)
	}
	first, firstErr := int32(noKey), error(nil)
	for len(ws) > 0 {
		l.reqs, l.paths = l.reqs[:0], l.paths[:0]
		clear(l.seen)
		live := ws[:0]
		for _, w := range ws {
			if w.key < first && l.advance(&w) {
				live = append(live, w)
			}
		}
		ws = live
		if len(l.reqs) == 0 {
			break
		}
		l.fetch()
		for i := range l.reqs {
			r := &l.reqs[i]
			switch {
			case r.err == nil:
				*r.slot = r.loaded
			case r.key == noKey:
				l.incomplete = true
			case r.key < first:
				first, firstErr = r.key, r.err
			}
			r.blob, r.loaded, r.err = nil, nil, nil
		}
	}
	if firstErr == nil {
		return -1, nil
	}
	return int(first), firstErr
}

// advance moves w down through loaded nodes, asking for the loads it
// needs on the way, and reports whether w stopped at a node to
// load (false: its path ends).
func (l *nodeLoader) advance(w *walker) bool {
	for {
		switch n := (*w.slot).(type) {
		case *hashNode:
			l.request(w.slot, n, w.key, w.k[:w.pos])
			if w.pos > 0 && l.t.hints != nil {
				if !w.asked {
					w.expect, w.asked = l.t.expectedValue(w.k), true
				}
				if w.expect != nil {
					l.guessFor(w)
				}
			}
			return true
		case *shortNode:
			if !bytes.HasPrefix(w.k[w.pos:], n.key) {
				if h, ok := n.val.(*hashNode); ok && w.change == forInsert && l.deletes != nil {
					l.request(&n.val, h, noKey, w.k[:w.pos], n.key...)
				}
				return false
			}
			w.slot, w.pos = &n.val, w.pos+len(n.key)
		case *fullNode:
			if w.pos >= len(w.k) {
				return false
			}
			if w.change == forDelete && l.mayCollapse(n, w.k[:w.pos]) {
				for i, child := range n.children[:16] {
					if h, ok := child.(*hashNode); ok {
						l.request(&n.children[i], h, noKey, w.k[:w.pos], byte(i))
					}
				}
			}
			w.slot, w.pos = &n.children[w.k[w.pos]], w.pos+1
		default: // nil or a value: the path ends
			return false
		}
	}
}

// request asks the round to load h into *slot, at path followed by more,
// for the given key (noKey for none). A node asked for twice in a round is
// loaded once, for the first key that asked for it.
func (l *nodeLoader) request(slot *node, h *hashNode, key int32, path []byte, more ...byte) {
	if i, ok := l.seen[slot]; ok {
		l.reqs[i].key = min(l.reqs[i].key, key)
		return
	}
	l.seen[slot] = len(l.reqs)
	from := len(l.paths)
	l.paths = append(append(l.paths, path...), more...)
	l.reqs = append(l.reqs, loadRequest{slot: slot, hash: h, key: key, pathAt: from, pathTo: len(l.paths)})
}

// guessFor attaches w's guess to the request just made or found for its
// slot, or, if another key's guess is there, takes both away: a leaf holds
// one key.
func (l *nodeLoader) guessFor(w *walker) {
	r := &l.reqs[l.seen[w.slot]]
	switch {
	case r.guess == nil && !r.guessedTwice:
		r.guess, r.suffix = w.expect, w.k[w.pos:]
	default:
		r.guess, r.suffix, r.guessedTwice = nil, nil, true
	}
}

// fetchChunk is the number of requests fetch takes through each of its
// steps at a time: enough to keep many of their reads in flight, few
// enough that what one step read is still in the core's cache for the
// next.
const fetchChunk = 256

// fetch loads the round's requests, fetchChunk at a time: first every
// lookup in the source, then a read of every answer's lines, then the
// decoding, so that the waits on memory of different requests overlap.
func (l *nodeLoader) fetch() {
	for start := 0; start < len(l.reqs); start += fetchChunk {
		l.fetchChunk(l.reqs[start:min(start+fetchChunk, len(l.reqs))])
	}
}

func (l *nodeLoader) fetchChunk(reqs []loadRequest) {
	t := l.t
	if t.hints != nil {
		guessLeaves(reqs)
	}
	for i := range reqs {
		if r := &reqs[i]; !r.guessed {
			r.blob, r.err = t.lookup(r.hash, l.paths[r.pathAt:r.pathTo])
		}
	}
	if t.checkNodes {
		l.checkChunk(reqs)
	}
	var sink byte
	for i := range reqs {
		sink ^= prefetch.Read(reqs[i].blob)
	}
	l.sink ^= sink
	for i := range reqs {
		if r := &reqs[i]; r.err == nil {
			r.loaded, r.err = decodeLoaded(&l.alloc, r.hash, l.paths[r.pathAt:r.pathTo], r.blob)
			if r.guessed {
				t.hints.HintTaken(l.paths[r.pathAt:r.pathTo], r.blob)
			}
		}
	}
}

// checkChunk checks the nodes that a chunk's lookups found against the
// hashes they were asked for, together (see nodeChecks), for a trie over a
// VerifyingSource. A node of another hash is the request's error, as
// loadPath reports it.
func (l *nodeLoader) checkChunk(reqs []loadRequest) {
	c := &l.checks
	c.reset()
	for i := range reqs {
		if r := &reqs[i]; r.err == nil && !r.guessed {
			c.add(r.hash, r.blob, i) // tagged with the request's index
		}
	}
	c.hashAll()
	for j, i := range c.tags {
		if c.wrong(j) {
			r := &reqs[i]
			r.blob, r.err = nil, c.err(j, l.paths[r.pathAt:r.pathTo])
		}
	}
	c.reset() // the loader holds no nodes between chunks
}

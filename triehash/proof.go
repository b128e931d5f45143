package triehash

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// Merkle proofs, by go-ethereum's rules (trie/proof.go): a proof of a key
// is the list of nodes on the path from the root toward the key, each
// encoded as stored, leaving out nodes embedded in their parent (the root
// is always in). The same list proves a key's absence: it ends where the
// path leaves the trie.

// Errors of proof verification, wrapped with the node at fault; test for
// them with errors.Is.
var (
	// ErrProofNodeMissing: the proof lacks a node on the key's path.
	ErrProofNodeMissing = errors.New("triehash: proof node missing")
	// ErrProofNodeInvalid: a node of the proof does not decode.
	ErrProofNodeInvalid = errors.New("triehash: invalid proof node")
)

// Prove returns the proof of key in the trie as it is now (changes since
// the last Commit included): the nodes from the root toward key, in that
// order, as eth_getProof lists them and go-ethereum's Trie.Prove writes
// them. For a key that is not in the trie, the nodes prove its absence.
// An empty trie has an empty proof.
//
// The nodes it loads from the source are not kept in the trie, as
// go-ethereum's Prove does not keep them: proofs served from a trie that
// lives long, one per request, would otherwise load the whole trie into
// memory over time. A Get or change of the key later loads them again.
func (t *Trie) Prove(key []byte) ([][]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	t.Hash()
	k := keyNibbles(key)
	var path []node
	n, pos := t.root, 0
walk:
	for pos < len(k) && n != nil {
		switch nn := n.(type) {
		case *shortNode:
			path = append(path, nn)
			if !bytes.HasPrefix(k[pos:], nn.key) {
				break walk
			}
			n, pos = nn.val, pos+len(nn.key)
		case *fullNode:
			path = append(path, nn)
			n, pos = nn.children[k[pos]], pos+1
		case *hashNode:
			loaded, err := t.loadPath(nn, k, pos)
			if err != nil {
				return nil, err
			}
			n = loaded
		default:
			break walk
		}
	}
	proof := make([][]byte, 0, len(path))
	for i, n := range path {
		enc := appendNode(nil, n)
		if len(enc) >= 32 || i == 0 {
			proof = append(proof, enc)
		}
	}
	return proof, nil
}

// proofSet is the nodes of one or more proofs, by hash.
type proofSet map[[32]byte][]byte

func newProofSet(nodes [][]byte) proofSet {
	set := make(proofSet, len(nodes))
	digests := make([][32]byte, len(nodes))
	fastkeccak.Sum256Batch(digests, nodes)
	for i, blob := range nodes {
		set[digests[i]] = blob
	}
	return set
}

// NewProofSource returns the nodes of one or many proofs, or of a block
// witness, as a NodeSource keyed by their hashes: NewTrie(root,
// NewProofSource(nodes)) opens the partial trie those nodes reveal, which
// can be read, changed and rehashed along the proven paths. That is the
// primitive of stateless verification. A path the nodes do not reveal is a
// MissingNodeError. The nodes are not copied: do not change them. The
// source only reads, so it is safe for concurrent use.
func NewProofSource(nodes [][]byte) NodeSource { return newProofSet(nodes) }

// Node returns the node with the given hash, wherever its path.
func (s proofSet) Node(_ []byte, hash [32]byte) ([]byte, error) {
	if blob, ok := s[hash]; ok {
		return blob, nil
	}
	return nil, ErrProofNodeMissing
}

// VerifyProof checks a proof of key against root and returns the value it
// proves, or nil and no error if it proves that key is absent. The proof is
// a list of nodes in any order, extra nodes allowed, as go-ethereum's
// VerifyProof takes them in a database; an error names the node that is
// missing or does not decode. It accepts and rejects exactly the proofs
// go-ethereum does, and never panics.
func VerifyProof(root [32]byte, key []byte, proof [][]byte) ([]byte, error) {
	return VerifyProofFrom(root, key, proofSource(proof))
}

// VerifyProofFrom is VerifyProof with the proof's nodes in a source that
// looks them up by hash, such as go-ethereum's proof databases; the paths
// it is given are those the nodes would have if the proof holds. A nil
// source holds no nodes.
func VerifyProofFrom(root [32]byte, key []byte, proof NodeSource) ([]byte, error) {
	if proof == nil {
		proof = proofSource(nil)
	}
	k := keyNibbles(key)
	want, pos := root, 0
	guard := newCycleGuard()
	for i := 0; ; i++ {
		if err := guard.check(pos, want); err != nil {
			return nil, err
		}
		blob, err := proof.Node(k[:pos], want)
		if err != nil || len(blob) == 0 {
			return nil, fmt.Errorf("%w: node %d of the path, hash %x", ErrProofNodeMissing, i, want)
		}
		step, err := walkStored(blob, k[pos:])
		if err != nil {
			return nil, fmt.Errorf("%w: node %d of the path, hash %x: %w", ErrProofNodeInvalid, i, want, err)
		}
		switch step.kind {
		case walkAbsent:
			return nil, nil
		case walkHash:
			pos, want = len(k)-len(step.rest), [32]byte(step.hash)
		case walkValue:
			return step.value, nil
		}
	}
}

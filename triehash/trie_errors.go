package triehash

import (
	"errors"
	"fmt"
)

// ErrMissingNode is wrapped by every MissingNodeError; test for it with
// errors.Is.
var ErrMissingNode = errors.New("triehash: missing trie node")

// ErrInvalidNode is wrapped by every InvalidNodeError; test for it with
// errors.Is.
var ErrInvalidNode = errors.New("triehash: invalid trie node")

// MissingNodeError reports a node that a Trie needed and its NodeSource did
// not have: go-ethereum's trie.MissingNodeError.
type MissingNodeError struct {
	Path []byte   // the node's path from the root, one nibble a byte
	Hash [32]byte // the hash its parent refers to it by
	Err  error    // what the source returned, if anything
}

func (e *MissingNodeError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("triehash: missing trie node %x (path %x): %v", e.Hash, e.Path, e.Err)
	}
	return fmt.Sprintf("triehash: missing trie node %x (path %x)", e.Hash, e.Path)
}

// Is makes errors.Is(err, ErrMissingNode) true.
func (e *MissingNodeError) Is(target error) bool { return target == ErrMissingNode }

// Unwrap returns the source's error.
func (e *MissingNodeError) Unwrap() error { return e.Err }

// InvalidNodeError reports a node that its NodeSource returned but that
// does not decode as a trie node. (A node without the hash its parent
// refers to it by is the source's error, as VerifyingSource reports it: a
// *MissingNodeError.)
type InvalidNodeError struct {
	Path []byte   // the node's path from the root, one nibble a byte
	Hash [32]byte // the hash its parent refers to it by
	Err  error    // what is wrong with it
}

func (e *InvalidNodeError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("triehash: invalid trie node %x (path %x): %v", e.Hash, e.Path, e.Err)
	}
	return fmt.Sprintf("triehash: invalid trie node %x (path %x)", e.Hash, e.Path)
}

// Is makes errors.Is(err, ErrInvalidNode) true.
func (e *InvalidNodeError) Is(target error) bool { return target == ErrInvalidNode }

// Unwrap returns the decoding error.
func (e *InvalidNodeError) Unwrap() error { return e.Err }

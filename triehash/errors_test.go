package triehash

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// TestErrorsQuoteKeysShortly checks that an error about a key quotes at most
// maxQuoted bytes of it, once, whichever entry point raised it: a 5,000-byte
// key must not turn into 20 KB of hex.
func TestErrorsQuoteKeysShortly(t *testing.T) {
	long := bytes.Repeat([]byte{0xab}, 5000)
	head := hex.EncodeToString(long[:maxQuoted])
	value := []byte{1}
	many := func(key []byte) ([][]byte, [][]byte) {
		keys := [][]byte{{0x10}, {0x20}, key}
		return keys, [][]byte{value, value, value}
	}
	cases := []struct {
		name string
		want error
		run  func() error
	}{
		{"Builder.Update, long key", ErrKeyTooLong, func() error { return NewBuilder(nil).Update(long, value) }},
		{"Builder.Update, empty value", ErrEmptyValue, func() error { return NewBuilder(nil).Update(long[:MaxKeyLength], nil) }},
		{"ParallelBuilder.Update, long key", ErrKeyTooLong, func() error {
			return NewParallelBuilder(nil, 2).Update(long, value)
		}},
		{"Root, long key", ErrKeyTooLong, func() error { _, err := Root(many(long)); return err }},
		{"Root, duplicate long key", ErrDuplicateKey, func() error {
			k := long[:MaxKeyLength]
			_, err := Root([][]byte{k, {0x10}, k}, [][]byte{value, value, value})
			return err
		}},
	}
	for _, c := range cases {
		err := c.run()
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
			continue
		}
		msg := err.Error()
		if n := strings.Count(msg, head); n != 1 {
			t.Errorf("%s: the key's first %d bytes appear %d times in %q", c.name, maxQuoted, n, msg)
		}
		if len(msg) > 4*maxQuoted+100 {
			t.Errorf("%s: error of %d bytes: %.200q...", c.name, len(msg), msg)
		}
	}
}

// TestNilArguments hands nil to the functions that take a source, an
// account or a callback: each answers as its doc says, and none panics.
func TestNilArguments(t *testing.T) {
	root := [32]byte{1}
	if _, err := VerifyProofFrom(root, []byte{1}, nil); !errors.Is(err, ErrProofNodeMissing) {
		t.Errorf("VerifyProofFrom with a nil source: %v, want ErrProofNodeMissing", err)
	}
	if blob, err := VerifyingSource(nil).Node(nil, root); blob != nil || err != nil {
		t.Errorf("VerifyingSource(nil).Node = %x, %v; want no node", blob, err)
	}
	var missing *MissingNodeError
	if _, err := NewTrie(root, VerifyingSource(nil)); !errors.As(err, &missing) || missing.Hash != root {
		t.Errorf("NewTrie over VerifyingSource(nil): %v, want a MissingNodeError for the root", err)
	}
	want, err := rlp.EncodeToBytes((*types.StateAccount)(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendAccount([]byte{7}, nil); !bytes.Equal(got, append([]byte{7}, want...)) {
		t.Errorf("AppendAccount(nil) appended %x, want go-ethereum's %x", got[1:], want)
	}
	if got := ListRoot(3, nil); got != EmptyRoot {
		t.Errorf("ListRoot with a nil value = %x, want EmptyRoot", got)
	}
}

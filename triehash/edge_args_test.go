package triehash

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/trie"
)

// TestAppendStorageValueNil: a nil slot value is a zero value, stored as
// nothing, as a nil account is an empty list for AppendAccount.
func TestAppendStorageValueNil(t *testing.T) {
	cases := []struct {
		name string
		dst  []byte
	}{
		{"nil dst", nil},
		{"empty dst", []byte{}},
		{"dst with bytes", []byte{7, 8}},
	}
	for _, c := range cases {
		var got []byte
		panicked := recovering(func() { got = AppendStorageValue(c.dst, nil) })
		want := AppendStorageValue(bytes.Clone(c.dst), new([32]byte))
		if panicked != nil || !bytes.Equal(got, want) || len(got) != len(c.dst) {
			t.Errorf("%s: AppendStorageValue(%x, nil) = %x (panic %v), want %x unchanged", c.name, c.dst, got, panicked, want)
		}
	}
}

// TestZeroParallelBuilder: the zero ParallelBuilder builds the same root
// as go-ethereum's StackTrie, whether its keys fill less than a chunk or
// several, instead of failing at its first Update or waiting for ever for
// workers it never started.
func TestZeroParallelBuilder(t *testing.T) {
	cases := []struct {
		name  string
		keys  int
		batch bool // through UpdateBatch rather than Update
	}{
		{"one key", 1, false},
		{"a few keys", 3, false},
		{"several chunks", 2*parallelChunk + 5, false},
		{"several chunks, UpdateBatch", 2*parallelChunk + 5, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			keys, values := make([][]byte, c.keys), make([][]byte, c.keys)
			st := trie.NewStackTrie(nil)
			for i := range keys {
				keys[i] = binary.BigEndian.AppendUint32(nil, uint32(i*7+1))
				values[i] = fmt.Appendf(nil, "value %d", i)
				if err := st.Update(keys[i], values[i]); err != nil {
					t.Fatal(err)
				}
			}
			want := [32]byte(st.Hash())

			type result struct {
				root     [32]byte
				err      error
				panicked any
			}
			done := make(chan result, 1)
			go func() {
				var r result
				r.panicked = recovering(func() {
					var p ParallelBuilder
					if c.batch {
						r.err = p.UpdateBatch(keys, values)
					} else {
						for i := range keys {
							if r.err = p.Update(keys[i], values[i]); r.err != nil {
								return
							}
						}
					}
					r.root = p.Hash()
				})
				done <- r
			}()
			select {
			case r := <-done:
				if r.panicked != nil || r.err != nil || r.root != want {
					t.Errorf("root %x, error %v, panic %v; want %x", r.root, r.err, r.panicked, want)
				}
			case <-time.After(time.Minute):
				t.Fatal("the zero ParallelBuilder does not finish")
			}
		})
	}
}

// recovering calls f and returns what it panicked with, nil if it did not.
func recovering(f func()) (panicked any) {
	defer func() { panicked = recover() }()
	f()
	return nil
}

// TestNodeErrorMessages: the node errors name the node and its path, and
// their cause only when they have one (an error made without it printed
// ": <nil>").
func TestNodeErrorMessages(t *testing.T) {
	cause := errors.New("bad list")
	hash := [32]byte{0xab}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&MissingNodeError{Hash: hash, Path: []byte{1, 2}}, fmt.Sprintf("triehash: missing trie node %x (path 0102)", hash)},
		{&MissingNodeError{Hash: hash, Path: []byte{1, 2}, Err: cause}, fmt.Sprintf("triehash: missing trie node %x (path 0102): bad list", hash)},
		{&InvalidNodeError{Hash: hash, Path: []byte{3}}, fmt.Sprintf("triehash: invalid trie node %x (path 03)", hash)},
		{&InvalidNodeError{Hash: hash, Path: []byte{3}, Err: cause}, fmt.Sprintf("triehash: invalid trie node %x (path 03): bad list", hash)},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%#v: %q, want %q", c.err, got, c.want)
		}
	}
}

package triehash

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
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

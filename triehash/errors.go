package triehash

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
)

// Errors returned, wrapped with the offending key, by Builder.Update, Root
// and SecureRoot. Test for them with errors.Is.
var (
	// ErrUnsorted: a Builder was given a key smaller than the one before.
	ErrUnsorted = errors.New("triehash: keys out of order")
	// ErrDuplicateKey: the same key was given twice.
	ErrDuplicateKey = errors.New("triehash: duplicate key")
	// ErrEmptyValue: an empty value means deletion in a trie, which a
	// builder of new tries cannot express; leave the key out instead.
	ErrEmptyValue = errors.New("triehash: empty value")
	// ErrKeyTooLong: the key is longer than MaxKeyLength.
	ErrKeyTooLong = errors.New("triehash: key too long")
	// ErrHashed: Update after Hash; call Reset to start a new trie.
	ErrHashed = errors.New("triehash: builder already hashed")
	// ErrLengthMismatch: keys and values slices of different lengths.
	ErrLengthMismatch = errors.New("triehash: keys and values differ in length")
)

// maxQuoted is how many bytes of a key or value an error quotes: enough to
// recognise it, and a message about a key of thousands of bytes stays short.
const maxQuoted = 64

// quote formats a key or value for an error: its hex, cut to maxQuoted bytes
// and followed by its length when it is longer.
func quote(b []byte) string {
	if len(b) <= maxQuoted {
		return hex.EncodeToString(b)
	}
	return hex.EncodeToString(b[:maxQuoted]) + "... (" + strconv.Itoa(len(b)) + " bytes)"
}

// withOriginalKey adds the key a caller gave to an error about the key the
// builder saw, where the two differ (the secure tries hash their keys); an
// error about the caller's own key already names it.
func withOriginalKey(err error, seen, original []byte) error {
	if bytes.Equal(seen, original) {
		return err
	}
	return fmt.Errorf("key %s: %w", quote(original), err)
}

// checkUpdate checks an Update of key and value, as Builder and
// ParallelBuilder take them, before the key's order: it returns the error
// of a Builder already hashed, an empty value, or a key too long. The check
// is kept small enough to inline, the errors built out of line.
func checkUpdate(hashed bool, key, value []byte) error {
	if !hashed && len(value) > 0 && len(key) <= MaxKeyLength {
		return nil
	}
	return updateError(hashed, key, value)
}

// updateError is the error checkUpdate found.
func updateError(hashed bool, key, value []byte) error {
	switch {
	case hashed:
		return fmt.Errorf("%w: Update(%s) after Hash; call Reset first", ErrHashed, quote(key))
	case len(value) == 0:
		return fmt.Errorf("%w: key %s (a trie cannot store an empty value)", ErrEmptyValue, quote(key))
	}
	return fmt.Errorf("%w: key of %d bytes, at most %d: %s", ErrKeyTooLong, len(key), MaxKeyLength, quote(key))
}

// orderError is the error of key following prev, where it does not come
// strictly after it.
func orderError(prev, key []byte) error {
	if bytes.Equal(prev, key) {
		return fmt.Errorf("%w: %s", ErrDuplicateKey, quote(key))
	}
	return fmt.Errorf("%w: key %s after %s (keys must ascend)", ErrUnsorted, quote(key), quote(prev))
}

package triehash

import "errors"

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

package rlpstream

import (
	"errors"
	"strconv"
)

// Sentinel errors of the reader and the encoder. The reader never returns
// them bare: it wraps them in an *OffsetError that tells where the input went
// wrong, so test them with errors.Is.
var (
	// ErrUnexpectedEnd reports input that ends inside an item header, or
	// no input at all where an item was expected.
	ErrUnexpectedEnd = errors.New("rlpstream: unexpected end of input")

	// ErrNonCanonicalSize reports a size that is not written in its one
	// canonical form: a single byte below 0x80 wrapped in a string header, a
	// long-form length with a leading zero byte, or a long-form length below
	// 56 that the short form could have held.
	ErrNonCanonicalSize = errors.New("rlpstream: non-canonical size information")

	// ErrValueTooLarge reports an item whose header claims more content than
	// the input (or the enclosing list) holds.
	ErrValueTooLarge = errors.New("rlpstream: value size exceeds available input length")

	// ErrTrailingData reports bytes after the one item that the input was
	// expected to hold.
	ErrTrailingData = errors.New("rlpstream: input contains more than one value")

	// ErrExpectedList reports a byte or string where a list was required.
	ErrExpectedList = errors.New("rlpstream: expected list")

	// ErrNegativeBigInt reports an attempt to encode a negative *big.Int,
	// which RLP cannot represent.
	ErrNegativeBigInt = errors.New("rlpstream: cannot encode negative big.Int")
)

// OffsetError is the error type of the reader: a sentinel error together with
// the offset, in bytes from the start of the input given to the reader, of the
// item header (or trailing data) at fault. Use errors.Is to test for the
// sentinel and errors.As to recover the offset.
type OffsetError struct {
	Offset int   // position of the offending header or data in the input
	Err    error // one of the sentinel errors of this package
}

// Error returns the sentinel's message followed by the offset. An
// OffsetError made by hand without Err (the reader never makes one) says
// only that the input is invalid there, rather than dereferencing nil.
func (e *OffsetError) Error() string {
	msg := "rlpstream: invalid input"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	return msg + " at offset " + strconv.Itoa(e.Offset)
}

// Unwrap returns the sentinel error, so that errors.Is sees through the
// offset.
func (e *OffsetError) Unwrap() error { return e.Err }

// errAt wraps a sentinel with an offset. It is kept out of line so that the
// reader's hot paths stay small.
//
//go:noinline
func errAt(err error, off int) error {
	return &OffsetError{Offset: off, Err: err}
}

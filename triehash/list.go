package triehash

import (
	"sync"

	"github.com/keccakroot/keccakroot/rlpstream"
)

// ListRoot returns the root that go-ethereum's types.DeriveSha computes for
// a list of n items (transactions, receipts, withdrawals): item i is stored
// under the key RLP(uint(i)). value appends the encoding of item i to buf
// and returns it; buf is reused between calls.
//
// No sort is needed. RLP(0) is 0x80, which sorts after the single bytes
// 0x01..0x7f and before the two-byte keys of 128 and up, so inserting items
// 1..127, then 0, then 128.. gives ascending keys. As in go-ethereum, an item
// whose encoding is empty is left out, and a nil value encodes nothing: the
// root is then EmptyRoot.
//
// Unlike Root and SecureRoot, ListRoot does not read ahead of its input:
// its keys are made here, and each value is encoded into buf by value just
// before it is hashed, so there is no memory of the caller's for it to ask
// the core for; the caller's encoder reads its own items.
func ListRoot(n int, value func(i int, buf []byte) []byte) [32]byte {
	if value == nil {
		return EmptyRoot
	}
	l := listBuilders.Get().(*listBuilder)
	defer listBuilders.Put(l)
	l.b.Reset()
	for i := 1; i < n && i <= 0x7f; i++ {
		l.insert(i, value)
	}
	if n > 0 {
		l.insert(0, value)
	}
	for i := 0x80; i < n; i++ {
		l.insert(i, value)
	}
	return l.b.Hash()
}

// listBuilder is ListRoot's state, pooled: a block's roots are computed
// over and over, and a warm Builder allocates nothing.
type listBuilder struct {
	b   Builder
	key [9]byte
	buf []byte
}

var listBuilders = sync.Pool{New: func() any { return new(listBuilder) }}

func (l *listBuilder) insert(i int, value func(i int, buf []byte) []byte) {
	v := value(i, l.buf[:0])
	// Keep v's memory for the next item only if it is buf's, or buf's
	// grown by append: a callback that returns a slice of its own must not
	// have it written into by a later ListRoot of anyone, buf being pooled.
	if cap(v) > 0 && cap(l.buf) > 0 && &v[:1][0] == &l.buf[:1][0] {
		l.buf = v[:0]
	} else if cap(v) > cap(l.buf) {
		l.buf = make([]byte, 0, cap(v))
	}
	if len(v) == 0 {
		return
	}
	// Keys ascend by construction and are short: this cannot fail. The
	// Builder copies key and value.
	_ = l.b.Update(rlpstream.AppendUint64(l.key[:0], uint64(i)), v)
}

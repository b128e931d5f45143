package triehash

import "github.com/keccakroot/keccakroot/rlpstream"

// ListRoot returns the root that go-ethereum's types.DeriveSha computes for
// a list of n items (transactions, receipts, withdrawals): item i is stored
// under the key RLP(uint(i)). value appends the encoding of item i to buf
// and returns it; buf is reused between calls.
//
// No sort is needed. RLP(0) is 0x80, which sorts after the single bytes
// 0x01..0x7f and before the two-byte keys of 128 and up, so inserting items
// 1..127, then 0, then 128.. gives ascending keys. As in go-ethereum, an item
// whose encoding is empty is left out.
func ListRoot(n int, value func(i int, buf []byte) []byte) [32]byte {
	var b Builder
	// The Builder borrows the key and value of the pending item until the
	// next update, so two of each alternate instead of being copied.
	var keys [2][9]byte
	var bufs [2][]byte
	turn := 0
	insert := func(i int) {
		bufs[turn] = value(i, bufs[turn][:0])
		if len(bufs[turn]) == 0 {
			return
		}
		key := rlpstream.AppendUint64(keys[turn][:0], uint64(i))
		// Keys ascend by construction and are short: this cannot fail.
		_ = b.update(key, bufs[turn], true)
		turn ^= 1
	}
	for i := 1; i < n && i <= 0x7f; i++ {
		insert(i)
	}
	if n > 0 {
		insert(0)
	}
	for i := 0x80; i < n; i++ {
		insert(i)
	}
	return b.Hash()
}

// Package rlpstream writes RLP straight into a hasher and reads RLP strictly.
//
// Ethereum hashes almost nothing but RLP: headers, transactions, accounts,
// trie nodes. The usual way is to encode a value into a buffer and then hash
// the buffer. This package instead computes sizes first and writes the
// encoding front to back straight into the sink, with every header and every
// single byte going through the sink's one-byte WriteByte, so that hashing an
// RLP value needs no buffer and no allocation. The output is byte-identical
// to go-ethereum's rlp package.
//
// Where to start: NewWriter to hash a value as it is encoded, with the size
// functions (Uint64Size, BytesSize, ListSize, ...) for its list headers;
// Validate to accept untrusted input, and Split or an Iterator to read it.
//
// The functions of the package keep no state and may be called from any
// number of goroutines at once; a Writer, StreamWriter or Iterator belongs
// to one goroutine at a time, as its sink does.
//
// # Encoding
//
// There are three sinks with the same operations and the same output:
//
//   - Writer, around a *fastkeccak.Hasher: the fast path for hashing;
//   - StreamWriter, for any io.Writer that is also an io.ByteWriter, such as
//     *bytes.Buffer or *bufio.Writer;
//   - the Append functions, which append to a []byte.
//
// Each encodes byte strings (WriteBytes, also for fixed-size arrays such as
// addresses and hashes), strings, uint64, *big.Int, *uint256.Int, bool, list
// headers, pre-encoded items (WriteRaw) and the typed-transaction envelope.
// Because nothing is buffered, a list's header is written before its content
// and needs the content's size, which the size functions (BytesSize,
// Uint64Size, ListSize, ...) compute by arithmetic alone. A nested list is
// an element whose size is ListSize of its own content size.
//
// Hashing an account, the list [nonce, balance, storage root, code hash]:
//
//	var h fastkeccak.Hasher
//	w := rlpstream.NewWriter(&h)
//	w.WriteListHeader(rlpstream.Uint64Size(nonce) + rlpstream.Uint256Size(balance) +
//		rlpstream.BytesSize(root[:]) + rlpstream.BytesSize(codeHash[:]))
//	w.WriteUint64(nonce)
//	w.WriteUint256(balance)
//	w.WriteBytes(root[:])
//	w.WriteBytes(codeHash[:])
//	sum := h.Sum256()
//
// # Reading
//
// Split reads one item and returns its kind, content and the rest; Validate
// accepts exactly one canonical item, checked all the way down, and nothing
// after it; Iterator walks the items of a list, with the offset of each, and
// CountValues counts them. None of them copies, allocates on success, reads
// outside the input or trusts a size before checking it against the input.
// ReadHeader parses an item's header alone, from its first bytes, for a
// reader of a stream that must know an item's size before it reads it.
//
// The canonical rules are go-ethereum's: a single byte below 0x80 is never
// wrapped in a string header, a long-form length has no leading zero byte
// and is at least 56, and every size fits in what is left of the input (and
// so in an int, also on 32-bit platforms). Errors are *OffsetError values
// that wrap a sentinel (ErrNonCanonicalSize, ErrValueTooLarge, ...) with the
// offset where the input went wrong:
//
//	if err := rlpstream.Validate(data); errors.Is(err, rlpstream.ErrNonCanonicalSize) {
//		// reject the message
//	}
package rlpstream

package fastkeccak

import (
	"encoding/binary"
	"hash"
)

const (
	// rate is the number of bytes absorbed or squeezed per permutation for
	// Keccak-256: 1600 bits of state minus 2*256 bits of capacity.
	rate = 136
	// digestSize is the length of a Keccak-256 digest in bytes.
	digestSize = 32
	// domainByte is the first padding byte of legacy Keccak. FIPS 202
	// SHA3-256 uses 0x06 instead; Ethereum predates the standard.
	domainByte = 0x01
)

// Hasher computes Keccak-256 incrementally. The zero value is an empty hash
// ready for writing. A Hasher is a plain value without pointers: a copy,
// made at any time, carries on from the same state independently of the
// original, which is how Clone works.
//
// Like go-ethereum's KeccakState, a Hasher switches from absorbing to
// squeezing at the first Read; after that, Write, WriteByte, WriteString, Sum
// and Sum256 panic until Reset, exactly as golang.org/x/crypto/sha3 does.
//
// A Hasher is not safe for concurrent use, with one exception: Sum, Sum256,
// Clone, MarshalBinary, AppendBinary, Size and BlockSize only read it, so
// any number of goroutines may call them at once as long as none writes to
// it.
type Hasher struct {
	// a is the Keccak-f[1600] state; lane (x, y) is a[x+5*y].
	a [25]uint64
	// buf holds input not yet XORed into a. Only buf[:n] is meaningful while
	// absorbing; bytes after it are stale and never read. Buffering instead of
	// XORing each byte into a keeps WriteByte to one store.
	buf [rate]byte
	// n is, while absorbing, the number of bytes in buf: 0 to rate-1, as a
	// full block is absorbed at once. The first Read switches to squeezing
	// and n becomes rate plus the number of bytes of the current output
	// block already read. One field for both keeps WriteByte's fast path to
	// a single comparison, small enough for the compiler to inline.
	n int
}

// squeezing reports whether Read has been called since the last Reset.
func (h *Hasher) squeezing() bool { return h.n >= rate }

// Compile-time checks of the interfaces the package promises.
var (
	_ hash.Hash   = (*Hasher)(nil)
	_ hash.Cloner = (*Hasher)(nil)
)

// New returns a new, empty Hasher. A zero Hasher works just as well; New
// exists for callers that want a hash.Hash-style constructor.
func New() *Hasher { return new(Hasher) }

// Size returns the digest length in bytes, 32.
func (h *Hasher) Size() int { return digestSize }

// BlockSize returns the sponge rate in bytes, 136: the amount of input that
// costs one permutation.
func (h *Hasher) BlockSize() int { return rate }

// Reset returns the Hasher to its zero state, ready for a new message.
func (h *Hasher) Reset() {
	h.a = [25]uint64{}
	h.n = 0
}

// WriteByte absorbs one byte. It is the fast path for encoders that emit
// prefixes and small integers a byte at a time: one store into the block
// buffer, and a permutation only when the block fills. It never fails.
func (h *Hasher) WriteByte(c byte) error {
	if h.n < rate-1 {
		h.buf[h.n] = c
		h.n++
		return nil
	}
	h.writeLastByte(c)
	return nil
}

// writeLastByte is WriteByte's slow path: the byte that fills the block, or
// a write after Read.
func (h *Hasher) writeLastByte(c byte) {
	if h.squeezing() {
		panicWriteAfterRead()
	}
	h.buf[rate-1] = c
	h.absorbBuffer()
}

// Write absorbs p. It never fails; the error is there for io.Writer.
func (h *Hasher) Write(p []byte) (int, error) {
	if h.squeezing() {
		panicWriteAfterRead()
	}
	written := len(p)
	if h.n > 0 {
		k := copy(h.buf[h.n:], p)
		h.n += k
		p = p[k:]
		if h.n < rate {
			return written, nil
		}
		h.absorbBuffer()
	}
	if full := len(p) - len(p)%rate; full > 0 {
		// Whole blocks go to the permutation straight from the caller's
		// slice, without passing through buf.
		absorb(&h.a, p[:full])
		p = p[full:]
	}
	h.n = copy(h.buf[:], p)
	return written, nil
}

// WriteString absorbs s without converting it to a byte slice on the heap.
func (h *Hasher) WriteString(s string) (int, error) {
	if h.squeezing() {
		panicWriteAfterRead()
	}
	written := len(s)
	for len(s) > 0 {
		k := copy(h.buf[h.n:], s)
		h.n += k
		s = s[k:]
		if h.n == rate {
			h.absorbBuffer()
		}
	}
	return written, nil
}

// absorbBuffer XORs the full block buffer into the state and permutes.
func (h *Hasher) absorbBuffer() {
	absorb(&h.a, h.buf[:])
	h.n = 0
}

// Sum appends the digest of the data written so far to b and returns the
// result. It does not change the Hasher, and it does not allocate when b has
// 32 bytes of spare capacity.
func (h *Hasher) Sum(b []byte) []byte {
	d := h.Sum256()
	return append(b, d[:]...)
}

// Sum256 returns the digest of the data written so far. It only reads the
// Hasher, so any number of goroutines may call it at once on one Hasher as
// long as none of them writes to it.
func (h *Hasher) Sum256() [32]byte {
	if h.squeezing() {
		panic("fastkeccak: Sum after Read")
	}
	a := h.a
	absorbLast(&a, h.buf[:h.n], domainByte)
	return digest(&a)
}

// Read squeezes the next len(out) bytes of output; the first 32 bytes are the
// digest. It never fails. Read switches the Hasher to squeezing: Write and
// Sum panic until Reset. A Read that ends exactly at the end of a block
// leaves the next permutation for the next Read that needs it, so reading a
// 32-byte digest costs exactly one permutation after the last input block.
func (h *Hasher) Read(out []byte) (int, error) {
	if !h.squeezing() {
		absorbLast(&h.a, h.buf[:h.n], domainByte)
		h.n = rate
	}
	read := len(out)
	for len(out) > 0 {
		if h.n == 2*rate {
			permute(&h.a)
			h.n = rate
		}
		k := copyOut(out, &h.a, h.n-rate)
		h.n += k
		out = out[k:]
	}
	return read, nil
}

// Clone returns an independent copy of the Hasher, in the same state. The
// error is always nil; it is there for hash.Cloner.
func (h *Hasher) Clone() (hash.Cloner, error) {
	c := *h
	return &c, nil
}

// pad applies Keccak's pad10*1, starting with the given domain byte, to a
// block whose first n bytes are message and whose remaining bytes are zero.
func pad(block *[rate]byte, n int, domain byte) {
	block[n] ^= domain
	block[rate-1] ^= 0x80
}

// absorbLast XORs tail, the last len(tail) < rate bytes of a message, and
// the padding that follows them (pad10*1, starting with the domain byte)
// into a, and permutes. Working lane by lane in the state, not in a
// zeroed block buffer handed to absorb, spares the buffer's clearing and
// the XOR of its zero lanes: most of the fixed cost of a one-block
// message beside its permutation.
func absorbLast(a *[25]uint64, tail []byte, domain byte) {
	i := 0
	for ; len(tail) >= 8; i++ {
		a[i] ^= binary.LittleEndian.Uint64(tail)
		tail = tail[8:]
	}
	last := uint64(domain) << (8 * len(tail))
	for j, c := range tail {
		last |= uint64(c) << (8 * j)
	}
	a[i] ^= last
	a[rate/8-1] ^= 0x80 << 56
	permute(a)
}

// digest returns the first 32 bytes of output of a state.
func digest(a *[25]uint64) [32]byte {
	var d [32]byte
	binary.LittleEndian.PutUint64(d[0:], a[0])
	binary.LittleEndian.PutUint64(d[8:], a[1])
	binary.LittleEndian.PutUint64(d[16:], a[2])
	binary.LittleEndian.PutUint64(d[24:], a[3])
	return d
}

// copyOutLanes is copyOut lane by lane, for any byte order: FIPS 202 reads
// the state's lanes as little-endian words.
func copyOutLanes(out []byte, a *[25]uint64, off int) int {
	k := min(len(out), rate-off)
	out = out[:k]
	for len(out) > 0 {
		if off%8 == 0 && len(out) >= 8 {
			binary.LittleEndian.PutUint64(out, a[off/8])
			out = out[8:]
			off += 8
			continue
		}
		out[0] = byte(a[off/8] >> (8 * (off % 8)))
		out = out[1:]
		off++
	}
	return k
}

func panicWriteAfterRead() {
	panic("fastkeccak: Write after Read")
}

// Sum256 returns the Keccak-256 digest of data. It is safe for concurrent
// use, as every function of the package is. It allocates nothing and
// copies nothing: whole blocks are absorbed straight from data, and the
// last, partial one lane by lane with its padding.
func Sum256(data []byte) [32]byte {
	return sum256(data, domainByte)
}

// sum256 is Sum256 with the first padding byte as a parameter, so that the
// same code can be checked against the published SHA3-256 (0x06)
// known-answer vectors, which share everything with Keccak-256 but that byte.
func sum256(data []byte, domain byte) [32]byte {
	var a [25]uint64
	if full := len(data) - len(data)%rate; full > 0 {
		absorb(&a, data[:full])
		data = data[full:]
	}
	absorbLast(&a, data, domain)
	return digest(&a)
}

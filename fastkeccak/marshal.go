package fastkeccak

import (
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
)

// The marshalled form is the one golang.org/x/crypto/sha3 writes for its
// legacy Keccak-256, so a state moves between the two in both directions:
// magic, rate, the 200 state bytes, the buffer offset, the sponge direction.
const (
	marshalMagic = "sha\x0b"
	marshalSize  = len(marshalMagic) + 1 + 200 + 1 + 1

	directionAbsorbing = 0
	directionSqueezing = 1
)

// ErrInvalidState is returned, wrapped with the reason, by UnmarshalBinary
// for input that is not a marshalled Keccak-256 state.
var ErrInvalidState = errors.New("fastkeccak: invalid hash state")

var (
	_ encoding.BinaryMarshaler   = (*Hasher)(nil)
	_ encoding.BinaryAppender    = (*Hasher)(nil)
	_ encoding.BinaryUnmarshaler = (*Hasher)(nil)
)

// MarshalBinary returns the Hasher's state in golang.org/x/crypto/sha3's
// format for legacy Keccak-256.
func (h *Hasher) MarshalBinary() ([]byte, error) {
	return h.AppendBinary(make([]byte, 0, marshalSize))
}

// AppendBinary appends the Hasher's state, as MarshalBinary returns it, to b.
func (h *Hasher) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, marshalMagic...)
	b = append(b, rate)
	start := len(b)
	for _, lane := range h.a {
		b = binary.LittleEndian.AppendUint64(b, lane)
	}
	offset, direction := h.n-rate, byte(directionSqueezing)
	if !h.squeezing() {
		// x/crypto XORs input straight into the state; fold in what is
		// still buffered so the bytes are the same.
		for i, c := range h.buf[:h.n] {
			b[start+i] ^= c
		}
		offset, direction = h.n, directionAbsorbing
	}
	return append(b, byte(offset), direction), nil
}

// UnmarshalBinary restores a state written by MarshalBinary or by
// golang.org/x/crypto/sha3's legacy Keccak-256. On error the Hasher is left
// as it was.
func (h *Hasher) UnmarshalBinary(b []byte) error {
	if len(b) != marshalSize {
		return fmt.Errorf("%w: %d bytes, want %d", ErrInvalidState, len(b), marshalSize)
	}
	if string(b[:len(marshalMagic)]) != marshalMagic {
		return fmt.Errorf("%w: identifier %x is not legacy Keccak's %x", ErrInvalidState, b[:len(marshalMagic)], marshalMagic)
	}
	b = b[len(marshalMagic):]
	if b[0] != rate {
		return fmt.Errorf("%w: rate %d, want %d (Keccak-256)", ErrInvalidState, b[0], rate)
	}
	state, n, direction := b[1:201], int(b[201]), b[202]
	switch {
	case direction != directionAbsorbing && direction != directionSqueezing:
		return fmt.Errorf("%w: sponge direction %d", ErrInvalidState, direction)
	case n > rate:
		return fmt.Errorf("%w: offset %d past the rate %d", ErrInvalidState, n, rate)
	case direction == directionAbsorbing && n == rate:
		// A full block is always permuted at once, so no sponge marshals
		// this; accepting it would leave WriteByte no room.
		return fmt.Errorf("%w: absorbing with a full unpermuted block", ErrInvalidState)
	}
	for i := range h.a {
		h.a[i] = binary.LittleEndian.Uint64(state[8*i:])
	}
	// The buffered bytes are already XORed into the state bytes, so the
	// buffer starts out zero: absorbing it later XORs in nothing twice.
	h.buf = [rate]byte{}
	h.n = n
	if direction == directionSqueezing {
		h.n += rate
	}
	return nil
}

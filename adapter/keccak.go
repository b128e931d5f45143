package adapter

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// NewKeccakState returns a new Keccak-256 state, in place of
// crypto.NewKeccakState. It is a *fastkeccak.Hasher: the same digests, the
// same Read-to-squeeze behaviour and the same marshalled state as
// go-ethereum's, from the faster permutation.
func NewKeccakState() crypto.KeccakState {
	return fastkeccak.New()
}

// Keccak256 returns the Keccak-256 digest of the concatenation of data, in
// place of crypto.Keccak256. The returned 32-byte slice is its only
// allocation.
func Keccak256(data ...[]byte) []byte {
	sum := keccak256(data)
	out := make([]byte, len(sum))
	copy(out, sum[:])
	return out
}

// Keccak256Hash returns the Keccak-256 digest of the concatenation of data as
// a hash, in place of crypto.Keccak256Hash. It does not allocate.
func Keccak256Hash(data ...[]byte) common.Hash {
	return keccak256(data)
}

// keccak256 hashes the concatenation of data in a hasher on the stack.
func keccak256(data [][]byte) [32]byte {
	if len(data) == 1 {
		return fastkeccak.Sum256(data[0])
	}
	var h fastkeccak.Hasher
	for _, b := range data {
		h.Write(b)
	}
	return digest(&h)
}

// HashData resets kh, hashes data with it and returns the digest, in place of
// crypto.HashData. Like go-ethereum's, it leaves kh squeezing: the next Read
// continues the output, and a Write needs a Reset first. A *fastkeccak.Hasher
// (see NewKeccakState) is driven through direct calls. A nil kh hashes with
// a hasher of its own: the result is Keccak256Hash(data).
func HashData(kh crypto.KeccakState, data []byte) common.Hash {
	if kh == nil {
		return Keccak256Hash(data)
	}
	if h, ok := kh.(*fastkeccak.Hasher); ok {
		var out common.Hash
		h.Reset()
		h.Write(data)
		h.Read(out[:])
		return out
	}
	return hashDataState(kh, data)
}

// hashDataState is HashData for any other KeccakState. It is apart so that
// the digest, which escapes through the interface's Read, stays on the stack
// on the direct path.
func hashDataState(kh crypto.KeccakState, data []byte) common.Hash {
	var out common.Hash
	kh.Reset()
	kh.Write(data)
	kh.Read(out[:])
	return out
}

// digest finishes a hash that nothing reads again: Read pads the last block
// in place, where Sum256 would copy the whole state to leave the hasher
// unchanged, work a one-shot hash does not need.
func digest(h *fastkeccak.Hasher) (sum common.Hash) {
	h.Read(sum[:])
	return sum
}

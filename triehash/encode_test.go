package triehash

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/rlp"
)

// TestAppendBranchAt encodes random branches (any set of children, each a
// hash, an embedded node of 2 to 31 bytes or an empty reference, with and
// without a value) behind a prefix already in the buffer, and checks the
// bytes against go-ethereum's RLP encoder, the offsets of the hashes, and
// that the prefix is left as it was.
func TestAppendBranchAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 5000 {
		var br branch
		items := make([]rlp.RawValue, 17)
		for i := range 16 {
			items[i] = rlp.RawValue{0x80}
			if rng.IntN(3) == 0 {
				continue
			}
			br.childMask |= 1 << i
			r := &br.children[i]
			switch rng.IntN(8) {
			case 0: // set, but an empty reference
			case 1: // embedded: a list of one string of 1 to 29 bytes
				payload := make([]byte, 1+rng.IntN(29))
				for j := range payload {
					payload[j] = byte(rng.Uint32())
				}
				enc, err := rlp.EncodeToBytes([][]byte{payload})
				if err != nil || len(enc) >= 32 {
					t.Fatalf("embedded child of %d bytes", len(enc))
				}
				r.size = uint8(copy(r.data[:], enc))
				items[i] = enc
			default:
				r.size = 32
				for j := range r.data {
					r.data[j] = byte(rng.Uint32())
				}
				items[i], _ = rlp.EncodeToBytes(r.data[:])
			}
		}
		items[16] = rlp.RawValue{0x80}
		if rng.IntN(4) == 0 {
			br.hasValue = true
			br.value = make([]byte, rng.IntN(80))
			for j := range br.value {
				br.value[j] = byte(rng.Uint32())
			}
			items[16], _ = rlp.EncodeToBytes(br.value)
		}
		want, err := rlp.EncodeToBytes(items)
		if err != nil {
			t.Fatal(err)
		}
		prefix := bytes.Repeat([]byte{0x5a}, rng.IntN(40))
		dst := append(make([]byte, 0, len(prefix)+rng.IntN(600)), prefix...)
		var offsets [16]uint16
		got := appendBranchAt(dst, &br, &offsets)
		if !bytes.Equal(got[:len(prefix)], prefix) {
			t.Fatalf("round %d: the prefix changed", round)
		}
		if enc := got[len(prefix):]; !bytes.Equal(enc, want) {
			t.Fatalf("round %d, children %016b:\n got %x\nwant %x", round, br.childMask, enc, want)
		}
		for i := range 16 {
			if br.childMask&(1<<i) == 0 || br.children[i].size != 32 {
				continue
			}
			if off := int(offsets[i]); !bytes.Equal(got[len(prefix)+off:len(prefix)+off+32], br.children[i].data[:]) {
				t.Fatalf("round %d: offset %d of child %d does not point at its hash", round, off, i)
			}
		}
	}
}

package rlpstream_test

import (
	"bytes"
	"fmt"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"

	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/rlpstream"
)

// Example hashes an account (nonce, balance, storage root, code hash)
// straight into a hasher, with no buffer, and checks the hash against
// go-ethereum's encoding of the same account.
func Example() {
	acct := types.StateAccount{
		Nonce:    7,
		Balance:  uint256.NewInt(1_000_000_000_000_000_000),
		Root:     types.EmptyRootHash,
		CodeHash: types.EmptyCodeHash.Bytes(),
	}

	// Sizes first, so that the list header can go before its content.
	size := rlpstream.Uint64Size(acct.Nonce) + rlpstream.Uint256Size(acct.Balance) +
		rlpstream.BytesSize(acct.Root[:]) + rlpstream.BytesSize(acct.CodeHash)

	var h fastkeccak.Hasher
	w := rlpstream.NewWriter(&h)
	w.WriteListHeader(size)
	w.WriteUint64(acct.Nonce)
	w.WriteUint256(acct.Balance)
	w.WriteBytes(acct.Root[:])
	w.WriteBytes(acct.CodeHash)
	sum := h.Sum256()

	enc, err := rlp.EncodeToBytes(&acct)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%x\n", sum)
	fmt.Println("matches go-ethereum:", sum == crypto.Keccak256Hash(enc))
	// Output:
	// d6b057c284eb4322e2519ec02807ac0eef175defec99437926c405fb3d67e875
	// matches go-ethereum: true
}

// ExampleValidate checks untrusted input, then walks the list without
// copying.
func ExampleValidate() {
	in := []byte{0xc8, 0x83, 'd', 'o', 'g', 0x83, 'c', 'a', 't'}
	if err := rlpstream.Validate(in); err != nil {
		panic(err)
	}
	it, err := rlpstream.NewListIterator(in)
	if err != nil {
		panic(err)
	}
	for it.Next() {
		fmt.Printf("%v %q\n", it.Kind(), it.Content())
	}

	fmt.Println(rlpstream.Validate([]byte{0xc2, 0x81, 0x05}))
	// Output:
	// String "dog"
	// String "cat"
	// rlpstream: non-canonical size information at offset 1
}

// ExampleSplit reads one item at a time, without copying: the content and
// the rest alias the input.
func ExampleSplit() {
	in := []byte{0xc5, 0x83, 'd', 'o', 'g', 0x05, 0x80}
	kind, content, rest, err := rlpstream.Split(in)
	fmt.Printf("%v %x %x %v\n", kind, content, rest, err)

	// A list's content is a sequence of items; read it the same way.
	for len(content) > 0 {
		var item []byte
		kind, item, content, err = rlpstream.Split(content)
		fmt.Printf("%v %q %v\n", kind, item, err)
	}
	// Output:
	// List 83646f6705 80 <nil>
	// String "dog" <nil>
	// Byte "\x05" <nil>
}

// The Append functions encode into a byte slice, for a value that is kept
// rather than hashed. The size functions give the content size that a list
// header needs before its content is written.
func ExampleAppendListHeader() {
	name, nonce := "cat", uint64(1024)
	enc := rlpstream.AppendListHeader(nil, rlpstream.StringSize(name)+rlpstream.Uint64Size(nonce))
	enc = rlpstream.AppendString(enc, name)
	enc = rlpstream.AppendUint64(enc, nonce)
	fmt.Printf("%x\n", enc)

	want, _ := rlp.EncodeToBytes([]any{name, nonce})
	fmt.Println("matches go-ethereum:", bytes.Equal(enc, want))
	// Output:
	// c783636174820400
	// matches go-ethereum: true
}

// A StreamWriter writes the same bytes into any io.Writer that is also an
// io.ByteWriter, such as a bufio.Writer or a bytes.Buffer. A nested list is
// an element whose size is ListSize of its own content.
func ExampleNewStreamWriter() {
	var buf bytes.Buffer
	w := rlpstream.NewStreamWriter(&buf)
	inner := rlpstream.Uint64Size(1) + rlpstream.Uint64Size(2)
	w.WriteListHeader(rlpstream.ListSize(inner) + rlpstream.BoolSize(true))
	w.WriteListHeader(inner)
	w.WriteUint64(1)
	w.WriteUint64(2)
	w.WriteBool(true)
	if err := w.Err(); err != nil { // the first error of the sink, if any
		panic(err)
	}
	fmt.Printf("%x\n", buf.Bytes())
	// Output:
	// c4c2010201
}

package rlpstream_test

import (
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

package fastkeccak_test

import (
	"bytes"
	"fmt"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

// Keccak-256 of a message in one call: go-ethereum's crypto.Keccak256Hash,
// with no allocation.
func ExampleSum256() {
	fmt.Printf("%x\n", fastkeccak.Sum256([]byte("hello")))
	fmt.Printf("%x\n", fastkeccak.Sum256(nil)) // the code hash of an account without code
	// Output:
	// 1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8
	// c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470
}

// A Hasher takes a message in pieces: whole slices, strings, and single
// bytes through the one-byte fast path, as an encoder writes its headers.
// Its zero value is ready to use and stays on the stack.
func ExampleHasher() {
	var h fastkeccak.Hasher
	h.WriteString("hel")
	h.WriteByte('l')
	h.Write([]byte("o"))
	sum := h.Sum256() // the digest so far; h can take more input

	fmt.Printf("%x\n", sum)
	fmt.Println(sum == fastkeccak.Sum256([]byte("hello")))
	// Output:
	// 1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8
	// true
}

// Read squeezes the output, as go-ethereum's crypto.KeccakState does: the
// first 32 bytes are the digest. After Read, the Hasher takes no more input
// until Reset.
func ExampleHasher_Read() {
	h := fastkeccak.New()
	h.Write([]byte("hello"))
	var digest [32]byte
	h.Read(digest[:])
	fmt.Printf("%x\n", digest)

	h.Reset()
	h.Write([]byte("hello"))
	fmt.Println(h.Sum256() == digest)
	// Output:
	// 1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8
	// true
}

// Clone forks a Hasher: a common prefix is absorbed once, then each copy
// goes on with its own suffix.
func ExampleHasher_Clone() {
	var prefix fastkeccak.Hasher
	prefix.Write(bytes.Repeat([]byte{0xab}, 200)) // more than one block

	c, _ := prefix.Clone()
	a := c.(*fastkeccak.Hasher)
	a.Write([]byte("a"))
	b := prefix // a Hasher is a plain value: a copy is a clone too
	b.Write([]byte("b"))

	whole := append(bytes.Repeat([]byte{0xab}, 200), 'a')
	fmt.Println(a.Sum256() == fastkeccak.Sum256(whole))
	fmt.Println(a.Sum256() != b.Sum256())
	// Output:
	// true
	// true
}

// Sum256Batch hashes independent messages together, several at a time in the
// SIMD lanes of the CPU's batch kernel; each digest is what Sum256 gives.
// Messages may have different lengths.
func ExampleSum256Batch() {
	msgs := [][]byte{
		[]byte("hello"),
		nil,
		bytes.Repeat([]byte{1}, 532), // a branch node's size: four blocks
	}
	out := make([][32]byte, len(msgs))
	fastkeccak.Sum256Batch(out, msgs)

	for i := range msgs {
		fmt.Printf("%x… %v\n", out[i][:4], out[i] == fastkeccak.Sum256(msgs[i]))
	}
	// Output:
	// 1c8aff95… true
	// c5d24601… true
	// 578b242c… true
}

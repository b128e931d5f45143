// Command batchhash hashes many messages at once with fastkeccak.Sum256Batch,
// which runs several Keccak permutations side by side in SIMD lanes, and
// checks every digest against go-ethereum's crypto.Keccak256Hash.
//
//	go run ./examples/batchhash
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/keccakroot/keccakroot/fastkeccak"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "batchhash:", err)
		os.Exit(1)
	}
}

func run() error {
	// 100,000 messages: most of them 32-byte keys, as a secure trie hashes,
	// with longer ones mixed in (any lengths work in one batch).
	const n = 100_000
	msgs := make([][]byte, n)
	for i := range msgs {
		size := 32
		if i%10 == 0 {
			size = 200 + i%300
		}
		m := make([]byte, size)
		binary.BigEndian.PutUint64(m, uint64(i))
		msgs[i] = m
	}

	out := make([][32]byte, n)
	start := time.Now()
	fastkeccak.Sum256Batch(out, msgs)
	batchTime := time.Since(start)

	start = time.Now()
	mismatches := 0
	for i, m := range msgs {
		if crypto.Keccak256Hash(m) != out[i] {
			mismatches++
		}
	}
	gethTime := time.Since(start)

	fmt.Printf("backend %s, batch width %d\n", fastkeccak.Backend(), fastkeccak.BatchWidth())
	fmt.Printf("hashed %d messages with fastkeccak.Sum256Batch in %v\n", n, batchTime.Round(time.Microsecond))
	fmt.Printf("checked each against crypto.Keccak256Hash (%v, one by one)\n", gethTime.Round(time.Microsecond))
	fmt.Printf("first digest %x\n", out[0])
	fmt.Printf("last digest  %x\n", out[n-1])
	if mismatches > 0 {
		return fmt.Errorf("%d of %d digests differ from go-ethereum's", mismatches, n)
	}
	fmt.Println("all digests match go-ethereum")
	return nil
}

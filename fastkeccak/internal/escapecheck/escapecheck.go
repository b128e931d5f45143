// Package escapecheck is compiled with -gcflags=-m by the fastkeccak tests:
// it uses a Hasher the way callers do, and the compiler's escape analysis
// must keep that Hasher on the stack.
package escapecheck

import "github.com/keccakroot/keccakroot/fastkeccak"

// HashPair hashes two byte strings with a local Hasher.
func HashPair(a, b []byte) [32]byte {
	var h fastkeccak.Hasher
	h.Write(a)
	h.WriteByte(0)
	h.WriteString("sep")
	h.Write(b)
	var out [32]byte
	sum := h.Sum256()
	h.Reset()
	h.Write(sum[:])
	h.Read(out[:])
	return out
}

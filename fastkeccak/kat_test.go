package fastkeccak

import (
	"bytes"
	"compress/flate"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"
)

type katEntry struct {
	Digest  string `json:"digest"`
	Length  int    `json:"length"`
	Message string `json:"message"`
}

func loadKATs(t *testing.T, name string) []katEntry {
	t.Helper()
	f, err := os.Open("testdata/keccakKats.json.deflate")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var file struct {
		KATs map[string][]katEntry `json:"kats"`
	}
	if err := json.NewDecoder(flate.NewReader(f)).Decode(&file); err != nil {
		t.Fatal(err)
	}
	kats := file.KATs[name]
	if len(kats) == 0 {
		t.Fatalf("no %s vectors in testdata", name)
	}
	return kats
}

// TestSHA3KnownAnswers runs the Keccak team's SHA3-256 vectors through the
// package's own sponge and permutation, with SHA3's domain byte: the only
// difference from Keccak-256.
func TestSHA3KnownAnswers(t *testing.T) {
	kats := loadKATs(t, "SHA3-256")
	forEachBackend(t, func(t *testing.T) {
		for _, kat := range kats {
			if kat.Length%8 != 0 {
				continue
			}
			msg, _ := hex.DecodeString(kat.Message)
			msg = msg[:kat.Length/8]
			want, _ := hex.DecodeString(kat.Digest)
			got := sum256(msg, 0x06)
			if !bytes.Equal(got[:], want) {
				t.Fatalf("SHA3-256 of %d bytes: got %x, want %x", len(msg), got, want)
			}
		}
	})
}

// TestEthereumConstants checks digests that Ethereum clients hard-code.
func TestEthereumConstants(t *testing.T) {
	cases := []struct {
		name, input, digest string
	}{
		// crypto.Keccak256(nil): go-ethereum's types.EmptyCodeHash.
		{"empty", "", "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"},
		// Keccak-256 of RLP(""): types.EmptyRootHash, the empty trie.
		{"empty-trie", "80", "56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"},
		// Keccak-256 of RLP([]): types.EmptyUncleHash.
		{"empty-uncles", "c0", "1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347"},
	}
	forEachBackend(t, func(t *testing.T) {
		for _, c := range cases {
			in, _ := hex.DecodeString(c.input)
			got := Sum256(in)
			if hex.EncodeToString(got[:]) != c.digest {
				t.Errorf("%s: Sum256 = %x, want %s", c.name, got, c.digest)
			}
			var h Hasher
			for _, b := range in {
				h.WriteByte(b)
			}
			got = h.Sum256()
			if hex.EncodeToString(got[:]) != c.digest {
				t.Errorf("%s: Hasher = %x, want %s", c.name, got, c.digest)
			}
		}
	})
}

func TestPermutationMatchesReference(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		var a, want [25]uint64
		for i := range 2000 {
			permute(&a)
			referenceKeccakF1600(&want)
			if a != want {
				t.Fatalf("permutation %d: state differs from the FIPS 202 reference", i)
			}
		}
	})
}

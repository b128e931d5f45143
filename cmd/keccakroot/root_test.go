package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
)

// trieRoot is go-ethereum's root of the pairs, from its trie.Trie.
func trieRoot(t *testing.T, keys, values [][]byte, secure bool) common.Hash {
	t.Helper()
	tr := trie.NewEmpty(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil))
	for i := range keys {
		k := keys[i]
		if secure {
			k = crypto.Keccak256(k)
		}
		if err := tr.Update(k, values[i]); err != nil {
			t.Fatal(err)
		}
	}
	return tr.Hash()
}

func TestRoot(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var keys, values [][]byte
	var lines, object, list strings.Builder
	object.WriteString("{\n")
	list.WriteString("[\n")
	for i := range 500 {
		k := make([]byte, 1+rng.IntN(40)) // keys of any length, some prefixes of others
		fill(rng, k)
		if i%50 == 0 && len(keys) > 0 {
			k = append(append([]byte{}, keys[len(keys)-1]...), byte(i)) // an extension of the previous key
		}
		v := make([]byte, 1+rng.IntN(80))
		fill(rng, v)
		keys, values = append(keys, k), append(values, v)
		sep := []string{" ", "\t", ",", "="}[i%4]
		fmt.Fprintf(&lines, "0x%x%s%x\n", k, sep, v)
		comma := ","
		if i == 499 {
			comma = ""
		}
		fmt.Fprintf(&object, "  \"0x%x\": \"0x%x\"%s\n", k, v, comma)
		if i%2 == 0 {
			fmt.Fprintf(&list, "  [\"0x%x\", \"%x\"]%s\n", k, v, comma)
		} else {
			fmt.Fprintf(&list, "  {\"key\": \"%x\", \"value\": \"0x%x\"}%s\n", k, v, comma)
		}
	}
	object.WriteString("}\n")
	list.WriteString("]\n")
	inputs := map[string]string{
		"hex-lines":   "# key value\n\n" + lines.String(),
		"json-object": object.String(),
		"json-list":   list.String(),
	}
	for _, secure := range []bool{false, true} {
		want := trieRoot(t, keys, values, secure)
		for format, input := range inputs {
			args := []string{"root"}
			if secure {
				args = append(args, "--secure")
			}
			// From standard input, printing the root alone.
			r := keccakroot(t, []byte(input), args...)
			wantCode(t, r, exitOK)
			if r.stdout != want.Hex()+"\n" {
				t.Fatalf("%s, secure %v: want %s alone:\n%v", format, secure, want.Hex(), r)
			}
			// From a file, as JSON, checked against go-ethereum.
			path := writeFile(t, t.TempDir(), format, []byte(input))
			r = keccakroot(t, nil, append(args, "--json", "--check", "--workers", "1", path)...)
			wantCode(t, r, exitOK)
			var res rootResult
			decodeJSON(t, r, &res)
			if !res.OK || res.Root != want || res.GethRoot == nil || *res.GethRoot != want || res.Pairs != len(keys) || res.Format != format || res.Secure != secure {
				t.Fatalf("%s, secure %v: want root %s of %d pairs:\n%v", format, secure, want.Hex(), len(keys), r)
			}
		}
	}

	// No pairs: the empty root.
	r := keccakroot(t, []byte("\n# nothing\n"), "root")
	wantCode(t, r, exitOK)
	wantOutput(t, r.stdout, "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")
}

func TestRootBadInput(t *testing.T) {
	tests := []struct {
		input string
		want  []string
	}{
		{"0x01 0xaa\n0xzz 0x01\n", []string{"line 2", "key", "not hex"}},
		{"0x01 0xaa\n0x02 0x123\n", []string{"line 2", "value", "odd number of hex digits"}},
		{"0x01\n", []string{"line 1", "want KEY VALUE"}},
		{"0x01 0x\n", []string{"line 1", "empty value"}},
		{"0x01 0xaa\n0x02 0xbb\n0x01 0xcc\n", []string{"line 3", "key 0x01 given again (first at line 1)"}},
		{`{"0x01": "0x02", "0x01": "0x03"}`, []string{"column", "given again"}},
		{`{"0x01": 2}`, []string{"line 1, column", "invalid JSON"}},
		{"{\n\"0x01\": \"0x02\"", []string{"line 2", "invalid JSON"}},
		{`{"0x01": "0x02"} x`, []string{"unexpected data after the JSON value"}},
		{`[["0x01"]]`, []string{"element 0", "want a pair"}},
		{`[{"key": "0x01"}]`, []string{"element 0", `{"key": "KEY", "value": "VALUE"}`}},
	}
	for _, tt := range tests {
		r := keccakroot(t, []byte(tt.input), "root")
		wantCode(t, r, exitUsage)
		wantOutput(t, r.stderr, append([]string{"keccakroot: standard input: "}, tt.want...)...)
		r = keccakroot(t, []byte(tt.input), "root", "--json")
		wantCode(t, r, exitUsage)
		var res errorResult
		decodeJSON(t, r, &res)
		if res.OK || res.ExitCode != exitUsage {
			t.Fatalf("want an error result:\n%v", r)
		}
	}
	r := keccakroot(t, nil, "root", "missing-file")
	wantCode(t, r, exitUsage)
	wantOutput(t, r.stderr, "missing-file", "no such file")
}

// TestRootByteOrderMark: input that starts with a UTF-8 byte order mark, as
// some editors write it, parses in every format.
func TestRootByteOrderMark(t *testing.T) {
	inputs := []string{"0x01 0xaa\n0x02 0xbb\n", `{"0x01": "0xaa", "0x02": "0xbb"}`, `[["0x01", "0xaa"], ["0x02", "0xbb"]]`}
	want := keccakroot(t, []byte(inputs[0]), "root")
	wantCode(t, want, exitOK)
	for _, in := range inputs {
		r := keccakroot(t, []byte("\ufeff"+in), "root")
		wantCode(t, r, exitOK)
		if r.stdout != want.stdout {
			t.Errorf("%q with a byte order mark: root %s, want %s", in, r.stdout, want.stdout)
		}
	}
}

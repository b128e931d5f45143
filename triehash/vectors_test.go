package triehash

import (
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

// trieVector is one case of ethereum/tests TrieTests.
type trieVector struct {
	In   json.RawMessage `json:"in"`
	Root string          `json:"root"`
}

// decodeVectorString reads a key or value: hex after "0x", else raw bytes.
func decodeVectorString(t *testing.T, s string, alwaysHex bool) []byte {
	t.Helper()
	if strings.HasPrefix(s, "0x") || alwaysHex {
		b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
		if err != nil {
			t.Fatalf("bad hex %q: %v", s, err)
		}
		return b
	}
	return []byte(s)
}

// finalContents applies the operations of a vector in order and returns
// what remains: a null or empty value deletes.
func finalContents(t *testing.T, in json.RawMessage, alwaysHex bool) (keys, values [][]byte) {
	t.Helper()
	type op struct {
		key   string
		value *string
	}
	var ops []op
	var list [][]*string
	if err := json.Unmarshal(in, &list); err == nil {
		for _, pair := range list {
			ops = append(ops, op{*pair[0], pair[1]})
		}
	} else {
		var object map[string]*string
		if err := json.Unmarshal(in, &object); err != nil {
			t.Fatalf("unrecognised \"in\": %s", in)
		}
		for k, v := range object {
			ops = append(ops, op{k, v})
		}
	}
	contents := map[string][]byte{}
	for _, o := range ops {
		key := string(decodeVectorString(t, o.key, alwaysHex))
		if o.value == nil {
			delete(contents, key)
			continue
		}
		value := decodeVectorString(t, *o.value, alwaysHex)
		if len(value) == 0 {
			delete(contents, key)
			continue
		}
		contents[key] = value
	}
	for _, k := range slices.Sorted(maps.Keys(contents)) {
		keys = append(keys, []byte(k))
		values = append(values, contents[k])
	}
	return keys, values
}

func TestEthereumTrieVectors(t *testing.T) {
	files := []struct {
		name              string
		secure, alwaysHex bool
	}{
		{"trietest.json", false, false},
		{"trieanyorder.json", false, false},
		{"trietest_secureTrie.json", true, false},
		{"trieanyorder_secureTrie.json", true, false},
		{"hex_encoded_securetrie_test.json", true, true},
	}
	for _, f := range files {
		raw, err := os.ReadFile("testdata/" + f.name)
		if err != nil {
			t.Fatal(err)
		}
		var vectors map[string]trieVector
		if err := json.Unmarshal(raw, &vectors); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if len(vectors) == 0 {
			t.Fatalf("%s: no vectors", f.name)
		}
		for name, v := range vectors {
			t.Run(f.name+"/"+name, func(t *testing.T) {
				keys, values := finalContents(t, v.In, f.alwaysHex)
				root := Root
				if f.secure {
					root = SecureRoot
				}
				got, err := root(keys, values)
				if err != nil {
					t.Fatal(err)
				}
				if want := strings.TrimPrefix(v.Root, "0x"); hex.EncodeToString(got[:]) != want {
					t.Fatalf("root %x, want %s", got, want)
				}
			})
		}
	}
}

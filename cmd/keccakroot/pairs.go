package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/keccakroot/keccakroot/triehash"
)

// pair is a key and its value, with where it was read, for messages.
type pair struct {
	key, value []byte
	where      string // "line 3", "line 2, column 5"
}

// parsePairs reads key/value pairs as hex lines, a JSON object or a JSON list
// of pairs, told apart by the first character that is not white space. It
// returns the pairs and the name of the format.
func parsePairs(data []byte) ([]pair, string, error) {
	// A byte order mark, which some editors write at the start of UTF-8
	// files, is not part of the input: JSON and hex parsing would reject it.
	data = bytes.TrimPrefix(data, []byte(utf8BOM))
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(trimmed) == 0:
		return nil, "empty", nil
	case trimmed[0] == '{':
		pairs, err := parseJSONObject(data)
		return pairs, "json-object", err
	case trimmed[0] == '[':
		pairs, err := parseJSONList(data)
		return pairs, "json-list", err
	default:
		pairs, err := parseHexLines(data)
		return pairs, "hex-lines", err
	}
}

// utf8BOM is the byte order mark U+FEFF encoded in UTF-8.
const utf8BOM = "\ufeff"

// parseHexLines reads one "KEY VALUE" pair a line.
func parseHexLines(data []byte) ([]pair, error) {
	var pairs []pair
	for n, line := range strings.Split(string(data), "\n") {
		where := fmt.Sprintf("line %d", n+1)
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.FieldsFunc(line, func(r rune) bool {
			return r == ' ' || r == '\t' || r == ',' || r == '='
		})
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s: want KEY VALUE in hex, got %d fields in %q", where, len(fields), abbreviate(line))
		}
		key, err := decodeHex(fields[0])
		if err != nil {
			return nil, fmt.Errorf("%s: key: %w", where, err)
		}
		value, err := decodeHex(fields[1])
		if err != nil {
			return nil, fmt.Errorf("%s: value: %w", where, err)
		}
		pairs = append(pairs, pair{key: key, value: value, where: where})
	}
	return pairs, nil
}

// parseJSONObject reads {"KEY": "VALUE", ...}, keeping repeated keys so that
// they are reported rather than silently merged.
func parseJSONObject(data []byte) ([]pair, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	where := func() string { return jsonWhere(data, dec.InputOffset()) }
	if _, err := dec.Token(); err != nil { // {
		return nil, jsonErr(where(), err)
	}
	var pairs []pair
	for dec.More() {
		at := where()
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonErr(at, err)
		}
		k, _ := tok.(string)
		key, err := decodeHex(k)
		if err != nil {
			return nil, fmt.Errorf("%s: key: %w", at, err)
		}
		at = where()
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil, jsonErr(at, fmt.Errorf("value of %q: %w", k, err))
		}
		value, err := decodeHex(v)
		if err != nil {
			return nil, fmt.Errorf("%s: value of %q: %w", at, k, err)
		}
		pairs = append(pairs, pair{key: key, value: value, where: at})
	}
	if _, err := dec.Token(); err != nil { // }
		return nil, jsonErr(where(), err)
	}
	return pairs, jsonEnd(dec, where)
}

// parseJSONList reads [["KEY", "VALUE"], ...] or [{"key": "KEY", "value":
// "VALUE"}, ...].
func parseJSONList(data []byte) ([]pair, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	where := func() string { return jsonWhere(data, dec.InputOffset()) }
	if _, err := dec.Token(); err != nil { // [
		return nil, jsonErr(where(), err)
	}
	var pairs []pair
	for i := 0; dec.More(); i++ {
		at := where()
		var elem json.RawMessage
		if err := dec.Decode(&elem); err != nil {
			return nil, jsonErr(at, err)
		}
		at = fmt.Sprintf("%s (element %d)", at, i)
		k, v, err := decodePairElem(elem)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at, err)
		}
		key, err := decodeHex(k)
		if err != nil {
			return nil, fmt.Errorf("%s: key: %w", at, err)
		}
		value, err := decodeHex(v)
		if err != nil {
			return nil, fmt.Errorf("%s: value: %w", at, err)
		}
		pairs = append(pairs, pair{key: key, value: value, where: at})
	}
	if _, err := dec.Token(); err != nil { // ]
		return nil, jsonErr(where(), err)
	}
	return pairs, jsonEnd(dec, where)
}

// decodePairElem reads ["KEY", "VALUE"] or {"key": "KEY", "value": "VALUE"}.
func decodePairElem(elem json.RawMessage) (key, value string, err error) {
	var arr []string
	if err := json.Unmarshal(elem, &arr); err == nil {
		if len(arr) != 2 {
			return "", "", fmt.Errorf("want a pair [KEY, VALUE], got %d strings", len(arr))
		}
		return arr[0], arr[1], nil
	}
	var obj struct {
		Key   *string `json:"key"`
		Value *string `json:"value"`
	}
	dec := json.NewDecoder(bytes.NewReader(elem))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&obj); err != nil || obj.Key == nil || obj.Value == nil {
		return "", "", fmt.Errorf(`want ["KEY", "VALUE"] or {"key": "KEY", "value": "VALUE"}, got %s`, abbreviate(string(elem)))
	}
	return *obj.Key, *obj.Value, nil
}

// jsonErr places a JSON error.
func jsonErr(where string, err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%s: invalid JSON: %w", where, err)
}

// jsonEnd checks that nothing but white space follows the JSON value.
func jsonEnd(dec *json.Decoder, where func() string) error {
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: unexpected data after the JSON value", where())
	}
	return nil
}

// decodeHex decodes hex with or without a 0x prefix.
func decodeHex(s string) ([]byte, error) {
	h := s
	if len(h) >= 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X') {
		h = h[2:]
	}
	if len(h)%2 == 1 {
		return nil, fmt.Errorf("%q: odd number of hex digits", abbreviate(s))
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, fmt.Errorf("%q: not hex: %w", abbreviate(s), err)
	}
	return b, nil
}

// abbreviate shortens s for a message.
func abbreviate(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// checkPairs rejects what a trie cannot hold, naming where: an empty value
// (a deletion in go-ethereum), a key over triehash.MaxKeyLength unless the
// keys are hashed (secure), and a key given twice.
func checkPairs(pairs []pair, secure bool) error {
	seen := make(map[string]string, len(pairs))
	for _, p := range pairs {
		switch {
		case len(p.value) == 0:
			return fmt.Errorf("%s: key 0x%x has an empty value; a trie cannot hold one (leave the key out)", p.where, p.key)
		case !secure && len(p.key) > triehash.MaxKeyLength:
			return fmt.Errorf("%s: key of %d bytes, over the limit of %d", p.where, len(p.key), triehash.MaxKeyLength)
		}
		if first, dup := seen[string(p.key)]; dup {
			return fmt.Errorf("%s: key 0x%x given again (first at %s)", p.where, p.key, first)
		}
		seen[string(p.key)] = p.where
	}
	return nil
}

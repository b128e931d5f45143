package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
)

// go-ethereum decodes a genesis through its own UnmarshalJSON methods, which
// decode the genesis and each account from a copy of its bytes: a bad value
// comes out of json.Unmarshal with the offset lost ("line 1, column 1") or
// none at all, and inside an account without the account. findGenesisFault
// walks the genesis itself, decodes each of its members, each account and
// then each of the account's values, with go-ethereum's types, and names the
// first that fails by its line in the file, its member and its account.

// genesisFault is a value of a genesis that go-ethereum cannot decode.
type genesisFault struct {
	offset  int64  // of the value in the file
	member  string // the genesis's member: "alloc", "extraData", "nonce", ...
	account string // in the allocation: the address, as written in the file
	field   string // in an account: "balance", "code", "storage[0x01]", ... ; "" for the address itself
	err     error  // go-ethereum's decoding error
}

// findGenesisFault returns the first value of the genesis JSON data that
// go-ethereum cannot decode, or false when every member and account decodes
// on its own (the fault, if any, is elsewhere).
func findGenesisFault(data []byte) (genesisFault, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if !openObject(dec) {
		return genesisFault{}, false
	}
	for dec.More() {
		key, ok := objectKey(dec)
		if !ok {
			return genesisFault{}, false
		}
		if key != "alloc" {
			off := skipJSONSpace(data, dec.InputOffset(), ':')
			var value json.RawMessage
			if dec.Decode(&value) != nil {
				return genesisFault{}, false
			}
			if at, err := probeMember(key, value); err != nil {
				return genesisFault{offset: off + at, member: key, err: err}, true
			}
			continue
		}
		if !openObject(dec) {
			return genesisFault{}, false
		}
		for dec.More() {
			addr, ok := objectKey(dec)
			if !ok {
				return genesisFault{}, false
			}
			off := skipJSONSpace(data, dec.InputOffset(), ':')
			var account json.RawMessage
			if dec.Decode(&account) != nil {
				return genesisFault{}, false
			}
			if f, bad := accountFault(addr, account, off); bad {
				f.member = "alloc"
				return f, true
			}
		}
		return genesisFault{}, false
	}
	return genesisFault{}, false
}

// accountFault decodes one account, found at offset off, as go-ethereum
// does and, if that fails, each of its values on its own, to find the one at
// fault.
func accountFault(addr string, account json.RawMessage, off int64) (genesisFault, bool) {
	quoted, _ := json.Marshal(addr)
	if err := probeAccount(string(quoted), `"balance": "0x0"`); err != nil {
		return genesisFault{offset: off, account: addr, err: err}, true
	}
	var whole types.Account
	err := json.Unmarshal(account, &whole)
	if err == nil {
		return genesisFault{}, false
	}
	fault := genesisFault{offset: off, account: addr, err: err}
	dec := json.NewDecoder(bytes.NewReader(account))
	if !openObject(dec) {
		return fault, true
	}
	for dec.More() {
		name, ok := objectKey(dec)
		if !ok {
			return fault, true
		}
		valueOff := off + skipJSONSpace(account, dec.InputOffset(), ':')
		var value json.RawMessage
		if dec.Decode(&value) != nil {
			return fault, true
		}
		if name == "storage" {
			if f, bad := storageFault(addr, value, valueOff); bad {
				return f, true
			}
			continue
		}
		key, _ := json.Marshal(name)
		body := `"balance": "0x0", ` + string(key) + `: ` + string(value)
		if name == "balance" {
			body = `"balance": ` + string(value)
		}
		if err := probeAccount(probeAddress, body); err != nil {
			return genesisFault{offset: valueOff, account: addr, field: name, err: err}, true
		}
	}
	return fault, true
}

// probeMember decodes, as go-ethereum does, a genesis whose member key (a
// name other than "alloc") has the given value, the members go-ethereum
// requires given zero values beside it.
// It returns where in value the error places itself, or 0 where it does not
// (go-ethereum's own decoders give no offset, or one in a copy of their
// input), and the error.
func probeMember(key string, value json.RawMessage) (at int64, err error) {
	name, _ := json.Marshal(key)
	prefix := `{"gasLimit": "0x0", "difficulty": "0x0", "alloc": {}, ` + string(name) + `: `
	var g core.Genesis
	err = json.Unmarshal([]byte(prefix+string(value)+`}`), &g)
	if err == nil {
		return 0, nil
	}
	at, ok := jsonErrorOffset(err)
	if at -= int64(len(prefix)); !ok || at < 0 || at > int64(len(value)) {
		at = 0
	}
	return at, err
}

// probeAddress is the address of the accounts that probe a value on its own.
const probeAddress = `"0x0000000000000000000000000000000000000000"`

// probeAccount decodes, as go-ethereum does, an allocation of one account
// with the given address (a JSON string) and object body.
func probeAccount(addr, body string) error {
	var alloc types.GenesisAlloc
	return json.Unmarshal([]byte(`{`+addr+`: {`+body+`}}`), &alloc)
}

// storageFault finds the storage slot, key or value, that go-ethereum cannot
// decode in an account's storage object, found at offset off.
func storageFault(addr string, storage json.RawMessage, off int64) (genesisFault, bool) {
	dec := json.NewDecoder(bytes.NewReader(storage))
	if !openObject(dec) {
		return genesisFault{}, false
	}
	for dec.More() {
		slot, ok := objectKey(dec)
		if !ok {
			return genesisFault{}, false
		}
		valueOff := off + skipJSONSpace(storage, dec.InputOffset(), ':')
		var value json.RawMessage
		if dec.Decode(&value) != nil {
			return genesisFault{}, false
		}
		key, _ := json.Marshal(slot)
		if err := probeAccount(probeAddress, `"balance": "0x0", "storage": {`+string(key)+`: `+string(value)+`}`); err != nil {
			return genesisFault{offset: valueOff, account: addr, field: "storage[" + abbreviate(slot) + "]", err: err}, true
		}
	}
	return genesisFault{}, false
}

// openObject reads the '{' that opens an object.
func openObject(dec *json.Decoder) bool {
	tok, err := dec.Token()
	d, ok := tok.(json.Delim)
	return err == nil && ok && d == '{'
}

// objectKey reads the next key of an object.
func objectKey(dec *json.Decoder) (string, bool) {
	tok, err := dec.Token()
	key, ok := tok.(string)
	return key, err == nil && ok
}

// skipJSONSpace returns the offset of the next JSON value from off, past
// white space and the separator sep before it: ':' after a key, ',' between
// the elements of an array. The decoder's InputOffset stops short of both.
func skipJSONSpace(data []byte, off int64, sep byte) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', sep:
			off++
		default:
			return off
		}
	}
	return off
}

// describe places the fault in data: its line and column, the member, and
// in the allocation the account and the value.
func (f genesisFault) describe(data []byte) error {
	if f.member != "alloc" {
		return fmt.Errorf("%s: %q: %w", jsonWhere(data, f.offset), abbreviate(f.member), f.err)
	}
	what := "the address"
	if f.field != "" {
		what = f.field
	}
	return fmt.Errorf("%s: alloc account %s: %s: %w", jsonWhere(data, f.offset), abbreviate(f.account), what, f.err)
}

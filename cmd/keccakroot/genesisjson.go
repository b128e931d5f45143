package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/core/types"
)

// go-ethereum decodes a genesis allocation through its own UnmarshalJSON
// methods, which decode each account from a copy of its bytes: a bad value
// inside an account comes out of json.Unmarshal with the offset lost
// ("line 1, column 1"). findAllocFault walks the allocation itself, decodes
// each account, then each of its values, with go-ethereum's types, and names
// the first that fails by its line in the file and the account's address.

// allocFault is a value of a genesis allocation that go-ethereum cannot
// decode.
type allocFault struct {
	offset  int64  // of the value in the file
	account string // the address, as written in the file
	field   string // "balance", "code", "storage[0x01]", ... ; "" for the address itself
	err     error  // go-ethereum's decoding error
}

// findAllocFault returns the first value of the genesis JSON data's "alloc"
// object that go-ethereum cannot decode, or false when every account
// decodes (the fault, if any, is elsewhere).
func findAllocFault(data []byte) (allocFault, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if !openObject(dec) {
		return allocFault{}, false
	}
	for dec.More() {
		key, ok := objectKey(dec)
		if !ok {
			return allocFault{}, false
		}
		if key != "alloc" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return allocFault{}, false
			}
			continue
		}
		if !openObject(dec) {
			return allocFault{}, false
		}
		for dec.More() {
			addr, ok := objectKey(dec)
			if !ok {
				return allocFault{}, false
			}
			off := skipJSONSpace(data, dec.InputOffset(), ':')
			var account json.RawMessage
			if dec.Decode(&account) != nil {
				return allocFault{}, false
			}
			if f, bad := accountFault(addr, account, off); bad {
				return f, true
			}
		}
		return allocFault{}, false
	}
	return allocFault{}, false
}

// accountFault decodes one account, found at offset off, as go-ethereum
// does and, if that fails, each of its values on its own, to find the one at
// fault.
func accountFault(addr string, account json.RawMessage, off int64) (allocFault, bool) {
	quoted, _ := json.Marshal(addr)
	if err := probeAccount(string(quoted), `"balance": "0x0"`); err != nil {
		return allocFault{offset: off, account: addr, err: err}, true
	}
	var whole types.Account
	err := json.Unmarshal(account, &whole)
	if err == nil {
		return allocFault{}, false
	}
	fault := allocFault{offset: off, account: addr, err: err}
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
			return allocFault{offset: valueOff, account: addr, field: name, err: err}, true
		}
	}
	return fault, true
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
func storageFault(addr string, storage json.RawMessage, off int64) (allocFault, bool) {
	dec := json.NewDecoder(bytes.NewReader(storage))
	if !openObject(dec) {
		return allocFault{}, false
	}
	for dec.More() {
		slot, ok := objectKey(dec)
		if !ok {
			return allocFault{}, false
		}
		valueOff := off + skipJSONSpace(storage, dec.InputOffset(), ':')
		var value json.RawMessage
		if dec.Decode(&value) != nil {
			return allocFault{}, false
		}
		key, _ := json.Marshal(slot)
		if err := probeAccount(probeAddress, `"balance": "0x0", "storage": {`+string(key)+`: `+string(value)+`}`); err != nil {
			return allocFault{offset: valueOff, account: addr, field: "storage[" + abbreviate(slot) + "]", err: err}, true
		}
	}
	return allocFault{}, false
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

// describe places the fault in data: its line and column, the account and
// the value.
func (f allocFault) describe(data []byte) error {
	what := "the address"
	if f.field != "" {
		what = f.field
	}
	return fmt.Errorf("%s: alloc account %s: %s: %w", jsonWhere(data, f.offset), abbreviate(f.account), what, f.err)
}

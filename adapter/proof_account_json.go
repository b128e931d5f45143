package adapter

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient/gethclient"
)

// ParseAccountResult reads one eth_getProof result, the "result" member of
// the JSON-RPC response, as nodes write it (EIP-1186, go-ethereum's
// internal/ethapi AccountResult: hex quantities, 0x-prefixed proof nodes),
// into the gethclient.AccountResult that VerifyAccountProof checks, as
// gethclient's GetProof returns it. (The JSON tags of gethclient's own type
// read decimal numbers, not the hex that nodes write.) Every field but the
// proofs must be present; an error names the field that is missing or
// malformed. Fields it does not know are ignored, as other clients may add
// some.
func ParseAccountResult(data []byte) (*gethclient.AccountResult, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedProofResult, err)
	}
	if fields == nil {
		return nil, fmt.Errorf("%w: null, not a result object", ErrMalformedProofResult)
	}
	var (
		res          gethclient.AccountResult
		balance      hexutil.Big
		nonce        hexutil.Uint64
		storageProof []map[string]json.RawMessage
	)
	err := errors.Join(
		decodeField(fields, "", "address", &res.Address, true),
		decodeField(fields, "", "accountProof", &res.AccountProof, false),
		decodeField(fields, "", "balance", &balance, true),
		decodeField(fields, "", "codeHash", &res.CodeHash, true),
		decodeField(fields, "", "nonce", &nonce, true),
		decodeField(fields, "", "storageHash", &res.StorageHash, true),
		decodeField(fields, "", "storageProof", &storageProof, false),
	)
	if err != nil {
		return nil, firstError(err)
	}
	res.Balance, res.Nonce = (*big.Int)(&balance), uint64(nonce)
	res.StorageProof = make([]gethclient.StorageResult, len(storageProof))
	for i, sp := range storageProof {
		var (
			sr    = &res.StorageProof[i]
			value hexutil.Big
			in    = fmt.Sprintf("storageProof[%d].", i)
		)
		if sp == nil {
			return nil, fmt.Errorf("%w: storageProof[%d] is null", ErrMalformedProofResult, i)
		}
		err := errors.Join(
			decodeField(sp, in, "key", &sr.Key, true),
			decodeField(sp, in, "value", &value, true),
			decodeField(sp, in, "proof", &sr.Proof, false),
		)
		if err != nil {
			return nil, firstError(err)
		}
		sr.Value = (*big.Int)(&value)
	}
	return &res, nil
}

// decodeField decodes the named member of an object into v; a missing or
// null member is an error when it is required.
func decodeField(fields map[string]json.RawMessage, in, name string, v any, required bool) error {
	raw, ok := fields[name]
	if !ok || string(raw) == "null" {
		if required {
			return fmt.Errorf("%w: no %q field", ErrMalformedProofResult, in+name)
		}
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%w: %q: %w", ErrMalformedProofResult, in+name, err)
	}
	return nil
}

// firstError returns the first error of a join, so that the message names
// one field, in the order eth_getProof lists them.
func firstError(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()[0]
	}
	return err
}

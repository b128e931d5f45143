package adapter

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient/gethclient"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/keccakroot/keccakroot/rlpstream"
	"github.com/keccakroot/keccakroot/triehash"
)

// An eth_getProof result (EIP-1186) claims an account's nonce, balance,
// storage root and code hash and the values of some of its slots, and
// carries the proofs of each: the account proof against the block's state
// root, keyed by Keccak-256 of the address, and a storage proof per slot
// against the claimed storage root, keyed by Keccak-256 of the slot as 32
// bytes.
//
// For an account that does not exist, go-ethereum claims zeros: nonce 0,
// balance 0, and the zero hash for both the storage root and the code hash
// (other clients give the empty trie root and the hash of empty code
// instead); both forms are accepted. A storage root that is the empty
// trie's (or zero, for a missing account) proves every slot zero, with or
// without proof nodes, as go-ethereum serves such slots with none.

// provenAbsent is what the proof gives, in messages, for an account or a
// slot it proves absent.
const provenAbsent = "none (proven absent)"

// VerifyAccountProof checks an eth_getProof result against the state root
// of the block it was asked for: the account proof must prove exactly the
// claimed nonce, balance, storage root and code hash, or the account's
// absence when the result claims what a node claims for a missing account
// (zeros, or the empty trie root and the hash of empty code); every storage
// proof must prove the claimed value against the claimed storage root, an
// absent slot proving zero. The error is an *AccountProofError that names the account,
// the slot and what differs, wrapping one of ErrMalformedProofResult,
// ErrAccountProofInvalid, ErrAccountMismatch, ErrStorageProofInvalid or
// ErrStorageMismatch. It never panics, whatever the result holds.
func VerifyAccountProof(stateRoot common.Hash, res *gethclient.AccountResult) error {
	_, err := VerifyAccountResult(stateRoot, res)
	return err
}

// VerifyAccountResult is VerifyAccountProof that also returns the account
// the proof proves: nil, with a nil error, for an account proven absent.
func VerifyAccountResult(stateRoot common.Hash, res *gethclient.AccountResult) (*types.StateAccount, error) {
	if res == nil {
		return nil, &AccountProofError{Err: ErrMalformedProofResult, Reason: "no result"}
	}
	fail := func(sentinel error, reason string, cause error) error {
		return &AccountProofError{Address: res.Address, Err: sentinel, Reason: reason, Cause: cause}
	}
	if res.Balance == nil {
		return nil, fail(ErrMalformedProofResult, "the result has no balance", nil)
	}
	if res.Balance.Sign() < 0 {
		return nil, fail(ErrMalformedProofResult, "the result claims a negative balance "+res.Balance.String(), nil)
	}
	nodes, err := decodeProofNodes("accountProof", res.AccountProof)
	if err != nil {
		return nil, fail(ErrMalformedProofResult, err.Error(), nil)
	}
	var enc []byte
	if stateRoot != types.EmptyRootHash {
		enc, err = triehash.VerifyProof(stateRoot, Keccak256(res.Address[:]), nodes)
		if err != nil {
			return nil, fail(ErrAccountProofInvalid, fmt.Sprintf("against state root %s: %v", stateRoot.Hex(), err), err)
		}
	}
	var account *types.StateAccount
	storageRoot := res.StorageHash
	if enc == nil {
		if err := checkAbsentAccount(res); err != nil {
			return nil, err
		}
		storageRoot = types.EmptyRootHash
	} else {
		account = new(types.StateAccount)
		if err := rlp.DecodeBytes(enc, account); err != nil {
			return nil, fail(ErrAccountProofInvalid, fmt.Sprintf("the proven value %#x is not an account: %v", enc, err), err)
		}
		if err := checkAccount(res, account); err != nil {
			return nil, err
		}
	}
	for i := range res.StorageProof {
		if err := verifyStorageProof(res.Address, storageRoot, i, &res.StorageProof[i]); err != nil {
			return nil, err
		}
	}
	return account, nil
}

// checkAccount compares the claimed fields with the proven account, in the
// order of the account's fields.
func checkAccount(res *gethclient.AccountResult, acc *types.StateAccount) error {
	mismatch := func(field, claimed, proven string) error {
		return &AccountProofError{Address: res.Address, Field: field, Claimed: claimed, Proven: proven, Err: ErrAccountMismatch}
	}
	if res.Nonce != acc.Nonce {
		return mismatch("nonce", hexutil.EncodeUint64(res.Nonce), hexutil.EncodeUint64(acc.Nonce))
	}
	if acc.Balance == nil || res.Balance.Cmp(acc.Balance.ToBig()) != 0 {
		proven := "none"
		if acc.Balance != nil {
			proven = hexutil.EncodeBig(acc.Balance.ToBig())
		}
		return mismatch("balance", hexutil.EncodeBig(res.Balance), proven)
	}
	if res.StorageHash != acc.Root {
		return mismatch("storageHash", res.StorageHash.Hex(), acc.Root.Hex())
	}
	if !bytesEqualHash(acc.CodeHash, res.CodeHash) {
		return mismatch("codeHash", res.CodeHash.Hex(), hexutil.Encode(acc.CodeHash))
	}
	return nil
}

// checkAbsentAccount accepts an account proven absent only if the result
// claims what a node claims for a missing account.
func checkAbsentAccount(res *gethclient.AccountResult) error {
	mismatch := func(field, claimed string) error {
		return &AccountProofError{Address: res.Address, Field: field, Claimed: claimed, Proven: provenAbsent, Err: ErrAccountMismatch}
	}
	switch {
	case res.Nonce != 0:
		return mismatch("nonce", hexutil.EncodeUint64(res.Nonce))
	case res.Balance.Sign() != 0:
		return mismatch("balance", hexutil.EncodeBig(res.Balance))
	case res.StorageHash != (common.Hash{}) && res.StorageHash != types.EmptyRootHash:
		return mismatch("storageHash", res.StorageHash.Hex())
	case res.CodeHash != (common.Hash{}) && res.CodeHash != types.EmptyCodeHash:
		return mismatch("codeHash", res.CodeHash.Hex())
	}
	return nil
}

// verifyStorageProof checks the i-th storage proof of the account at addr
// against its storage root.
func verifyStorageProof(addr common.Address, root common.Hash, i int, sr *gethclient.StorageResult) error {
	slot := sr.Key
	if slot == "" {
		slot = fmt.Sprintf("storageProof[%d]", i)
	}
	fail := func(sentinel error, reason string, cause error) error {
		return &AccountProofError{Address: addr, Slot: slot, Err: sentinel, Reason: reason, Cause: cause}
	}
	key, err := decodeSlotKey(sr.Key)
	if err != nil {
		return fail(ErrMalformedProofResult, fmt.Sprintf("storageProof[%d].key: %v", i, err), nil)
	}
	switch {
	case sr.Value == nil:
		return fail(ErrMalformedProofResult, fmt.Sprintf("storageProof[%d] has no value", i), nil)
	case sr.Value.Sign() < 0:
		return fail(ErrMalformedProofResult, fmt.Sprintf("storageProof[%d] claims a negative value %s", i, sr.Value), nil)
	}
	nodes, err := decodeProofNodes(fmt.Sprintf("storageProof[%d].proof", i), sr.Proof)
	if err != nil {
		return fail(ErrMalformedProofResult, err.Error(), nil)
	}
	var enc []byte
	// An account proven absent comes with the empty root; an account whose
	// proven storage root is zero (which no trie has) gets its slots
	// checked against it, and refused, as go-ethereum's VerifyProof does.
	if root != types.EmptyRootHash {
		enc, err = triehash.VerifyProof(root, Keccak256(key[:]), nodes)
		if err != nil {
			return fail(ErrStorageProofInvalid, fmt.Sprintf("against storage root %s: %v", root.Hex(), err), err)
		}
	}
	proven, provenText := new(big.Int), provenAbsent
	if enc != nil {
		content, err := decodeSlotValue(enc)
		if err != nil {
			return fail(ErrStorageProofInvalid, fmt.Sprintf("the proven value %#x is not a slot value: %v", enc, err), err)
		}
		proven.SetBytes(content)
		provenText = hexutil.EncodeBig(proven)
	}
	if sr.Value.Cmp(proven) != 0 {
		return &AccountProofError{Address: addr, Slot: slot, Field: "value", Claimed: hexutil.EncodeBig(sr.Value),
			Proven: provenText, Err: ErrStorageMismatch}
	}
	return nil
}

// decodeSlotValue returns the bytes of a stored slot value: one RLP string
// of at most 32 bytes, as go-ethereum stores the trimmed value.
func decodeSlotValue(enc []byte) ([]byte, error) {
	kind, content, rest, err := rlpstream.Split(enc)
	switch {
	case err != nil:
		return nil, err
	case kind == rlpstream.List:
		return nil, errors.New("a list, not a string")
	case len(rest) != 0:
		return nil, fmt.Errorf("%d bytes after the value", len(rest))
	case len(content) > 32:
		return nil, fmt.Errorf("%d bytes, more than 32", len(content))
	}
	return content, nil
}

// decodeSlotKey parses a storage key as go-ethereum's eth_getProof takes
// it: hex, 0x optional, an odd number of digits allowed, at most 32 bytes,
// left-padded to 32. The result gives the key back as it was asked, either
// as 32 bytes or as a quantity.
func decodeSlotKey(s string) (common.Hash, error) {
	digits := s
	if strings.HasPrefix(digits, "0x") || strings.HasPrefix(digits, "0X") {
		digits = digits[2:]
	}
	if len(digits)%2 == 1 {
		digits = "0" + digits
	}
	if len(digits) > 64 {
		return common.Hash{}, fmt.Errorf("%q is longer than 32 bytes", s)
	}
	b, err := hex.DecodeString(digits)
	if err != nil {
		return common.Hash{}, fmt.Errorf("%q is not hex", s)
	}
	return common.BytesToHash(b), nil
}

// decodeProofNodes decodes the hex strings of a proof, each 0x-prefixed as
// eth_getProof writes them.
func decodeProofNodes(field string, hexNodes []string) ([][]byte, error) {
	nodes := make([][]byte, len(hexNodes))
	for i, s := range hexNodes {
		b, err := hexutil.Decode(s)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", field, i, err)
		}
		nodes[i] = b
	}
	return nodes, nil
}

// bytesEqualHash reports whether b is exactly the 32 bytes of h.
func bytesEqualHash(b []byte, h common.Hash) bool {
	return len(b) == len(h) && common.BytesToHash(b) == h
}

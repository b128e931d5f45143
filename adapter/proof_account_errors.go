package adapter

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
)

// Errors of VerifyAccountProof, each wrapped in an *AccountProofError that
// names the account, the slot and what differs. Test for them with
// errors.Is; a proof that does not verify also wraps the triehash error
// (triehash.ErrProofNodeMissing or triehash.ErrProofNodeInvalid).
var (
	// ErrMalformedProofResult: the result cannot be checked at all: no
	// balance, a negative number, a proof node or slot key that is not hex.
	ErrMalformedProofResult = errors.New("adapter: malformed eth_getProof result")
	// ErrAccountProofInvalid: the account proof does not prove anything
	// against the state root: a node on the path is missing or malformed,
	// or the value it proves is not an account.
	ErrAccountProofInvalid = errors.New("adapter: account proof does not verify")
	// ErrAccountMismatch: the account proof verifies, but the account it
	// proves (or its absence) differs from the nonce, balance, storage
	// root or code hash the result claims.
	ErrAccountMismatch = errors.New("adapter: account differs from its proof")
	// ErrStorageProofInvalid: a storage proof does not prove anything
	// against the storage root, or the value it proves is not a slot
	// value.
	ErrStorageProofInvalid = errors.New("adapter: storage proof does not verify")
	// ErrStorageMismatch: a storage proof verifies, but the value it proves
	// differs from the value the result claims.
	ErrStorageMismatch = errors.New("adapter: storage value differs from its proof")
)

// AccountProofError reports what is wrong with one eth_getProof result: the
// account, the slot if a storage proof is at fault, and either the field
// that differs with both values or why the proof does not verify.
type AccountProofError struct {
	Address common.Address
	Slot    string // the storage key as the result gives it; empty when the account is at fault
	Field   string // the differing field by its JSON name ("nonce", "balance", "storageHash", "codeHash", "value"); empty otherwise
	Claimed string // the value the result claims, as eth_getProof writes it
	Proven  string // the value the proof gives, or "none (proven absent)"
	Reason  string // why the proof or the result is at fault, when no field is named
	Err     error  // one of the sentinels above
	Cause   error  // the underlying error, such as a triehash proof error; may be nil
}

// Error describes the fault: the sentinel, the account and slot, then both
// values or the reason.
func (e *AccountProofError) Error() string {
	where := "account " + e.Address.Hex()
	if e.Slot != "" {
		where += ", slot " + e.Slot
	}
	if e.Field != "" {
		return fmt.Sprintf("%v: %s: %s: the result claims %s, the proof gives %s",
			e.Err, where, e.Field, e.Claimed, e.Proven)
	}
	return fmt.Sprintf("%v: %s: %s", e.Err, where, e.Reason)
}

// Unwrap returns the sentinel and the cause, for errors.Is and errors.As.
func (e *AccountProofError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Cause}
}

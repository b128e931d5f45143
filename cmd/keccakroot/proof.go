package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v2"

	"github.com/keccakroot/keccakroot/adapter"
)

// proofCommand is the proof command.
func proofCommand() *cli.Command {
	return &cli.Command{
		Name:  "proof",
		Usage: "check eth_getProof answers (account and storage proofs) against a block's state root",
		UsageText: `keccakroot proof --state-root HEX [flags] [FILE]

Examples:
   keccakroot proof --state-root 0xcbc8241518a4108b84c064506871908ecb29850437a2a521fa08e60a90b49e22 \
       adapter/testdata/proofs/responses.json
   curl -s -H 'Content-Type: application/json' localhost:8545 \
       -d '{"jsonrpc":"2.0","id":1,"method":"eth_getProof","params":["0x…",["0x0"],"0x1b4"]}' |
       keccakroot proof --state-root STATE_ROOT_OF_BLOCK_0x1b4
   keccakroot proof --json --state-root 0x… - < answers.json`,
		Description: `Reads eth_getProof answers (EIP-1186) from FILE, or from standard input when FILE
is - or missing: a result object, a JSON-RPC response carrying one, or a JSON array of
either. Checks each with adapter.VerifyAccountProof: the account proof against
--state-root must prove exactly the claimed nonce, balance, storage hash and code hash,
or the account's absence if the answer claims what a node claims for a missing account
(zeros, or the empty trie root and empty code hash); every storage proof must prove
the claimed value against the storage hash (an absent slot proves zero).
Prints one line per account: ok, proven absent, or what failed.

Exit codes: 0 every proof holds; 1 a proof does not hold or proves other values than
the answer claims (each failing account is named); 2 bad usage, or input that cannot
be read or parsed (invalid JSON, a missing field, a proof node that is not hex, a
JSON-RPC error response).`,
		Flags: []cli.Flag{
			jsonFlag(),
			&cli.StringFlag{Name: "state-root", Usage: "the state root of the block the proofs were asked for, `HEX` (32 bytes)"},
		},
		Action: proofAction,
	}
}

// Outcomes of one account's check, as the JSON result gives them.
const (
	proofOK        = "ok"        // the account and its slots are proven as claimed
	proofAbsent    = "absent"    // the account is proven absent, and claimed so
	proofMismatch  = "mismatch"  // a proof holds, but proves other values than claimed
	proofInvalid   = "invalid"   // a proof does not verify against its root
	proofMalformed = "malformed" // the answer cannot be checked: a node or key that is not hex, a missing value
)

// proofResult is the result of the proof command.
type proofResult struct {
	Command   string         `json:"command"`
	Input     string         `json:"input"`
	StateRoot common.Hash    `json:"stateRoot"`
	Accounts  int            `json:"accounts"`
	Proven    int            `json:"proven"`
	Absent    int            `json:"absent"`
	Failed    int            `json:"failed"`
	Results   []accountProof `json:"results"`
	OK        bool           `json:"ok"`
	Error     string         `json:"error,omitempty"`
}

// accountProof is the outcome for one answer.
type accountProof struct {
	Address common.Address `json:"address"`
	Where   string         `json:"where"` // in the input
	Status  string         `json:"status"`
	Slots   int            `json:"slots"`
	Slot    string         `json:"slot,omitempty"`
	Field   string         `json:"field,omitempty"`
	Claimed string         `json:"claimed,omitempty"`
	Proven  string         `json:"proven,omitempty"`
	Error   string         `json:"error,omitempty"`

	detail string // the error without the account, for the account's line of text
}

// proofAction runs the proof command.
func proofAction(c *cli.Context) error {
	if err := checkArgs(c, 0, 1); err != nil {
		return err
	}
	if !c.IsSet("state-root") {
		return usageErrorf("proof: --state-root is required: the state root of the block the proofs were asked for")
	}
	rootBytes, err := decodeHex(c.String("state-root"))
	if err != nil || len(rootBytes) != common.HashLength {
		if err == nil {
			err = fmt.Errorf("%d bytes", len(rootBytes))
		}
		return usageErrorf("proof: --state-root: want 32 bytes of hex: %v", err)
	}
	root := common.BytesToHash(rootBytes)
	name := c.Args().First()
	if name == "" {
		name = "-"
	}
	data, err := readAll(name)
	if err != nil {
		return err
	}
	if name == "-" {
		name = "standard input"
	}
	answers, err := parseProofAnswers(data)
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", name, err))
	}
	res := &proofResult{Command: "proof", Input: name, StateRoot: root, Accounts: len(answers)}
	var firstFailure, firstMalformed *accountProof
	for _, a := range answers {
		out := checkAccountProof(root, a)
		switch out.Status {
		case proofOK:
			res.Proven++
		case proofAbsent:
			res.Absent++
		default:
			res.Failed++
			if out.Status == proofMalformed && firstMalformed == nil {
				firstMalformed = &out
			}
			if firstFailure == nil {
				firstFailure = &out
			}
		}
		res.Results = append(res.Results, out)
	}
	switch {
	case firstMalformed != nil:
		err = inputError(fmt.Errorf("%s: %s: %s", name, firstMalformed.Where, firstMalformed.Error))
	case firstFailure != nil:
		err = mismatchErrorf("%s: %s of %s accounts failed, the first at %s: %s", name, formatCount(int64(res.Failed)),
			formatCount(int64(res.Accounts)), firstFailure.Where, firstFailure.Error)
	}
	res.OK = err == nil
	if err != nil {
		res.Error = err.Error()
	}
	return report(c, res, err)
}

// checkAccountProof checks one answer against the state root.
func checkAccountProof(root common.Hash, a proofAnswer) accountProof {
	out := accountProof{Address: a.res.Address, Where: a.where, Slots: len(a.res.StorageProof)}
	acc, err := adapter.VerifyAccountResult(root, a.res)
	if err == nil {
		out.Status = proofOK
		if acc == nil {
			out.Status = proofAbsent
		}
		return out
	}
	out.Error, out.detail = err.Error(), err.Error()
	var perr *adapter.AccountProofError
	if errors.As(err, &perr) {
		out.Slot, out.Field, out.Claimed, out.Proven = perr.Slot, perr.Field, perr.Claimed, perr.Proven
		out.detail = describeProofError(perr)
	}
	switch {
	case errors.Is(err, adapter.ErrMalformedProofResult):
		out.Status = proofMalformed
	case errors.Is(err, adapter.ErrAccountMismatch), errors.Is(err, adapter.ErrStorageMismatch):
		out.Status = proofMismatch
	default:
		out.Status = proofInvalid
	}
	return out
}

// describeProofError says what is wrong with an account's proofs without
// naming the account, which its line of text starts with.
func describeProofError(e *adapter.AccountProofError) string {
	what := strings.TrimPrefix(e.Err.Error(), "adapter: ")
	if e.Slot != "" {
		what = "slot " + e.Slot + ": " + what
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: the result claims %s, the proof gives %s", what, e.Field, e.Claimed, e.Proven)
	}
	return what + ": " + e.Reason
}

// writeText prints one line per account, then a summary.
func (r *proofResult) writeText(w io.Writer) {
	for _, a := range r.Results {
		slots := ""
		if a.Slots > 0 {
			slots = ", " + plural(a.Slots, "storage slot")
		}
		switch a.Status {
		case proofOK:
			fmt.Fprintf(w, "%s: ok%s\n", a.Address.Hex(), slots)
		case proofAbsent:
			fmt.Fprintf(w, "%s: proven absent%s\n", a.Address.Hex(), slots)
		default:
			fmt.Fprintf(w, "%s: FAILED (%s): %s\n", a.Address.Hex(), a.Status, a.detail)
		}
	}
	fmt.Fprintf(w, "%s checked against state root %s: %s proven, %s absent",
		plural(r.Accounts, "account"), r.StateRoot.Hex(), formatCount(int64(r.Proven)), formatCount(int64(r.Absent)))
	if r.Failed > 0 {
		fmt.Fprintf(w, ", %s FAILED", formatCount(int64(r.Failed)))
	}
	fmt.Fprintln(w)
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/ethclient/gethclient"

	"github.com/keccakroot/keccakroot/adapter"
)

// proofAnswer is one eth_getProof result read from the input, with where it
// starts there.
type proofAnswer struct {
	where string // "line 3, column 2 (element 1)"
	res   *gethclient.AccountResult
}

// parseProofAnswers reads eth_getProof answers: a result object, a JSON-RPC
// response carrying one, or a JSON array of either kind.
func parseProofAnswers(data []byte) ([]proofAnswer, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(trimmed) == 0:
		return nil, errors.New("no input: want eth_getProof answers as JSON")
	case trimmed[0] == '{':
		dec := json.NewDecoder(bytes.NewReader(data))
		var elem json.RawMessage
		if err := dec.Decode(&elem); err != nil {
			var syntax *json.SyntaxError
			at := int64(len(data) - len(trimmed)) // where the object begins, for a truncated one
			if errors.As(err, &syntax) {
				at = syntax.Offset
			}
			return nil, jsonErr(jsonWhere(data, at), err)
		}
		if err := jsonEnd(dec, func() string { return jsonWhere(data, dec.InputOffset()) }); err != nil {
			return nil, err
		}
		a, err := parseProofAnswer(elem)
		if err != nil {
			return nil, err
		}
		a.where = jsonWhere(data, int64(len(data)-len(trimmed)))
		return []proofAnswer{a}, nil
	case trimmed[0] == '[':
		return parseProofArray(data)
	default:
		return nil, fmt.Errorf("%s: want an eth_getProof result or JSON-RPC response (a JSON object), or a JSON array of them",
			jsonWhere(data, int64(len(data)-len(trimmed))))
	}
}

// parseProofArray reads a JSON array of answers.
func parseProofArray(data []byte) ([]proofAnswer, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	where := func() string { return jsonWhere(data, dec.InputOffset()) }
	if _, err := dec.Token(); err != nil { // [
		return nil, jsonErr(where(), err)
	}
	var answers []proofAnswer
	for i := 0; dec.More(); i++ {
		at := jsonWhere(data, skipJSONSpace(data, dec.InputOffset(), ','))
		var elem json.RawMessage
		if err := dec.Decode(&elem); err != nil {
			return nil, jsonErr(at, err)
		}
		at = fmt.Sprintf("%s (element %d)", at, i)
		a, err := parseProofAnswer(elem)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at, err)
		}
		a.where = at
		answers = append(answers, a)
	}
	if _, err := dec.Token(); err != nil { // ]
		return nil, jsonErr(where(), err)
	}
	if err := jsonEnd(dec, where); err != nil {
		return nil, err
	}
	if len(answers) == 0 {
		return nil, errors.New("an empty array: no eth_getProof answers")
	}
	return answers, nil
}

// parseProofAnswer reads one answer: a JSON-RPC response if it has a
// "jsonrpc", "result" or "error" member, a bare result otherwise.
func parseProofAnswer(elem json.RawMessage) (proofAnswer, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(elem, &members); err != nil || members == nil {
		return proofAnswer{}, fmt.Errorf("want an eth_getProof result or a JSON-RPC response, got %s", abbreviate(string(elem)))
	}
	result := elem
	_, isRPC := members["jsonrpc"]
	if _, ok := members["result"]; ok {
		isRPC = true
	}
	if e, ok := members["error"]; ok && string(e) != "null" {
		var rpcErr struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(e, &rpcErr) != nil {
			return proofAnswer{}, fmt.Errorf("a JSON-RPC error response: %s", abbreviate(string(e)))
		}
		return proofAnswer{}, fmt.Errorf("a JSON-RPC error response, not a proof: code %d: %s", rpcErr.Code, rpcErr.Message)
	}
	if isRPC {
		result = members["result"]
		if len(result) == 0 || string(result) == "null" {
			return proofAnswer{}, errors.New("a JSON-RPC response without a result")
		}
	}
	res, err := adapter.ParseAccountResult(result)
	if err != nil {
		return proofAnswer{}, err
	}
	return proofAnswer{res: res}, nil
}

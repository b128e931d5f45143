package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// The eth_getProof fixtures, go-ethereum's own answers (see
// adapter/testdata/proofs).
const proofFixtures = "../../adapter/testdata/proofs"

// proofFixture is the fixtures' state root and responses, each decoded into
// a generic value to tamper with.
type proofFixture struct {
	root      common.Hash
	responses []map[string]any
}

func loadProofFixture(t testing.TB) *proofFixture {
	t.Helper()
	var block struct {
		StateRoot common.Hash `json:"stateRoot"`
	}
	readJSON(t, filepath.Join(proofFixtures, "block.json"), &block)
	f := &proofFixture{root: block.StateRoot}
	readJSON(t, filepath.Join(proofFixtures, "responses.json"), &f.responses)
	if len(f.responses) != 11 {
		t.Fatalf("want 11 fixtures, got %d", len(f.responses))
	}
	return f
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// result returns the i-th response's result, to change in place.
func (f *proofFixture) result(i int) map[string]any { return f.responses[i]["result"].(map[string]any) }

// results returns the bare results.
func (f *proofFixture) results() []any {
	out := make([]any, len(f.responses))
	for i := range f.responses {
		out[i] = f.result(i)
	}
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The accounts of the fixtures, by their position.
const (
	senderAt  = 0
	storeAt   = 3
	missingAt = 9
)

func TestProofFixtures(t *testing.T) {
	f := loadProofFixture(t)
	root := f.root.Hex()
	responses, err := filepath.Abs(filepath.Join(proofFixtures, "responses.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := keccakroot(t, nil, "proof", "--state-root", root, responses)
	wantCode(t, r, exitOK)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 12 {
		t.Fatalf("want a line per account and a summary:\n%v", r)
	}
	wantOutput(t, r.stdout,
		"0xB2DD65D5927b742Ff6795c592DC9bf0aB8319A41: ok\n",
		"0x00000000000000000000000000000000C0DE0001: ok, 5 storage slots\n",
		"0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02: ok, 7 storage slots\n", // EIP-4788 beacon roots
		"0x0000F90827F1C53a10cb7A02335B175320002935: ok, 7 storage slots\n", // EIP-2935 history storage
		"0x00000000000000000000000000000000DEAD0001: proven absent, 1 storage slot\n",
		"11 accounts checked against state root "+root+": 9 proven, 2 absent\n")

	// Every form of input gives the same outcome: bare results, one
	// result, one JSON-RPC response, a mix, from a file or standard input.
	mixed := f.results()
	mixed[1] = f.responses[1]
	forms := map[string][]byte{
		"results":  mustJSON(t, f.results()),
		"result":   mustJSON(t, f.result(storeAt)),
		"response": mustJSON(t, f.responses[missingAt]),
		"mixed":    mustJSON(t, mixed),
	}
	want := map[string][2]int{"results": {9, 2}, "result": {1, 0}, "response": {0, 1}, "mixed": {9, 2}}
	dir := t.TempDir()
	for name, data := range forms {
		for _, args := range [][]string{
			{"proof", "--json", "--state-root", root, writeFile(t, dir, name+".json", data)},
			{"proof", "--json", "--state-root", root},
			{"--json", "proof", "--state-root", strings.TrimPrefix(root, "0x"), "-"},
		} {
			r := keccakroot(t, data, args...)
			wantCode(t, r, exitOK)
			var res proofResult
			decodeJSON(t, r, &res)
			if !res.OK || res.Proven != want[name][0] || res.Absent != want[name][1] || res.Failed != 0 || res.StateRoot != f.root ||
				len(res.Results) != res.Accounts {
				t.Fatalf("%s: want %v proven and absent:\n%v", name, want[name], r)
			}
		}
	}
}

func TestProofFailures(t *testing.T) {
	tests := []struct {
		name   string
		root   *common.Hash
		tamper func(f *proofFixture)
		failed int
		status string
		addr   string   // the first failing account
		want   []string // in its line and in the error
	}{
		{name: "balance", tamper: func(f *proofFixture) { f.result(senderAt)["balance"] = "0x1" },
			failed: 1, status: proofMismatch, addr: "0xB2DD65D5927b742Ff6795c592DC9bf0aB8319A41",
			want: []string{"account differs from its proof", "balance: the result claims 0x1, the proof gives 0x3635c8cda249acc6a0"}},
		{name: "dropped node", tamper: func(f *proofFixture) {
			p := f.result(storeAt)["accountProof"].([]any)
			f.result(storeAt)["accountProof"] = p[:len(p)-1]
		}, failed: 1, status: proofInvalid, addr: "0x00000000000000000000000000000000C0DE0001",
			want: []string{"account proof does not verify", "proof node missing"}},
		{name: "storage value", tamper: func(f *proofFixture) {
			f.result(storeAt)["storageProof"].([]any)[2].(map[string]any)["value"] = "0x7"
		}, failed: 1, status: proofMismatch, addr: "0x00000000000000000000000000000000C0DE0001",
			want: []string{"slot 0x3", "value: the result claims 0x7"}},
		{name: "absent account claims a nonce", tamper: func(f *proofFixture) { f.result(missingAt)["nonce"] = "0x1" },
			failed: 1, status: proofMismatch, addr: "0x00000000000000000000000000000000DEAD0001",
			want: []string{"nonce: the result claims 0x1, the proof gives none (proven absent)"}},
		{name: "wrong state root", root: &common.Hash{0xab}, failed: 11, status: proofInvalid,
			addr: "0xB2DD65D5927b742Ff6795c592DC9bf0aB8319A41", want: []string{"against state root 0xab00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := loadProofFixture(t)
			if tt.tamper != nil {
				tt.tamper(f)
			}
			root := f.root
			if tt.root != nil {
				root = *tt.root
			}
			data := mustJSON(t, f.responses)
			r := keccakroot(t, data, "proof", "--state-root", root.Hex())
			wantCode(t, r, exitMismatch)
			wantOutput(t, r.stdout, append([]string{tt.addr + ": FAILED (" + tt.status + "): "}, tt.want...)...)
			wantOutput(t, r.stderr, append([]string{"keccakroot: standard input: ", "account " + tt.addr}, tt.want...)...)
			if tt.failed < 11 {
				wantOutput(t, r.stdout, ": ok", "proven absent")
			}
			if got := strings.Count(r.stdout, "FAILED ("); got != tt.failed {
				t.Fatalf("want %d failing accounts, got %d:\n%v", tt.failed, got, r)
			}

			r = keccakroot(t, data, "proof", "--json", "--state-root", root.Hex())
			wantCode(t, r, exitMismatch)
			var res proofResult
			decodeJSON(t, r, &res)
			if res.OK || res.Failed != tt.failed || res.Proven+res.Absent+res.Failed != 11 || !strings.Contains(res.Error, "account "+tt.addr) {
				t.Fatalf("want %d failures:\n%v", tt.failed, r)
			}
			for _, a := range res.Results {
				if a.Status != proofOK && a.Status != proofAbsent && (a.Status != tt.status || a.Error == "") {
					t.Fatalf("want status %s with an error, got %+v", tt.status, a)
				}
			}
		})
	}
}

func TestProofBadInput(t *testing.T) {
	f := loadProofFixture(t)
	root := f.root.Hex()
	badHex := loadProofFixture(t)
	badHex.result(senderAt)["accountProof"].([]any)[0] = "0xzz"
	noBalance := loadProofFixture(t)
	delete(noBalance.result(storeAt), "balance")
	tests := []struct {
		name  string
		input []byte
		want  []string
	}{
		{"empty", []byte(" \n"), []string{"no input"}},
		{"not JSON", []byte("0x1234"), []string{"line 1, column 1", "want an eth_getProof result"}},
		{"bad JSON", []byte("[{\"address\": }]"), []string{"line 1, column 2", "invalid JSON"}},
		{"bad JSON in one object", []byte("{\"address\": \"0x01\",\n\"balance\": \"0x0\",\n\"nonce\": ]}"), []string{"line 3, column 11", "invalid JSON"}},
		{"truncated", mustJSON(t, f.responses)[:500], []string{"invalid JSON", "unexpected EOF"}},
		{"trailing data", append(mustJSON(t, f.result(0)), " {}"...), []string{"unexpected data after the JSON value"}},
		{"empty array", []byte("[]"), []string{"empty array"}},
		{"not an object", []byte(`[1]`), []string{"element 0", "want an eth_getProof result"}},
		{"RPC error", []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"header not found"}}`),
			[]string{"JSON-RPC error response", "header not found"}},
		{"RPC without result", []byte(`{"jsonrpc":"2.0","id":1,"result":null}`), []string{"without a result"}},
		{"missing field", mustJSON(t, noBalance.responses), []string{"element 3", `no "balance" field`}},
		{"bad hex node", mustJSON(t, badHex.responses), []string{"element 0", "accountProof[0]", "invalid hex"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := keccakroot(t, tt.input, "proof", "--state-root", root)
			wantCode(t, r, exitUsage)
			wantOutput(t, r.stderr, append([]string{"keccakroot: standard input: "}, tt.want...)...)
			r = keccakroot(t, tt.input, "proof", "--json", "--state-root", root)
			wantCode(t, r, exitUsage)
			var res struct {
				OK    bool   `json:"ok"`
				Error string `json:"error"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.OK || !strings.Contains(res.Error, tt.want[0]) {
				t.Fatalf("want a JSON error result: %v\n%v", err, r)
			}
		})
	}

	usage := []struct {
		args []string
		want string
	}{
		{[]string{"proof"}, "--state-root is required"},
		{[]string{"proof", "--state-root", "0x1234"}, "want 32 bytes of hex: 2 bytes"},
		{[]string{"proof", "--state-root", "0xzz"}, "want 32 bytes of hex"},
		{[]string{"proof", "--state-root", root, "a", "b"}, "too many arguments"},
		{[]string{"proof", "--frobnicate"}, "proof: flag provided but not defined"},
		{[]string{"proof", "--state-root", root, "missing-file"}, "no such file"},
	}
	for _, tt := range usage {
		r := keccakroot(t, nil, tt.args...)
		wantCode(t, r, exitUsage)
		wantOutput(t, r.stderr, tt.want)
	}
	r := keccakroot(t, nil, "proof", "--help")
	wantCode(t, r, exitOK)
	wantOutput(t, r.stdout, "Examples:", "keccakroot proof --state-root", "Exit codes:", "--json")
}

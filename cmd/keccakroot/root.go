package main

import (
	"fmt"
	"io"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/urfave/cli/v2"

	"github.com/keccakroot/keccakroot/triehash"
)

// rootCommand is the root command.
func rootCommand() *cli.Command {
	return &cli.Command{
		Name:  "root",
		Usage: "the Merkle-Patricia trie root of key/value pairs read from a file or standard input",
		UsageText: `keccakroot root [flags] [FILE]

Examples:
   printf '0x01 0xaa\n0x02 0xbb\n' | keccakroot root
   keccakroot root --secure --json pairs.json
   echo '{"0x646f": "0x7665726200"}' | keccakroot root --check -`,
		Description: `Reads pairs from FILE, or from standard input when FILE is - or missing, in one of
three forms, told apart by the first character:
   hex lines      KEY VALUE, one pair a line, hex with or without 0x, separated by
                  spaces, a tab, a comma or '='; blank lines and lines starting with # are skipped
   a JSON object  {"0xKEY": "0xVALUE", ...}
   a JSON list    [["0xKEY", "0xVALUE"], ...] or [{"key": "0x..", "value": "0x.."}, ...]
and prints the root of the trie holding each value at its key (keys in any order).
--secure hashes each key with Keccak-256 first, as the state and storage tries do.
A repeated key or an empty value is an error, not an overwrite or a deletion.

Exit codes: 0 printed (and, with --check, go-ethereum agrees); 1 go-ethereum's
trie gives another root (--check); 2 bad usage or malformed input.`,
		Flags: []cli.Flag{
			jsonFlag(),
			&cli.BoolFlag{Name: "secure", Usage: "hash each key with Keccak-256 before inserting it"},
			&cli.BoolFlag{Name: "check", Usage: "also compute the root with go-ethereum's trie.Trie and compare"},
			workersFlag(),
		},
		Action: rootAction,
	}
}

// rootResult is the result of the root command.
type rootResult struct {
	Command   string       `json:"command"`
	Input     string       `json:"input"`
	Format    string       `json:"format"`
	Pairs     int          `json:"pairs"`
	Secure    bool         `json:"secure"`
	Root      common.Hash  `json:"root"`
	GethRoot  *common.Hash `json:"gethRoot,omitempty"`
	Workers   int          `json:"workers"`
	OK        bool         `json:"ok"`
	Error     string       `json:"error,omitempty"`
	ShowCheck bool         `json:"-"`
}

// rootAction runs the root command.
func rootAction(c *cli.Context) error {
	if err := checkArgs(c, 0, 1); err != nil {
		return err
	}
	workers := c.Int("workers")
	if workers < 0 {
		return usageErrorf("--workers %d: want 0 (all cores) or more", workers)
	}
	name := c.Args().First()
	if name == "" {
		name = "-"
	}
	if name == "-" && isTerminal(os.Stdin) {
		// Someone typed "keccakroot root" and now waits: say why.
		fmt.Fprintln(c.App.ErrWriter, "keccakroot root: reading KEY VALUE pairs from standard input, one pair a line; end with Ctrl-D (see keccakroot root --help)")
	}
	data, err := readAll(name)
	if err != nil {
		return err
	}
	if name == "-" {
		name = "standard input"
	}
	pairs, format, err := parsePairs(data)
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", name, err))
	}
	if err := checkPairs(pairs, c.Bool("secure")); err != nil {
		return inputError(fmt.Errorf("%s: %w", name, err))
	}
	keys := make([][]byte, len(pairs))
	values := make([][]byte, len(pairs))
	for i, p := range pairs {
		keys[i], values[i] = p.key, p.value
	}
	opts := triehash.Options{Workers: workers}
	secure := c.Bool("secure")
	var root [32]byte
	if secure {
		root, err = opts.SecureRoot(keys, values)
	} else {
		root, err = opts.Root(keys, values)
	}
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", name, err))
	}
	res := &rootResult{Command: "root", Input: name, Format: format, Pairs: len(pairs), Secure: secure,
		Root: root, Workers: workers, OK: true, ShowCheck: c.Bool("check")}
	if c.Bool("check") {
		g, err := gethRoot(keys, values, secure)
		if err != nil {
			return err
		}
		res.GethRoot = &g
		if g != res.Root {
			res.OK = false
			err = mismatchErrorf("%s: keccakroot's root %s differs from go-ethereum's %s", name, res.Root.Hex(), g.Hex())
			res.Error = err.Error()
		}
	}
	return report(c, res, err)
}

// gethRoot computes the root with go-ethereum's trie.Trie in memory, which,
// unlike its StackTrie, also takes keys that are prefixes of other keys.
func gethRoot(keys, values [][]byte, secure bool) (common.Hash, error) {
	tr := trie.NewEmpty(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil))
	for i := range keys {
		k := keys[i]
		if secure {
			k = crypto.Keccak256(k)
		}
		if err := tr.Update(k, values[i]); err != nil {
			return common.Hash{}, fmt.Errorf("go-ethereum's trie: %w", err)
		}
	}
	return tr.Hash(), nil
}

// writeText prints the root alone, for scripts; with --check, the outcome
// follows on a second line.
func (r *rootResult) writeText(w io.Writer) {
	fmt.Fprintln(w, r.Root.Hex())
	if r.ShowCheck && r.GethRoot != nil {
		if r.OK {
			fmt.Fprintln(w, "go-ethereum's trie agrees")
		} else {
			fmt.Fprintf(w, "go-ethereum's trie gives %s\n", r.GethRoot.Hex())
		}
	}
}

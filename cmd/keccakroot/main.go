// Command keccakroot computes Ethereum state roots, genesis block hashes,
// trie roots, block checks and proof checks with keccakroot, and checks each
// result against go-ethereum.
//
// With no arguments it runs its main job on embedded data: the mainnet genesis
// state root and block hash, computed from go-ethereum's built-in allocation,
// checked against the known values and timed beside go-ethereum's own
// genesis.ToBlock() in the same run.
//
// Commands:
//
//	keccakroot                          the mainnet genesis, checked and timed
//	keccakroot genesis FILE.json        state root and block hash of a genesis file
//	keccakroot genesis --network NAME   the same for mainnet, sepolia or hoodi
//	keccakroot verify-chain FILE[.gz]   verify an exported chain block by block
//	keccakroot replay --genesis FILE CHAIN
//	                                    execute an exported chain on keccakroot's state database
//	keccakroot stateless --network NAME --witness FILE BLOCK
//	                                    verify a block from its execution witness
//	keccakroot root [FILE]              the trie root of key/value pairs
//	keccakroot proof --state-root HEX [FILE]
//	                                    check eth_getProof answers against a state root
//	keccakroot bench [--quick]          keccakroot against go-ethereum, side by side
//
// Every command takes --json, which prints one JSON object on standard output.
//
// Exit codes: 0 when everything was computed and matched; 1 when a check
// failed (a root or hash that differs from the known or go-ethereum value, a
// block whose roots disagree with its header, a broken parent link, a proof
// that does not hold or proves other values than claimed); 2 for bad
// usage and for input that cannot be read or parsed (a missing file, invalid
// JSON or hex, a truncated or malformed chain file).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// Exit codes of the command; see the package documentation.
const (
	exitOK       = 0
	exitMismatch = 1
	exitUsage    = 2
)

// main runs the command line and exits with its code.
func main() {
	os.Exit(run(context.Background(), os.Args, os.Stdout, os.Stderr))
}

// run runs the command line args (program name first) and returns the exit
// code. Results go to stdout, errors and progress to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := app.RunContext(ctx, args)
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	var reported *reportedError
	if !errors.As(err, &reported) {
		fmt.Fprintf(stderr, "keccakroot: %v\n", err)
		if wantsJSON(args) {
			writeJSON(stdout, errorResult{OK: false, Error: err.Error(), ExitCode: code})
		}
	}
	return code
}

// wantsJSON reports whether --json appears among the flags of args, for
// errors that stop the command before its own flags are parsed.
func wantsJSON(args []string) bool {
	for _, a := range args[1:] {
		switch {
		case a == "--json" || a == "-json":
			return true
		case strings.HasPrefix(a, "--json=") || strings.HasPrefix(a, "-json="):
			on, err := strconv.ParseBool(a[strings.IndexByte(a, '=')+1:])
			return err == nil && on // the flag's own parsing says what else is wrong
		case a == "--":
			return false
		}
	}
	return false
}

// newApp builds the command-line application.
func newApp(stdout, stderr io.Writer) *cli.App {
	commands := []*cli.Command{genesisCommand(), verifyChainCommand(), replayCommand(), statelessCommand(), rootCommand(), benchCommand(), proofCommand()}
	for _, cmd := range commands {
		cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
			return usageErrorf("%s: %v (see keccakroot %s --help)", c.Command.Name, err, c.Command.Name)
		}
		cmd.Before = applyGlobalFlags
	}
	return &cli.App{
		Name:      "keccakroot",
		Usage:     "Ethereum state roots, block hashes, trie roots and proofs with keccakroot, checked against go-ethereum",
		UsageText: "keccakroot [--json] [--runs N] [--workers N] [--geth=false] | keccakroot COMMAND [flags] [arguments]",
		Description: `With no command, keccakroot computes the mainnet genesis state root and block hash
from go-ethereum's built-in allocation, checks them against the known values and
times them beside go-ethereum's genesis.ToBlock() on the same input.

Examples:
   keccakroot                                   the mainnet genesis, checked and timed
   keccakroot genesis devnet.json               state root and block hash of a genesis file
   keccakroot genesis --network sepolia         a built-in network (mainnet, sepolia, hoodi)
   keccakroot verify-chain chain.rlp.gz         verify a 'geth export' file block by block
   keccakroot replay --genesis devnet.json chain.rlp.gz
                                                execute it with go-ethereum's EVM on keccakroot's state
   keccakroot stateless --network mainnet --witness witness.json block.rlp
                                                verify a block from its execution witness
   printf '0x01 0xaa\n0x02 0xbb\n' | keccakroot root
                                                the trie root of key/value pairs
   keccakroot proof --state-root 0x… answers.json
                                                check eth_getProof answers against a state root
   keccakroot bench --quick                     keccakroot against go-ethereum, side by side

Every command takes --json and then prints one JSON object on standard output.
Flags go before a command's arguments: keccakroot genesis --json FILE.

Exit codes:
   0  everything was computed and matched
   1  a check failed: a root or hash differs from the known or go-ethereum value,
      a block's roots disagree with its header, a parent link is broken, or a
      proof does not hold or proves other values than the answer claims
   2  bad usage, or input that cannot be read or parsed (missing file, invalid
      JSON or hex, a truncated or malformed chain file)`,
		Flags:                  append(genesisTimingFlags(), jsonFlag()),
		Action:                 defaultAction,
		Commands:               commands,
		Writer:                 stdout,
		ErrWriter:              stderr,
		HideVersion:            true,
		UseShortOptionHandling: false,
		// Errors are turned into exit codes by run, not by the library.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageErrorf("%v (see keccakroot --help)", err)
		},
	}
}

// applyGlobalFlags hands the flags given before a command to the command:
// "keccakroot --runs 1 genesis FILE" is "keccakroot genesis --runs 1 FILE".
// A flag the command does not take is refused, and so is one given both
// before and after the command name, so that no flag is accepted and then
// ignored.
func applyGlobalFlags(c *cli.Context) error {
	lineage := c.Lineage()
	if len(lineage) < 2 {
		return nil
	}
	global := lineage[1]
	local := map[string]bool{}
	for _, name := range c.LocalFlagNames() {
		local[name] = true
	}
	for _, name := range global.LocalFlagNames() {
		if name == "json" {
			continue // every command reads --json from before it too (jsonMode)
		}
		if !commandHasFlag(c.Command, name) {
			return usageErrorf("--%s given before %s, which has no such flag; it applies only to keccakroot without a command%s",
				name, c.Command.Name, alsoFor(c.App, name))
		}
		if local[name] {
			return usageErrorf("--%s given both before and after %s; give it once, after the command: keccakroot %s --%s ...",
				name, c.Command.Name, c.Command.Name, name)
		}
		if err := c.Set(name, fmt.Sprint(global.Value(name))); err != nil {
			return usageErrorf("--%s before %s: %v", name, c.Command.Name, err)
		}
	}
	return nil
}

// commandHasFlag reports whether cmd takes the flag of that name.
func commandHasFlag(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

// alsoFor names the commands that take a flag of the default job too.
func alsoFor(app *cli.App, name string) string {
	var names []string
	for _, cmd := range app.Commands {
		if commandHasFlag(cmd, name) {
			names = append(names, cmd.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " and " + strings.Join(names, ", ")
}

// jsonFlag is the --json flag that every command takes.
func jsonFlag() cli.Flag {
	return &cli.BoolFlag{Name: "json", Usage: "print the result as one JSON object on standard output"}
}

// workersFlag is the --workers flag of the commands that build tries.
func workersFlag() cli.Flag {
	return &cli.IntFlag{Name: "workers", Value: 0, Usage: "goroutines to build tries on, `N`; 0 means all cores"}
}

// exitError is an error with the exit code it stands for.
type exitError struct {
	code int
	err  error
}

// Error returns the message of the wrapped error.
func (e *exitError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e *exitError) Unwrap() error { return e.err }

// reportedError marks an error whose result the command has already printed
// (as JSON, or as its own message), so run only sets the exit code.
type reportedError struct {
	code int
	err  error
}

// Error returns the message of the wrapped error.
func (e *reportedError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e *reportedError) Unwrap() error { return e.err }

// usageErrorf returns an error that exits with exitUsage: bad usage, or input
// that cannot be read or parsed.
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// inputError wraps err, an unreadable or malformed input, to exit with
// exitUsage.
func inputError(err error) error {
	return &exitError{code: exitUsage, err: err}
}

// mismatchErrorf returns an error that exits with exitMismatch: a check that
// failed.
func mismatchErrorf(format string, args ...any) error {
	return &exitError{code: exitMismatch, err: fmt.Errorf(format, args...)}
}

// exitCode maps an error to the exit code it stands for. Errors of the flag
// library are usage errors.
func exitCode(err error) int {
	var r *reportedError
	if errors.As(err, &r) {
		return r.code
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return exitUsage
}

// checkArgs fails with a usage error unless the command got between min and
// max arguments. A flag given after the arguments, which the flag library
// would take as an argument, gets its own message.
func checkArgs(c *cli.Context, minArgs, maxArgs int) error {
	args := c.Args().Slice()
	for _, a := range args {
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			return usageErrorf("%s: flag %s after the arguments; flags go first: keccakroot %s %s ARGS",
				c.Command.Name, a, c.Command.Name, a)
		}
	}
	switch {
	case len(args) < minArgs:
		return usageErrorf("%s: missing argument; usage: %s", c.Command.Name, usageLine(c))
	case len(args) > maxArgs:
		return usageErrorf("%s: too many arguments %q; usage: %s", c.Command.Name, args, usageLine(c))
	}
	return nil
}

// usageLine returns the first line of the command's usage text.
func usageLine(c *cli.Context) string {
	line, _, _ := strings.Cut(c.Command.UsageText, "\n")
	return line
}

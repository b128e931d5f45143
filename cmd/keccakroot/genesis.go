package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/params"
	"github.com/urfave/cli/v2"

	"github.com/keccakroot/keccakroot/adapter"
	"github.com/keccakroot/keccakroot/fastkeccak"
)

// mainnetStateRoot is the state root of the mainnet genesis block.
var mainnetStateRoot = common.HexToHash("0xd7f8974fb5ac78d9ac099b9ad5018bedc2ce0a72dad1827a1709da30580f0544")

// network is a built-in network: its genesis and the known values to check
// it against.
type network struct {
	name      string
	genesis   func() *core.Genesis
	blockHash common.Hash
	stateRoot *common.Hash // nil where no state root constant is at hand
}

// networks are the built-in networks of --network, by name.
var networks = []network{
	{"mainnet", core.DefaultGenesisBlock, params.MainnetGenesisHash, &mainnetStateRoot},
	{"sepolia", core.DefaultSepoliaGenesisBlock, params.SepoliaGenesisHash, nil},
	{"hoodi", core.DefaultHoodiGenesisBlock, params.HoodiGenesisHash, nil},
}

// networkNames lists the names of the built-in networks.
func networkNames() []string {
	names := make([]string, len(networks))
	for i, n := range networks {
		names[i] = n.name
	}
	return names
}

// findNetwork returns the built-in network of that name.
func findNetwork(name string) (network, bool) {
	for _, n := range networks {
		if n.name == name {
			return n, true
		}
	}
	return network{}, false
}

// genesisTimingFlags are the flags of the genesis computation, shared by the
// default job and the genesis command.
func genesisTimingFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "runs", Value: 3, Usage: "time each side `N` times, the sides taking turns, and report each one's fastest run"},
		&cli.BoolFlag{Name: "geth", Value: true, Usage: "also compute with go-ethereum's genesis.ToBlock(), compare and time it (--geth=false to skip)"},
		&cli.IntFlag{Name: "workers", Value: 0, Usage: "cores to build the tries on, `N`; 0 means all (sets GOMAXPROCS, which the adapter's genesis functions build on)"},
	}
}

// genesisCommand is the genesis command.
func genesisCommand() *cli.Command {
	return &cli.Command{
		Name:  "genesis",
		Usage: "state root and block hash of a go-ethereum genesis file or a built-in network",
		UsageText: `keccakroot genesis [flags] FILE.json
   keccakroot genesis [flags] --network mainnet|sepolia|hoodi

Examples:
   keccakroot genesis devnet.json
   keccakroot genesis --json --runs 1 --geth=false big-genesis.json
   keccakroot genesis --network hoodi`,
		Description: `Computes the state root of the allocation and the hash of the genesis block,
with keccakroot, and (unless --geth=false) with go-ethereum's genesis.ToBlock() on the
same input, compares the two and times both. For a built-in network the known block
hash (params.<Network>GenesisHash) is checked too, and for mainnet the known state root.

FILE is the genesis JSON that 'geth init' reads; it must have a "config" object.
Exit codes: 0 all checks passed, 1 a mismatch, 2 bad usage or an unreadable file.`,
		Flags: append(genesisTimingFlags(),
			&cli.StringFlag{Name: "network", Usage: "a built-in network instead of a file: " + strings.Join(networkNames(), ", ")},
			jsonFlag(),
		),
		Action: genesisAction,
	}
}

// genesisAction runs the genesis command.
func genesisAction(c *cli.Context) error {
	name := c.String("network")
	if name != "" {
		if err := checkArgs(c, 0, 0); err != nil {
			return usageErrorf("genesis: give either --network or a FILE, not both")
		}
		n, ok := findNetwork(name)
		if !ok {
			return usageErrorf("genesis: unknown network %q; known: %s", name, strings.Join(networkNames(), ", "))
		}
		return runNetworkGenesis(c, n)
	}
	if err := checkArgs(c, 1, 1); err != nil {
		return err
	}
	path := c.Args().First()
	g, err := loadGenesis(path)
	if err != nil {
		return err
	}
	in := genesisInput{genesis: g, source: path, file: path}
	return runGenesis(c, in)
}

// runNetworkGenesis runs the genesis job on a built-in network.
func runNetworkGenesis(c *cli.Context, n network) error {
	in := genesisInput{
		genesis:   n.genesis(),
		source:    n.name + " genesis, go-ethereum's built-in allocation",
		network:   n.name,
		blockHash: &n.blockHash,
		stateRoot: n.stateRoot,
	}
	return runGenesis(c, in)
}

// genesisInput is a genesis to compute, with the known values to check.
type genesisInput struct {
	genesis   *core.Genesis
	source    string // what it is, for people
	network   string // the built-in network, if any
	file      string // the file it came from, if any
	blockHash *common.Hash
	stateRoot *common.Hash
}

// genesisResult is the result of the genesis job.
type genesisResult struct {
	Command      string         `json:"command"`
	Network      string         `json:"network,omitempty"`
	File         string         `json:"file,omitempty"`
	Accounts     int            `json:"accounts"`
	StorageSlots int            `json:"storageSlots"`
	CodeBytes    int            `json:"codeBytes"`
	StateRoot    common.Hash    `json:"stateRoot"`
	BlockHash    common.Hash    `json:"blockHash"`
	Checks       []genesisCheck `json:"checks"`
	KeccakRoot   *sideTiming    `json:"keccakroot,omitempty"`
	GoEthereum   *sideTiming    `json:"goEthereum,omitempty"`
	Speedup      float64        `json:"speedup,omitempty"`
	Backend      string         `json:"backend"`
	Workers      int            `json:"workers"`
	Runs         int            `json:"runs"`
	Note         string         `json:"note,omitempty"`
	OK           bool           `json:"ok"`
	Error        string         `json:"error,omitempty"`

	source string
}

// genesisCheck is one comparison of a computed value with a reference.
type genesisCheck struct {
	What    string      `json:"what"`
	Against string      `json:"against"`
	Want    common.Hash `json:"want"`
	Got     common.Hash `json:"got"`
	OK      bool        `json:"ok"`
}

// sideTiming is the time one implementation took, the fastest of the runs.
type sideTiming struct {
	Seconds seconds `json:"seconds"`
	Method  string  `json:"method"`
}

// runGenesis computes, checks, times and reports a genesis.
func runGenesis(c *cli.Context, in genesisInput) error {
	runs := c.Int("runs")
	if runs < 1 {
		return usageErrorf("--runs %d: want at least 1", runs)
	}
	if err := setWorkers(c.Int("workers")); err != nil {
		return err
	}
	g := in.genesis
	if err := checkGenesis(g); err != nil {
		return inputError(fmt.Errorf("%s: %w", in.source, err))
	}
	res := &genesisResult{
		Command: "genesis",
		Network: in.network,
		File:    in.file,
		Backend: fastkeccak.Backend(),
		Workers: runtime.GOMAXPROCS(0),
		Runs:    runs,
		source:  in.source,
	}
	for _, a := range g.Alloc {
		res.Accounts++
		res.StorageSlots += len(a.Storage)
		res.CodeBytes += len(a.Code)
	}

	// A binary-trie genesis is computed by go-ethereum alone: keccakroot
	// builds Merkle-Patricia tries, and adapter.GenesisBlockHash hands a
	// binary-trie genesis to go-ethereum's ToBlock. Timing that beside itself
	// would print a speed-up for identical work, so it is timed once, as
	// go-ethereum's, and compared with nothing but the known values.
	if g.Config.IsUBTGenesis() {
		res.Note = "binary-trie (UBT) genesis: computed by go-ethereum's genesis.ToBlock(); keccakroot does not build binary tries, so only go-ethereum's time is shown"
		m, err := measure(runs, 0, func() error {
			var err error
			res.StateRoot, res.BlockHash, err = gethGenesis(g)
			return err
		})
		if err != nil {
			return inputError(fmt.Errorf("%s: %w", in.source, err))
		}
		res.GoEthereum = &sideTiming{Seconds: seconds(m.perCall), Method: "genesis.ToBlock()"}
		res.Checks = knownChecks(in, res)
		return finishGenesis(c, in, res)
	}

	// keccakroot: the state root, then the header built as ToBlock builds
	// it, hashed; with --geth, go-ethereum's ToBlock taking turns with it.
	sides := []func() error{func() error {
		var err error
		res.StateRoot, res.BlockHash, err = keccakrootGenesis(g)
		return err
	}}
	var gethRoot, gethHash common.Hash
	if c.Bool("geth") {
		sides = append(sides, func() error {
			var err error
			gethRoot, gethHash, err = gethGenesis(g)
			return err
		})
	}
	ms, err := measureTurns(runs, 0, sides...)
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", in.source, err))
	}
	res.KeccakRoot = &sideTiming{Seconds: seconds(ms[0].perCall), Method: "adapter.GenesisStateRoot + GenesisHeader + HeaderHash"}
	res.Checks = knownChecks(in, res)
	if len(ms) > 1 { // go-ethereum's side, with --geth
		res.GoEthereum = &sideTiming{Seconds: seconds(ms[1].perCall), Method: "genesis.ToBlock()"}
		res.Speedup = round(ratio(float64(res.GoEthereum.Seconds), float64(res.KeccakRoot.Seconds)), 2)
		res.Checks = append(res.Checks,
			newCheck("state root", "go-ethereum's genesis.ToBlock().Root()", gethRoot, res.StateRoot),
			newCheck("block hash", "go-ethereum's genesis.ToBlock().Hash()", gethHash, res.BlockHash))
	}
	return finishGenesis(c, in, res)
}

// knownChecks compares the result with the known values of a built-in
// network.
func knownChecks(in genesisInput, res *genesisResult) []genesisCheck {
	var checks []genesisCheck
	if in.stateRoot != nil {
		checks = append(checks, newCheck("state root", "the known "+in.network+" state root", *in.stateRoot, res.StateRoot))
	}
	if in.blockHash != nil {
		checks = append(checks, newCheck("block hash", "params."+exportedName(in.network)+"GenesisHash", *in.blockHash, res.BlockHash))
	}
	return checks
}

// finishGenesis sets the outcome of the checks and reports the result.
func finishGenesis(c *cli.Context, in genesisInput, res *genesisResult) error {
	res.OK = true
	var failed []string
	for _, ch := range res.Checks {
		if !ch.OK {
			res.OK = false
			failed = append(failed, fmt.Sprintf("%s %s differs from %s %s", ch.What, ch.Got.Hex(), ch.Against, ch.Want.Hex()))
		}
	}
	var err error
	if !res.OK {
		err = mismatchErrorf("%s: %s", in.source, strings.Join(failed, "; "))
		res.Error = err.Error()
	}
	return report(c, res, err)
}

// newCheck compares got with want.
func newCheck(what, against string, want, got common.Hash) genesisCheck {
	return genesisCheck{What: what, Against: against, Want: want, Got: got, OK: want == got}
}

// exportedName capitalises a network name as go-ethereum's constants do.
func exportedName(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// setWorkers applies --workers: the adapter's genesis functions, like every
// triehash function called without Options, build on GOMAXPROCS goroutines.
func setWorkers(n int) error {
	if n < 0 {
		return usageErrorf("--workers %d: want 0 (all cores) or more", n)
	}
	if n > 0 {
		runtime.GOMAXPROCS(n)
	}
	return nil
}

// checkGenesis rejects what go-ethereum's ToBlock would panic on.
func checkGenesis(g *core.Genesis) error {
	if g.Config == nil {
		return errors.New(`no "config" object: go-ethereum needs the chain configuration to build the genesis block`)
	}
	addrs := make([]common.Address, 0)
	for addr, a := range g.Alloc {
		if a.Balance != nil && a.Balance.BitLen() > 256 {
			addrs = append(addrs, addr)
		}
	}
	if len(addrs) > 0 {
		slices.SortFunc(addrs, func(a, b common.Address) int { return a.Cmp(b) })
		return fmt.Errorf("alloc[%s]: balance does not fit in 256 bits", addrs[0].Hex())
	}
	return nil
}

// keccakrootGenesis computes the state root and block hash of a
// Merkle-Patricia genesis with keccakroot.
func keccakrootGenesis(g *core.Genesis) (root, hash common.Hash, err error) {
	defer recoverAsError("keccakroot", &err)
	root = adapter.GenesisStateRoot(g.Alloc)
	return root, adapter.HeaderHash(adapter.GenesisHeader(g, root)), nil
}

// gethGenesis computes the state root and block hash with go-ethereum.
func gethGenesis(g *core.Genesis) (root, hash common.Hash, err error) {
	defer recoverAsError("go-ethereum", &err)
	b := g.ToBlock()
	return b.Root(), b.Hash(), nil
}

// recoverAsError turns a panic into *err, for computations that panic on
// input they cannot handle.
func recoverAsError(who string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s cannot build this genesis: %v", who, r)
	}
}

// loadGenesis reads a genesis JSON file. Errors name the file and, for
// invalid JSON, the line and column.
func loadGenesis(path string) (*core.Genesis, error) {
	data, err := os.ReadFile(path) // #nosec G304 -- the user names the file to read
	if err != nil {
		return nil, inputError(err)
	}
	g, err := decodeGenesis(data)
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: %w", path, err))
	}
	return g, nil
}

// decodeGenesis decodes genesis JSON as geth init does: what follows the
// JSON object is ignored. A value that go-ethereum cannot decode is named by
// its line, column and member (and account, in the allocation), any other
// syntax or type error by its line and column.
func decodeGenesis(data []byte) (*core.Genesis, error) {
	g := new(core.Genesis)
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(g); err != nil {
		if fault, ok := findGenesisFault(data); ok {
			return nil, fault.describe(data)
		}
		return nil, jsonErrorWhere(data, err)
	}
	return g, nil
}

// jsonErrorWhere adds the line and column to a JSON syntax or type error.
func jsonErrorWhere(data []byte, err error) error {
	off, ok := jsonErrorOffset(err)
	if !ok {
		return fmt.Errorf("invalid genesis JSON: %w", err)
	}
	return fmt.Errorf("%s: invalid genesis JSON: %w", jsonWhere(data, off), err)
}

// jsonErrorOffset returns the input offset a JSON syntax or type error
// carries, and false for any other error.
func jsonErrorOffset(err error) (int64, bool) {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return syntax.Offset, true
	case errors.As(err, &typ):
		return typ.Offset, true
	}
	return 0, false
}

// jsonWhere places an offset of the input as a line and column.
func jsonWhere(data []byte, off int64) string {
	line, col := lineCol(data, off)
	return fmt.Sprintf("line %d, column %d", line, col)
}

// lineCol returns the 1-based line and column of byte offset off in data.
func lineCol(data []byte, off int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < off && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// writeText prints the genesis result for people.
func (r *genesisResult) writeText(w io.Writer) {
	fmt.Fprintf(w, "%s: %s accounts, %s storage slots, %s of code\n",
		r.source, formatCount(int64(r.Accounts)), formatCount(int64(r.StorageSlots)), formatBytes(int64(r.CodeBytes)))
	fmt.Fprintf(w, "  state root  %s\n", r.StateRoot.Hex())
	fmt.Fprintf(w, "  block hash  %s\n", r.BlockHash.Hex())
	if r.Note != "" {
		fmt.Fprintf(w, "  note: %s\n", r.Note)
	}
	if len(r.Checks) > 0 {
		fmt.Fprintln(w, "checks")
		for _, ch := range r.Checks {
			fmt.Fprintf(w, "  %-10s = %-40s %s\n", ch.What, ch.Against, okWord(ch.OK))
		}
	}
	runs := "1 run"
	switch {
	case r.Runs > 1 && r.KeccakRoot != nil && r.GoEthereum != nil:
		runs = fmt.Sprintf("fastest of %d runs each, taking turns", r.Runs)
	case r.Runs > 1:
		runs = fmt.Sprintf("fastest of %d runs", r.Runs)
	}
	fmt.Fprintf(w, "time (%s, %s, keccak backend %s)\n", runs, plural(r.Workers, "core"), r.Backend)
	if r.KeccakRoot != nil {
		fmt.Fprintf(w, "  keccakroot   %10s  %s\n", formatDuration(time.Duration(r.KeccakRoot.Seconds)), r.KeccakRoot.Method)
	}
	if r.GoEthereum != nil {
		fmt.Fprintf(w, "  go-ethereum  %10s  %s\n", formatDuration(time.Duration(r.GoEthereum.Seconds)), r.GoEthereum.Method)
	}
	if r.KeccakRoot != nil && r.GoEthereum != nil {
		fmt.Fprintf(w, "  speed-up     %9.1fx  go-ethereum's time over keccakroot's\n", r.Speedup)
	}
	switch {
	case !r.OK:
	case len(r.Checks) == 0 && r.KeccakRoot == nil:
		fmt.Fprintln(w, "nothing was checked: a genesis file has no known values to compare with, and go-ethereum's is the only computation")
	case len(r.Checks) == 0:
		fmt.Fprintln(w, "nothing was checked: a genesis file has no known values to compare with, and --geth=false skipped go-ethereum")
	default:
		fmt.Fprintf(w, "all checks passed (%s)\n", plural(len(r.Checks), "check"))
	}
}

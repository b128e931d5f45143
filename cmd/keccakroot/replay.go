package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/urfave/cli/v2"

	"github.com/keccakroot/keccakroot/adapter"
)

// replayCommand is the replay command.
func replayCommand() *cli.Command {
	return &cli.Command{
		Name:  "replay",
		Usage: "execute an exported chain block by block with go-ethereum's EVM on keccakroot's state database",
		UsageText: `keccakroot replay [flags] --genesis FILE.json CHAIN
   keccakroot replay [flags] --network NAME CHAIN

Examples:
   keccakroot replay --genesis devnet.json chain.rlp.gz
   keccakroot replay --network mainnet --geth --datadir /tmp/replay chain.rlp
   zcat chain.rlp.gz | keccakroot replay --json --genesis devnet.json -`,
		Description: `Streams CHAIN (as 'geth export' writes it: blocks' RLP concatenated, an
Amsterdam block's access list as a fifth item; gzip is detected by its magic bytes;
- reads standard input) and checks each block as go-ethereum's import does before
executing it: its header against its parent's with go-ethereum's consensus engine
(number, time, gas limit, base fee, the fork's fields), its uncles against its
ancestors, its body against its header (transactions, uncles, withdrawals, blobs,
an attached block access list's hash).
Then executes it with go-ethereum's StateProcessor on a StateDB over
adapter.NewStateDatabase, the trie prefetcher on, validates it as go-ethereum's
block validator does (gas used, bloom, receipts root, requests, block access list,
state root) and commits it into a path-scheme trie database, in memory or, with
--datadir, in go-ethereum's pebble store under DIR. A genesis block at the start of
the file is checked against the genesis and skipped. Not checked: proof-of-work
seals.

--geth executes every block on go-ethereum's own state database too and prints both
times side by side; a state root that differs between them fails the block.

--node-cache MB gives keccakroot's tries a node cache (adapter.NewStateDatabaseWithNodeCache):
past the first 128 blocks, go-ethereum's path-scheme reader looks for every trie node in
the 128 diff layers it keeps; the cache answers for the nodes the last blocks
committed at once, and a node it lacks is read from the store by its path first.
It pays most when it holds about what the layers hold.

Prints the time split into execution, state hash (validation, which hashes the
state last) and commit; progress as verify-chain shows it.

Exit codes: 0 every block executed and matched; 1 a block failed a check (named by
number, hash and position in the file, with the reason; for a state root, both
roots); 2 bad usage, or a genesis or chain file that cannot be read or parsed.`,
		Flags: append([]cli.Flag{
			jsonFlag(),
			&cli.StringFlag{Name: "genesis", Usage: "the chain's genesis, a go-ethereum genesis JSON `FILE`"},
			&cli.StringFlag{Name: "network", Usage: "a built-in network's genesis instead: " + strings.Join(networkNames(), ", ")},
			&cli.BoolFlag{Name: "geth", Usage: "also execute on go-ethereum's own state database, compare and time it"},
			&cli.StringFlag{Name: "datadir", Usage: "keep the state in go-ethereum's pebble store under `DIR` (a new directory), not in memory"},
			&cli.IntFlag{Name: "node-cache", Usage: "keep the trie nodes keccakroot's tries commit and read in a cache of `MB` MiB (adapter.NewStateDatabaseWithNodeCache), which answers before the path scheme's 128 diff layers; 0 for none"},
		}, chainReadingFlags("replaying")...),
		Action: replayAction,
	}
}

// replayResult is the result of replay.
type replayResult struct {
	Command      string       `json:"command"`
	File         string       `json:"file"`
	Gzip         bool         `json:"gzip"`
	Genesis      common.Hash  `json:"genesis"`
	Blocks       int          `json:"blocks"`
	FirstBlock   *uint64      `json:"firstBlock,omitempty"`
	LastBlock    *uint64      `json:"lastBlock,omitempty"`
	LastHash     *common.Hash `json:"lastHash,omitempty"`
	StateRoot    *common.Hash `json:"stateRoot,omitempty"`
	Transactions int64        `json:"transactions"`
	Seconds      seconds      `json:"seconds"`
	// Keccakroot and Geth split each side's time; Geth only with --geth.
	Keccakroot replayTimes  `json:"keccakroot"`
	Geth       *replayTimes `json:"geth,omitempty"`
	OK         bool         `json:"ok"`
	BadBlock   *replayBad   `json:"badBlock,omitempty"`
	Error      string       `json:"error,omitempty"`
}

// replayBad names the first block that failed.
type replayBad struct {
	Position int         `json:"position"` // in the file, from 1
	Offset   int64       `json:"offset"`   // first byte in the (decompressed) stream
	Number   uint64      `json:"number"`
	Hash     common.Hash `json:"hash"`
	// Side is "keccakroot" or "go-ethereum" for a block one side refused,
	// "chain" for one that fails a check before execution (its link to the
	// block before, its header, its body) or that every side refused.
	Side   string       `json:"side"`
	Reason string       `json:"reason"`
	Header *common.Hash `json:"headerStateRoot,omitempty"`
	// Roots are the state roots the sides computed, by side.
	Roots map[string]common.Hash `json:"stateRoots,omitempty"`
}

// replayAction runs replay.
func replayAction(c *cli.Context) error {
	if err := checkArgs(c, 1, 1); err != nil {
		return err
	}
	genesis, err := flagGenesis(c)
	if err != nil {
		return err
	}
	if err := checkGenesis(genesis); err != nil {
		return err
	}
	in, err := openChain(c)
	if err != nil {
		return err
	}
	defer in.close()
	datadir := c.String("datadir")
	if datadir != "" {
		if err := os.Mkdir(datadir, 0o750); err != nil {
			return usageErrorf("--datadir: %v (give a new directory)", err)
		}
	}
	cacheMB := c.Int("node-cache")
	if cacheMB < 0 || cacheMB > 1<<20 {
		return usageErrorf("--node-cache: %d MiB (give 0 to %d)", cacheMB, 1<<20)
	}
	r, err := newReplayer(genesis, c.Bool("geth"), datadir, cacheMB)
	if err != nil {
		return err
	}
	defer r.close()
	res := &replayResult{Command: "replay", File: in.name, Gzip: in.gzip, Genesis: r.headHash}
	prog := in.progress(c)
	start := time.Now()
	err = replayBlocks(r, in.blocks, res, prog, in.counter)
	prog.finish()
	res.Seconds = seconds(time.Since(start))
	res.Keccakroot = r.sides[0].times
	if len(r.sides) > 1 {
		res.Geth = &r.sides[1].times
	}
	if err == nil && res.Blocks == 0 {
		err = inputError(errors.New("the file holds no blocks after the genesis"))
	}
	if err != nil {
		err = withPath(in.name, err)
		res.Error = err.Error()
	}
	res.OK = err == nil
	return report(c, res, err)
}

// flagGenesis returns the genesis of --genesis or --network, one of
// which the command needs.
func flagGenesis(c *cli.Context) (*core.Genesis, error) {
	file, name := c.String("genesis"), c.String("network")
	switch {
	case file != "" && name != "":
		return nil, usageErrorf("%s: give --genesis or --network, not both", c.Command.Name)
	case file != "":
		g, err := loadGenesis(file)
		if err != nil {
			return nil, err
		}
		if g.Config == nil {
			return nil, inputError(fmt.Errorf("%s: the genesis has no chain config", file))
		}
		return g, nil
	case name != "":
		n, ok := findNetwork(name)
		if !ok {
			return nil, usageErrorf("%s: unknown --network %q (want one of %s)", c.Command.Name, name, strings.Join(networkNames(), ", "))
		}
		return n.genesis(), nil
	}
	return nil, usageErrorf("%s: the chain's genesis is needed: --genesis FILE or --network NAME", c.Command.Name)
}

// replayBlocks reads and executes the blocks of the file in order.
func replayBlocks(r *replayer, br *blockReader, res *replayResult, prog progress, counter *countingReader) error {
	var buf []byte
	var rlpBytes int64
	for {
		index := br.index
		data, offset, err := br.Append(buf[:0])
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return inputError(fmt.Errorf("block %d of the file (at byte %d): %w", index+1, offset, err))
		}
		buf = data
		rlpBytes += int64(len(data))
		block, err := adapter.DecodeExportedBlock(data)
		if err != nil {
			return inputError(fmt.Errorf("block %d of the file (at byte %d): %w", index+1, offset, err))
		}
		if index == 0 && block.NumberU64() == 0 {
			if block.Hash() != r.headHash {
				res.BadBlock = &replayBad{Position: 1, Offset: offset, Hash: block.Hash(), Side: "chain",
					Reason: fmt.Sprintf("the genesis given is %x", r.headHash)}
				return mismatchErrorf("the file's genesis block %x is not the genesis given (%x)", block.Hash(), r.headHash)
			}
			continue
		}
		if err := r.execute(block); err != nil {
			var failure *blockFailure
			if !errors.As(err, &failure) {
				return err
			}
			bad := &replayBad{Position: index + 1, Offset: offset, Number: block.NumberU64(), Hash: block.Hash(),
				Side: failure.side, Reason: failure.reason}
			if root := block.Root(); len(failure.roots) > 0 {
				bad.Header, bad.Roots = &root, failure.roots
			}
			res.BadBlock = bad
			return &exitError{code: exitMismatch, err: fmt.Errorf("block %d (%x), block %d of the file (at byte %d): %w",
				bad.Number, bad.Hash, bad.Position, offset, failure)}
		}
		n, h, root := block.NumberU64(), block.Hash(), block.Root()
		if res.FirstBlock == nil {
			res.FirstBlock = &n
		}
		res.LastBlock, res.LastHash, res.StateRoot = &n, &h, &root
		res.Blocks++
		res.Transactions += int64(len(block.Transactions()))
		prog.update(res.Blocks, n, counter.n.Load(), rlpBytes)
	}
}

// writeText prints the replay's result for people.
func (r *replayResult) writeText(w io.Writer) {
	if r.Blocks > 0 {
		fmt.Fprintf(w, "%s: %s executed and validated (%d to %d), %s\n", r.File, plural(r.Blocks, "block"),
			*r.FirstBlock, *r.LastBlock, plural(int(r.Transactions), "transaction"))
		fmt.Fprintf(w, "head %s, state root %s\n", r.LastHash.Hex(), r.StateRoot.Hex())
	}
	fmt.Fprintf(w, "%-12s %12s %12s %12s %12s\n", "", "execution", "state hash", "commit", "total")
	row := func(name string, t replayTimes) {
		fmt.Fprintf(w, "%-12s %12s %12s %12s %12s\n", name, formatDuration(time.Duration(t.Execution)),
			formatDuration(time.Duration(t.StateHash)), formatDuration(time.Duration(t.Commit)), formatDuration(t.total()))
	}
	row("keccakroot", r.Keccakroot)
	if r.Geth != nil {
		row("go-ethereum", *r.Geth)
		fmt.Fprintf(w, "state hash + commit: keccakroot %.2fx go-ethereum's\n",
			ratio(float64(r.Geth.StateHash+r.Geth.Commit), float64(r.Keccakroot.StateHash+r.Keccakroot.Commit)))
	}
	if b := r.BadBlock; b != nil {
		fmt.Fprintf(w, "FAILED: block %d (%s), block %d of the file: %s: %s\n", b.Number, b.Hash.Hex(), b.Position, b.Side, b.Reason)
		if b.Header != nil {
			fmt.Fprintf(w, "  state root in the header %s\n", b.Header.Hex())
			for side, root := range b.Roots {
				fmt.Fprintf(w, "  computed by %-11s %s\n", side, root.Hex())
			}
		}
	}
	fmt.Fprintf(w, "%s in %s\n", okWord(r.OK), formatDuration(time.Duration(r.Seconds)))
}

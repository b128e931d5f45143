package main

import (
	"github.com/urfave/cli/v2"
)

// defaultAction is the main job, run when no command is given: the mainnet
// genesis state root and block hash from go-ethereum's built-in allocation,
// checked against the known values and timed beside go-ethereum's
// genesis.ToBlock(). It is the genesis command with --network mainnet.
func defaultAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("unknown command %q; commands: genesis, verify-chain, root, bench (see keccakroot --help)", c.Args().First())
	}
	n, _ := findNetwork("mainnet")
	return runNetworkGenesis(c, n)
}

package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// defaultAction is the main job, run when no command is given: the mainnet
// genesis state root and block hash from go-ethereum's built-in allocation,
// checked against the known values and timed beside go-ethereum's
// genesis.ToBlock(). It is the genesis command with --network mainnet.
func defaultAction(c *cli.Context) error {
	if c.NArg() > 0 {
		var names []string
		for _, cmd := range c.App.Commands {
			if !cmd.Hidden && cmd.Name != "help" {
				names = append(names, cmd.Name)
			}
		}
		return usageErrorf("unknown command %q; commands: %s (see keccakroot --help)", c.Args().First(), strings.Join(names, ", "))
	}
	n, _ := findNetwork("mainnet")
	return runNetworkGenesis(c, n)
}

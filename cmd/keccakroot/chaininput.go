package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"
)

// What the commands that stream a chain file (verify-chain, replay) share.

// chainReadingFlags are the flags of the commands that stream a chain
// file: its largest block and the progress shown while doing what.
func chainReadingFlags(doing string) []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "no-progress", Usage: "print no progress while " + doing},
		&cli.DurationFlag{Name: "progress-interval", Value: 5 * time.Second, Usage: "time between progress lines, a `DURATION` such as 10s, when standard error is not a terminal"},
		&cli.IntFlag{Name: "max-block-size", Value: maxBlockSize, Usage: "largest block to read, in `BYTES` of RLP"},
	}
}

// blockSizeLimit returns --max-block-size, which must be positive.
func blockSizeLimit(c *cli.Context) (int, error) {
	limit := c.Int("max-block-size")
	if limit < 1 {
		return 0, usageErrorf("--max-block-size %d: want a positive number of bytes", limit)
	}
	return limit, nil
}

// openInput opens the chain file path of command, or standard input for
// "-", and returns it with the name to report it by, its size (-1 if
// unknown) and how to close it.
func openInput(command, path string) (io.Reader, string, int64, func(), error) {
	if path == "-" {
		return os.Stdin, "standard input", -1, func() {}, nil
	}
	f, err := os.Open(path) // #nosec G304 -- the user names the file to read
	if err != nil {
		return nil, "", 0, nil, inputError(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, "", 0, nil, inputError(err)
	}
	if st.IsDir() {
		f.Close()
		return nil, "", 0, nil, usageErrorf("%s: %s is a directory, not a chain file", command, path)
	}
	return f, path, st.Size(), func() { f.Close() }, nil
}

// chainInput is the chain file of a command, opened for streaming.
type chainInput struct {
	name    string // its path, or "standard input"
	size    int64  // in bytes, -1 if unknown
	gzip    bool
	counter *countingReader // the bytes read from the file
	blocks  *blockReader
	close   func()
}

// openChain opens the chain file the command's argument names, with its
// --max-block-size.
func openChain(c *cli.Context) (*chainInput, error) {
	limit, err := blockSizeLimit(c)
	if err != nil {
		return nil, err
	}
	src, name, size, closeFile, err := openInput(c.Command.Name, c.Args().First())
	if err != nil {
		return nil, err
	}
	counter := &countingReader{r: src}
	stream, gz, err := openChainStream(counter)
	if err != nil {
		closeFile()
		return nil, inputError(fmt.Errorf("%s: %w", name, err))
	}
	return &chainInput{name: name, size: size, gzip: gz, counter: counter, blocks: newBlockReader(stream, limit), close: closeFile}, nil
}

// progress returns the progress display the command's flags ask for.
func (in *chainInput) progress(c *cli.Context) progress {
	quiet := c.Bool("no-progress") || jsonMode(c) && !isTerminal(c.App.ErrWriter)
	return newProgress(c.App.ErrWriter, in.size, c.Duration("progress-interval"), quiet)
}

// readAll reads a whole file, or standard input for "-"; an error is an
// input error (exit code 2).
func readAll(path string) ([]byte, error) {
	var (
		data []byte
		err  error
	)
	if path == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(path) // #nosec G304 -- the user names the file to read
	}
	if err != nil {
		return nil, inputError(err)
	}
	return data, nil
}

package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v2"
)

// Batches that the reader hands to the verifiers: at most this many blocks,
// or about this many bytes, whichever comes first.
const (
	batchBlocks = 256
	batchBytes  = 4 << 20
	batchTime   = 100 * time.Millisecond // so that a slow input still shows progress
)

// verifyChainCommand is the verify-chain command.
func verifyChainCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify-chain",
		Usage: "verify an exported chain (blocks' RLP concatenated, as 'geth export' writes it) block by block",
		UsageText: `keccakroot verify-chain [flags] FILE

Examples:
   geth export chain.rlp.gz && keccakroot verify-chain chain.rlp.gz
   keccakroot verify-chain --json --no-progress chain.rlp
   zcat chain.rlp.gz | keccakroot verify-chain -`,
		Description: `Streams FILE one block at a time (gzip is detected by its magic bytes; - reads
standard input) and checks every block with adapter.VerifyBlockRLP: its RLP and shape,
its transactions root, uncle hash and withdrawals root against its header, and the
hash of its block access list (the fifth item of an Amsterdam block in go-ethereum
v1.17's export) against the header's blockAccessListHash. Each block must also name
the previous one as its parent and carry the next number. What a block proves about
itself and its parent link is checked; the state root and receipts are not (they need
the chain's state).
Prints blocks and MB per second; a progress bar on a terminal, a progress line every
--progress-interval otherwise.

Exit codes: 0 every block verified; 1 a block's roots disagree with its header or the
chain is broken (the first bad block is named by number, hash and reason); 2 bad usage,
or a file that cannot be read, is truncated, is not RLP or holds a malformed block.`,
		Flags: append([]cli.Flag{
			jsonFlag(),
			&cli.IntFlag{Name: "workers", Value: 0, Usage: "goroutines verifying blocks, `N`; 0 means all cores"},
		}, chainReadingFlags("verifying")...),
		Action: verifyChainAction,
	}
}

// chainResult is the result of verify-chain.
type chainResult struct {
	Command      string       `json:"command"`
	File         string       `json:"file"`
	Gzip         bool         `json:"gzip"`
	Blocks       int          `json:"blocks"`
	FirstBlock   *uint64      `json:"firstBlock,omitempty"`
	LastBlock    *uint64      `json:"lastBlock,omitempty"`
	LastHash     *common.Hash `json:"lastHash,omitempty"`
	Transactions int64        `json:"transactions"`
	// AccessLists counts the blocks whose block access list the file
	// carries, each checked against its header; AccessListsAbsent those whose
	// header commits to one that the file does not carry (not checked).
	AccessLists       int       `json:"accessLists"`
	AccessListsAbsent int       `json:"accessListsAbsent"`
	RLPBytes          int64     `json:"rlpBytes"`
	FileBytes         int64     `json:"fileBytes"`
	Seconds           seconds   `json:"seconds"`
	BlocksPerSecond   float64   `json:"blocksPerSecond"`
	MBPerSecond       float64   `json:"mbPerSecond"`
	Workers           int       `json:"workers"`
	OK                bool      `json:"ok"`
	BadBlock          *badBlock `json:"badBlock,omitempty"`
	Error             string    `json:"error,omitempty"`
}

// badBlock names the first block that failed.
type badBlock struct {
	Position int          `json:"position"` // in the file, from 1
	Offset   int64        `json:"offset"`   // first byte in the (decompressed) stream
	Number   *uint64      `json:"number,omitempty"`
	Hash     *common.Hash `json:"hash,omitempty"`
	Kind     string       `json:"kind"` // "mismatch", "link", "malformed" or "read"
	Reason   string       `json:"reason"`
}

// verifyChainAction runs verify-chain.
func verifyChainAction(c *cli.Context) error {
	if err := checkArgs(c, 1, 1); err != nil {
		return err
	}
	workers := c.Int("workers")
	if workers < 0 {
		return usageErrorf("--workers %d: want 0 (all cores) or more", workers)
	}
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	in, err := openChain(c)
	if err != nil {
		return err
	}
	defer in.close()
	path, counter := in.name, in.counter
	res := &chainResult{Command: "verify-chain", File: path, Gzip: in.gzip, Workers: workers}
	prog := in.progress(c)
	v := &chainVerifier{res: res, prog: prog, counter: counter}
	start := time.Now()
	err = v.run(in.blocks, workers)
	prog.finish()
	elapsed := time.Since(start)

	res.FileBytes = counter.n.Load()
	res.Seconds = seconds(elapsed)
	res.BlocksPerSecond = round(ratio(float64(res.Blocks), elapsed.Seconds()), 1)
	res.MBPerSecond = round(ratio(float64(res.RLPBytes)/1e6, elapsed.Seconds()), 2)
	var framing *framingError
	if errors.As(err, &framing) && res.BadBlock == nil {
		// The file stops splitting into blocks (or being readable) here:
		// named as the other failures are.
		kind := "malformed"
		if errors.Is(framing.Err, errRead) {
			kind = "read"
		}
		res.BadBlock = &badBlock{Position: framing.Index + 1, Offset: framing.Offset, Kind: kind,
			Reason: fmt.Sprintf("%v: %s", framing.Err, framing.Detail)}
	}
	if err == nil && res.Blocks == 0 {
		err = inputError(errors.New("the file holds no blocks"))
	}
	if err != nil {
		err = withPath(path, err)
		res.Error = err.Error()
	}
	res.OK = err == nil
	return report(c, res, err)
}

// withPath prefixes an error with the file it is about, keeping its exit
// code.
func withPath(path string, err error) error {
	return &exitError{code: exitCode(err), err: fmt.Errorf("%s: %w", path, err)}
}

// chainVerifier checks the blocks of a chain file in order.
type chainVerifier struct {
	res     *chainResult
	prog    progress
	counter *countingReader

	prev blockInfo // the last verified block
}

// batch is a run of consecutive blocks read from the file, stored back to
// back in one buffer.
type batch struct {
	data  []byte
	items []batchItem
	err   error // what stopped the reader after these blocks; nil if it goes on
	done  bool  // the reader has stopped after this batch
}

// batchItem is one block of a batch: where it is in data and in the stream.
type batchItem struct {
	start, end int
	offset     int64
	index      int
}

// run reads blocks on one goroutine and verifies each batch on workers
// goroutines while the next is being read; the checks that link a block to
// the one before run in file order.
func (v *chainVerifier) run(r *blockReader, workers int) error {
	full := make(chan *batch, 1)
	free := make(chan *batch, 3)
	for range cap(free) {
		free <- new(batch)
	}
	stop := make(chan struct{})
	defer close(stop)
	go readBatches(r, free, full, stop)

	var infos []blockInfo
	for b := range full {
		if cap(infos) < len(b.items) {
			infos = make([]blockInfo, len(b.items))
		}
		infos = infos[:len(b.items)]
		verifyBatch(b, infos, workers)
		for i := range b.items {
			if err := v.accept(&b.items[i], &infos[i], b.data[b.items[i].start:b.items[i].end]); err != nil {
				return err
			}
		}
		v.prog.update(v.res.Blocks, v.prev.Number, v.counter.n.Load(), v.res.RLPBytes)
		err, done := b.err, b.done
		free <- b
		if done {
			return err
		}
	}
	return nil
}

// readBatches fills batches from r until the input ends, fails or stop is
// closed. The last batch it sends has done set.
func readBatches(r *blockReader, free <-chan *batch, full chan<- *batch, stop <-chan struct{}) {
	defer close(full)
	for {
		var b *batch
		select {
		case b = <-free:
		case <-stop:
			return
		}
		b.data, b.items, b.err, b.done = b.data[:0], b.items[:0], nil, false
		started := time.Now()
		for len(b.items) < batchBlocks && len(b.data) < batchBytes && time.Since(started) < batchTime {
			index := r.index
			start := len(b.data)
			data, offset, err := r.Append(b.data)
			if err != nil {
				b.done = true
				if !errors.Is(err, io.EOF) {
					b.err = err
				}
				break
			}
			b.data = data
			b.items = append(b.items, batchItem{start: start, end: len(data), offset: offset, index: index})
		}
		select {
		case full <- b:
		case <-stop:
			return
		}
		if b.done {
			return
		}
	}
}

// verifyBatch inspects the blocks of b on up to workers goroutines.
func verifyBatch(b *batch, infos []blockInfo, workers int) {
	n := len(b.items)
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i, it := range b.items {
			infos[i] = inspectBlock(b.data[it.start:it.end])
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				it := b.items[i]
				infos[i] = inspectBlock(b.data[it.start:it.end])
			}
		})
	}
	wg.Wait()
}

// accept checks one inspected block in file order: its own verification and
// its link to the block before; it returns the failure, if any.
func (v *chainVerifier) accept(it *batchItem, info *blockInfo, raw []byte) error {
	fail := func(kind, reason string) error {
		bad := &badBlock{Position: it.index + 1, Offset: it.offset, Kind: kind, Reason: reason}
		if info.HeaderRead {
			h := info.Hash
			bad.Hash = &h
			if info.numberOK() {
				n := info.Number
				bad.Number = &n
			}
		}
		v.res.BadBlock = bad
		msg := fmt.Errorf("%sblock %d of the file (at byte %d): %s", info.name(), it.index+1, it.offset, reason)
		if kind == "malformed" {
			return inputError(msg)
		}
		return &exitError{code: exitMismatch, err: msg}
	}
	if info.err != nil {
		return fail(failureKind(info.err), describeFailure(info.err, it.offset))
	}
	if !info.numberOK() {
		return fail("malformed", "the header's number does not fit in 64 bits")
	}
	if v.res.Blocks > 0 {
		switch {
		case info.ParentHash != v.prev.Hash:
			return fail("link", fmt.Sprintf("its parentHash %s is not the hash of the block before it, #%d %s",
				info.ParentHash.Hex(), v.prev.Number, v.prev.Hash.Hex()))
		case info.Number != v.prev.Number+1:
			return fail("link", fmt.Sprintf("its number does not follow the block before it, #%d", v.prev.Number))
		}
	} else {
		n := info.Number
		v.res.FirstBlock = &n
	}
	v.prev = *info
	v.res.Blocks++
	v.res.Transactions += int64(info.Transactions)
	v.res.RLPBytes += int64(len(raw))
	switch {
	case info.AccessListChecked:
		v.res.AccessLists++
	case info.HasAccessListHash:
		v.res.AccessListsAbsent++
	}
	last, hash := info.Number, info.Hash
	v.res.LastBlock, v.res.LastHash = &last, &hash
	return nil
}

// writeText prints the verify-chain result for people. A file that fails
// before its first block gets no summary: the error says it all.
func (r *chainResult) writeText(w io.Writer) {
	if !r.OK && r.Blocks == 0 {
		return
	}
	file := r.File
	if r.Gzip {
		file += fmt.Sprintf(" (gzip, %s)", formatBytes(r.FileBytes))
	}
	span := ""
	if r.FirstBlock != nil && r.LastBlock != nil {
		span = fmt.Sprintf(" #%d..#%d", *r.FirstBlock, *r.LastBlock)
	}
	verb := "verified"
	if !r.OK {
		verb = "verified before the failure:"
	}
	fmt.Fprintf(w, "%s: %s %s blocks%s, %s transactions, %s of RLP in %s\n",
		file, verb, formatCount(int64(r.Blocks)), span, formatCount(r.Transactions),
		formatBytes(r.RLPBytes), formatDuration(time.Duration(r.Seconds)))
	fmt.Fprintf(w, "  %s blocks/s, %.1f MB/s, %s\n",
		formatCount(int64(r.BlocksPerSecond)), r.MBPerSecond, plural(r.Workers, "worker"))
	if r.AccessLists > 0 {
		fmt.Fprintf(w, "  %s checked against their headers\n", plural(r.AccessLists, "block access list"))
	}
	if r.AccessListsAbsent > 0 {
		fmt.Fprintf(w, "  %s whose header commits to a block access list that the file does not carry: not checked\n",
			plural(r.AccessListsAbsent, "block"))
	}
	if r.LastHash != nil && r.LastBlock != nil {
		fmt.Fprintf(w, "  last good block #%d %s\n", *r.LastBlock, r.LastHash.Hex())
	}
	if r.BadBlock != nil {
		fmt.Fprintf(w, "  FIRST BAD BLOCK: %s\n", r.BadBlock.Reason)
	}
	if r.OK {
		fmt.Fprintln(w, "all blocks verified, every parent link checked")
	}
}

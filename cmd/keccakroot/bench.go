package main

import (
	"bytes"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"
	"github.com/urfave/cli/v2"

	"github.com/keccakroot/keccakroot/adapter"
	"github.com/keccakroot/keccakroot/fastkeccak"
	"github.com/keccakroot/keccakroot/triehash"
)

// benchCommand is the bench command.
func benchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "measure keccakroot against go-ethereum, side by side, on this machine",
		UsageText: `keccakroot bench [flags]

Examples:
   keccakroot bench
   keccakroot bench --quick --json`,
		Description: `Measures each keccakroot function beside the go-ethereum function it replaces,
on the same input in the same run, the two taking turns in four rounds each of about
a quarter of --benchtime, each side's fastest round reported: Sum256 at a few sizes against
crypto.Keccak256Hash, Sum256Batch against a loop of it, the secure trie root of 10,000
and 100,000 accounts against trie.StackTrie and trie.Trie, the transactions root of 200
transactions against types.DeriveSha, and the mainnet genesis state root against
genesis.ToBlock(). Every result is checked against go-ethereum's.
Names the CPU, the keccak backend and the batch width in use.

--quick measures fewer sizes, only 10,000 accounts and for a short time each.
Exit codes: 0 all results matched go-ethereum's; 1 a result differed; 2 bad usage.`,
		Flags: []cli.Flag{
			jsonFlag(),
			&cli.BoolFlag{Name: "quick", Usage: "a fast run: fewer cases, a short time each"},
			&cli.DurationFlag{Name: "benchtime", Usage: "time to measure each side of a case for (default 1s, or 20ms with --quick)"},
		},
		Action: benchAction,
	}
}

// benchResult is the result of the bench command.
type benchResult struct {
	Command    string     `json:"command"`
	CPU        string     `json:"cpu"`
	Features   string     `json:"cpuFeatures,omitempty"`
	Cores      int        `json:"cores"`
	GOMAXPROCS int        `json:"gomaxprocs"`
	Platform   string     `json:"platform"`
	GoVersion  string     `json:"goVersion"`
	Backend    string     `json:"backend"`
	BatchWidth int        `json:"batchWidth"`
	Quick      bool       `json:"quick"`
	BenchTime  seconds    `json:"benchtimeSeconds"`
	Rows       []benchRow `json:"rows"`
	OK         bool       `json:"ok"`
	Error      string     `json:"error,omitempty"`
}

// benchRow is one comparison: keccakroot and go-ethereum on the same input.
type benchRow struct {
	Name       string    `json:"name"`
	KeccakRoot benchSide `json:"keccakroot"`
	GoEthereum benchSide `json:"goEthereum"`
	Speedup    float64   `json:"speedup"`
	Match      bool      `json:"match"`
}

// benchSide is one implementation's measurement.
type benchSide struct {
	Impl        string  `json:"impl"`
	NsPerOp     float64 `json:"nsPerOp"`
	AllocsPerOp int64   `json:"allocsPerOp"`
	BytesPerOp  int64   `json:"bytesPerOp"`
	MBPerSecond float64 `json:"mbPerSecond,omitempty"`
	N           int     `json:"n"`
}

// benchCase is a comparison to measure: the two functions, each one
// operation, and the result of each, computed once, to check that they
// agree.
type benchCase struct {
	name         string
	bytes        int64 // bytes hashed per operation, for MB/s; 0 for none
	kImpl, gImpl string
	k, g         func()
	kSum, gSum   func() common.Hash
}

// benchRounds is the number of rounds each side of a case is timed in.
const benchRounds = 4

// benchAction runs the bench command.
func benchAction(c *cli.Context) error {
	if err := checkArgs(c, 0, 0); err != nil {
		return err
	}
	quick := c.Bool("quick")
	benchtime := c.Duration("benchtime")
	if benchtime == 0 {
		benchtime = time.Second
		if quick {
			benchtime = 20 * time.Millisecond
		}
	}
	if benchtime < 0 {
		return usageErrorf("--benchtime %v: want a positive duration", benchtime)
	}
	cpuName, features := cpuInfo()
	res := &benchResult{
		Command:    "bench",
		CPU:        cpuName,
		Features:   features,
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		Platform:   runtime.GOOS + "/" + runtime.GOARCH,
		GoVersion:  runtime.Version(),
		Backend:    fastkeccak.Backend(),
		BatchWidth: fastkeccak.BatchWidth(),
		Quick:      quick,
		BenchTime:  seconds(benchtime),
		OK:         true,
	}
	cases, err := benchCases(quick)
	if err != nil {
		return err
	}
	var failed []string
	for _, bc := range cases {
		row := measureCase(bc, benchtime/benchRounds)
		res.Rows = append(res.Rows, row)
		if !row.Match {
			res.OK = false
			failed = append(failed, bc.name)
		}
	}
	if !res.OK {
		err = mismatchErrorf("bench: keccakroot's result differs from go-ethereum's in: %v", failed)
		res.Error = err.Error()
	}
	return report(c, res, err)
}

// measureCase times both sides of a case taking turns, each in benchRounds
// rounds of at least roundTime, and checks their results.
func measureCase(bc benchCase, roundTime time.Duration) benchRow {
	row := benchRow{Name: bc.name, Match: bc.kSum() == bc.gSum()}
	ms, _ := measureTurns(benchRounds, roundTime, // the calls cannot fail
		func() error { bc.k(); return nil },
		func() error { bc.g(); return nil })
	row.KeccakRoot = benchSideOf(bc.kImpl, bc.bytes, ms[0])
	row.GoEthereum = benchSideOf(bc.gImpl, bc.bytes, ms[1])
	row.Speedup = round(ratio(row.GoEthereum.NsPerOp, row.KeccakRoot.NsPerOp), 2)
	return row
}

// benchSideOf is one side of a case as measured; n is the bytes it hashes
// per operation, for MB/s.
func benchSideOf(impl string, n int64, m measurement) benchSide {
	s := benchSide{Impl: impl, N: m.calls, AllocsPerOp: int64(m.allocsPerOp), BytesPerOp: int64(m.bytesPerOp),
		NsPerOp: round(float64(m.perCall.Nanoseconds()), 1)}
	if n > 0 && s.NsPerOp > 0 {
		s.MBPerSecond = round(float64(n)/s.NsPerOp*1e3, 1)
	}
	return s
}

// benchCases builds the comparisons and their inputs.
func benchCases(quick bool) ([]benchCase, error) {
	var cases []benchCase
	sizes := []int{32, 256, 1024, 16 << 10}
	if quick {
		sizes = []int{32, 1024}
	}
	rng := rand.New(rand.NewPCG(1, 2)) // #nosec G404 -- benchmark inputs, not secrets
	for _, n := range sizes {
		msg := make([]byte, n)
		fillRandom(rng, msg)
		cases = append(cases, benchCase{
			name:  "Sum256, " + formatCount(int64(n)) + " B",
			bytes: int64(n),
			kImpl: "fastkeccak.Sum256",
			gImpl: "crypto.Keccak256Hash",
			k:     func() { runtime.KeepAlive(fastkeccak.Sum256(msg)) },
			g:     func() { runtime.KeepAlive(crypto.Keccak256Hash(msg)) },
			kSum:  func() common.Hash { return fastkeccak.Sum256(msg) },
			gSum:  func() common.Hash { return crypto.Keccak256Hash(msg) },
		})
	}
	cases = append(cases, batchCase(rng))

	counts := []int{10_000, 100_000}
	if quick {
		counts = counts[:1]
	}
	for _, n := range counts {
		cases = append(cases, stateRootCases(rng, n)...)
	}
	sortedN := 1_000_000
	if quick {
		sortedN = 100_000
	}
	cases = append(cases, sortedBuildCases(rng, sortedN)...)
	txCase, err := deriveShaCase()
	if err != nil {
		return nil, err
	}
	cases = append(cases, txCase, genesisCase())
	return cases, nil
}

// batchCase hashes 1,024 messages of 32 bytes (the keys of a secure trie) at
// once, against hashing them one by one with go-ethereum.
func batchCase(rng *rand.Rand) benchCase {
	const count, size = 1024, 32
	msgs := make([][]byte, count)
	for i := range msgs {
		msgs[i] = make([]byte, size)
		fillRandom(rng, msgs[i])
	}
	out := make([][32]byte, count)
	outG := make([]common.Hash, count)
	digestOf := func(sums [][32]byte) common.Hash {
		var h fastkeccak.Hasher
		for i := range sums {
			h.Write(sums[i][:])
		}
		return h.Sum256()
	}
	return benchCase{
		name:  "Sum256Batch, 1,024 x 32 B",
		bytes: count * size,
		kImpl: "fastkeccak.Sum256Batch",
		gImpl: "crypto.Keccak256Hash loop",
		k:     func() { fastkeccak.Sum256Batch(out, msgs) },
		g: func() {
			for i, m := range msgs {
				outG[i] = crypto.Keccak256Hash(m)
			}
		},
		kSum: func() common.Hash {
			fastkeccak.Sum256Batch(out, msgs)
			return digestOf(out)
		},
		gSum: func() common.Hash {
			sums := make([][32]byte, count)
			for i, m := range msgs {
				sums[i] = crypto.Keccak256Hash(m)
			}
			return digestOf(sums)
		},
	}
}

// stateRootCases compares the state root of n random accounts: keccakroot's
// triehash.StateRoot against go-ethereum's StackTrie (keys hashed and
// sorted, accounts RLP-encoded) and its trie.Trie (a StateTrie in memory).
func stateRootCases(rng *rand.Rand, n int) []benchCase {
	addrs := make([]common.Address, n)
	addrKeys := make([][20]byte, n)
	accounts := make([]triehash.Account, n)
	gethAccounts := make([]types.StateAccount, n)
	for i := range n {
		fillRandom(rng, addrs[i][:])
		addrKeys[i] = addrs[i]
		var bal uint256.Int
		bal.SetUint64(rng.Uint64())
		acc := triehash.Account{Nonce: rng.Uint64N(1000), Balance: bal, StorageRoot: triehash.EmptyRoot, CodeHash: triehash.EmptyCodeHash}
		if i%10 == 0 { // a contract now and then
			fillRandom(rng, acc.StorageRoot[:])
			fillRandom(rng, acc.CodeHash[:])
		}
		accounts[i] = acc
		gethAccounts[i] = types.StateAccount{Nonce: acc.Nonce, Balance: new(uint256.Int).Set(&bal), Root: acc.StorageRoot, CodeHash: bytes.Clone(acc.CodeHash[:])}
	}
	keccak := func() common.Hash {
		root, err := triehash.StateRoot(addrKeys, accounts)
		if err != nil {
			panic(err) // distinct random addresses: cannot happen
		}
		return root
	}
	stack := func() common.Hash {
		type kv struct{ k, v []byte }
		kvs := make([]kv, n)
		for i := range n {
			v, err := rlp.EncodeToBytes(&gethAccounts[i])
			if err != nil {
				panic(err)
			}
			kvs[i] = kv{crypto.Keccak256(addrs[i][:]), v}
		}
		slices.SortFunc(kvs, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
		st := trie.NewStackTrie(nil)
		for _, p := range kvs {
			if err := st.Update(p.k, p.v); err != nil {
				panic(err)
			}
		}
		return st.Hash()
	}
	full := func() common.Hash {
		tr, err := trie.NewStateTrie(trie.StateTrieID(types.EmptyRootHash), triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil))
		if err != nil {
			panic(err)
		}
		for i := range n {
			if err := tr.UpdateAccount(addrs[i], &gethAccounts[i], 0); err != nil {
				panic(err)
			}
		}
		return tr.Hash()
	}
	name := fmt.Sprintf("state root, %s accounts", formatCount(int64(n)))
	return []benchCase{
		{name: name, kImpl: "triehash.StateRoot", gImpl: "trie.StackTrie (hash, sort, insert)",
			k: op(keccak), g: op(stack), kSum: keccak, gSum: stack},
		{name: name, kImpl: "triehash.StateRoot", gImpl: "trie.StateTrie (in memory)",
			k: op(keccak), g: op(full), kSum: keccak, gSum: full},
	}
}

// sortedBuildCases compares the root of n sorted 32-byte keys with
// 80-byte values, built by triehash.Builder.UpdateBatch and by go-ethereum's
// StackTrie, in the two layouts a caller's keys come in: one buffer in
// order, and each key and value an allocation of its own, made in random
// order (decoded one by one, or a map's entries sorted), where the builder
// reads ahead of the caller.
func sortedBuildCases(rng *rand.Rand, n int) []benchCase {
	contiguous := make([]byte, n*(32+80))
	fillRandom(rng, contiguous)
	keys, values := make([][]byte, n), make([][]byte, n)
	for i := range n {
		keys[i], values[i] = contiguous[i*112:i*112+32:i*112+32], contiguous[i*112+32:i*112+112:i*112+112]
	}
	slices.SortFunc(keys, bytes.Compare) // the keys only: they move among the buffer's slots
	scatteredKeys, scatteredValues := make([][]byte, n), make([][]byte, n)
	for _, i := range rng.Perm(n) {
		scatteredKeys[i], scatteredValues[i] = bytes.Clone(keys[i]), bytes.Clone(values[i])
	}
	builder := triehash.NewBuilder(nil)
	var cases []benchCase
	for _, layout := range []struct {
		name         string
		keys, values [][]byte
	}{{"one buffer", keys, values}, {"scattered", scatteredKeys, scatteredValues}} {
		keccak := func() common.Hash {
			builder.Reset()
			if err := builder.UpdateBatch(layout.keys, layout.values); err != nil {
				panic(err) // sorted random keys: cannot happen
			}
			return builder.Hash()
		}
		stack := func() common.Hash {
			st := trie.NewStackTrie(nil)
			for i := range layout.keys {
				if err := st.Update(layout.keys[i], layout.values[i]); err != nil {
					panic(err)
				}
			}
			return st.Hash()
		}
		cases = append(cases, benchCase{
			name:  fmt.Sprintf("sorted trie, %s keys, %s", formatCount(int64(n)), layout.name),
			kImpl: "triehash.Builder.UpdateBatch", gImpl: "trie.StackTrie",
			k: op(keccak), g: op(stack), kSum: keccak, gSum: stack,
		})
	}
	return cases
}

// deriveShaCase compares the transactions root of 200 signed dynamic-fee
// transactions.
func deriveShaCase() (benchCase, error) {
	key, err := crypto.ToECDSA(common.LeftPadBytes([]byte{0x4b, 0x01}, 32))
	if err != nil {
		return benchCase{}, err
	}
	signer := types.LatestSignerForChainID(params.MainnetChainConfig.ChainID)
	to := common.Address{0xee}
	txs := make(types.Transactions, 200)
	for i := range txs {
		txs[i], err = types.SignNewTx(key, signer, &types.DynamicFeeTx{
			ChainID: params.MainnetChainConfig.ChainID, Nonce: uint64(i), GasTipCap: big.NewInt(params.GWei),
			GasFeeCap: big.NewInt(30 * params.GWei), Gas: 21000 + uint64(i), To: &to, Value: big.NewInt(int64(i)),
			Data: bytes.Repeat([]byte{byte(i)}, i%64),
		})
		if err != nil {
			return benchCase{}, err
		}
	}
	kSum := func() common.Hash { return adapter.DeriveSha(txs) }
	gSum := func() common.Hash { return types.DeriveSha(txs, trie.NewStackTrie(nil)) }
	return benchCase{
		name:  "DeriveSha, 200 transactions",
		kImpl: "adapter.DeriveSha",
		gImpl: "types.DeriveSha + trie.StackTrie",
		k:     op(kSum),
		g:     op(gSum),
		kSum:  kSum, gSum: gSum,
	}, nil
}

// genesisCase compares the mainnet genesis state root.
func genesisCase() benchCase {
	g := core.DefaultGenesisBlock()
	kSum := func() common.Hash { return adapter.GenesisStateRoot(g.Alloc) }
	gSum := func() common.Hash { return g.ToBlock().Root() }
	return benchCase{
		name:  fmt.Sprintf("mainnet genesis state root, %s accounts", formatCount(int64(len(g.Alloc)))),
		kImpl: "adapter.GenesisStateRoot",
		gImpl: "genesis.ToBlock().Root()",
		k:     op(kSum),
		g:     op(gSum),
		kSum:  kSum, gSum: gSum,
	}
}

// op returns an operation that computes f's result and keeps it alive, so
// that the compiler cannot drop the call.
func op(f func() common.Hash) func() {
	return func() { runtime.KeepAlive(f()) }
}

// fillRandom fills p from rng.
func fillRandom(rng *rand.Rand, p []byte) {
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
}

// writeText prints the bench result as a table.
func (r *benchResult) writeText(w io.Writer) {
	fmt.Fprintf(w, "CPU: %s, %d cores (GOMAXPROCS %d), %s, %s\n", r.CPU, r.Cores, r.GOMAXPROCS, r.Platform, r.GoVersion)
	if r.Features != "" {
		fmt.Fprintf(w, "CPU features: %s\n", r.Features)
	}
	fmt.Fprintf(w, "fastkeccak backend %s, batch width %d; the sides taking turns, each the fastest of %d rounds of at least %s\n\n",
		r.Backend, r.BatchWidth, benchRounds, formatDuration(time.Duration(r.BenchTime)/benchRounds))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tkeccakroot\tallocs/op\tgo-ethereum\tallocs/op\tspeed-up\tsame\tkeccakroot vs go-ethereum")
	for _, row := range r.Rows {
		match := "yes"
		if !row.Match {
			match = "NO"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%.1fx\t%s\t%s vs %s\n", row.Name,
			sideTime(row.KeccakRoot), row.KeccakRoot.AllocsPerOp,
			sideTime(row.GoEthereum), row.GoEthereum.AllocsPerOp,
			row.Speedup, match, row.KeccakRoot.Impl, row.GoEthereum.Impl)
	}
	_ = tw.Flush()
	if r.OK {
		fmt.Fprintln(w, "\nevery result matched go-ethereum's")
	}
}

// sideTime prints a side's time per operation, with its throughput when it
// hashes bytes.
func sideTime(s benchSide) string {
	t := formatNanos(s.NsPerOp)
	if s.MBPerSecond > 0 {
		t += fmt.Sprintf(" (%.0f MB/s)", s.MBPerSecond)
	}
	return t
}

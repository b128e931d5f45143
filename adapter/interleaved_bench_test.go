package adapter

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/keccakroot/keccakroot/internal/benchturns"
)

// interleaveRun is how many calls of one implementation run before the
// other's turn in BenchmarkInterleaved.
const interleaveRun = 64

// interleavedCase is one hash as keccakroot and go-ethereum compute it;
// the functions take the index of the call within a turn.
type interleavedCase struct {
	name      string
	prepare   func() // before go-ethereum's turn, untimed
	ours, eth func(i int) common.Hash
	want      common.Hash
	calls     int // calls per turn; interleaveRun if 0
}

// BenchmarkInterleaved measures the hashes of BenchmarkHeaderHash,
// BenchmarkTxHash, BenchmarkKeccak256Hash, BenchmarkDeriveSha and
// mainnet's BenchmarkGenesisStateRoot with keccakroot and go-ethereum
// taking turns (every interleaveRun calls, fewer for the long ones) inside
// one benchmark (see benchturns), and reports each one's time per call and
// the speed-up as metrics. Summarise with
//
//	benchstat -filter '.unit:speedup' file
//
// go-ethereum caches a transaction's hash, so its TxHash calls get
// transactions decoded afresh before each turn, outside the timed part.
func BenchmarkInterleaved(b *testing.B) {
	header := benchHeader()
	data := make([]byte, 32)
	cases := []interleavedCase{
		{
			name: "op=HeaderHash",
			ours: func(int) common.Hash { return HeaderHash(header) },
			eth:  func(int) common.Hash { return header.Hash() },
			want: header.Hash(),
		},
		{
			name: "op=Keccak256Hash/size=64",
			ours: func(int) common.Hash { return Keccak256Hash(data, data) },
			eth:  func(int) common.Hash { return crypto.Keccak256Hash(data, data) },
			want: crypto.Keccak256Hash(data, data),
		},
	}
	for _, c := range []struct {
		name string
		typ  byte
	}{{"op=TxHash/type=dynamic-fee", types.DynamicFeeTxType}, {"op=TxHash/type=legacy", types.LegacyTxType}} {
		tx := benchTx(c.typ)
		raw, err := tx.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		fresh := make([]types.Transaction, interleaveRun)
		cases = append(cases, interleavedCase{
			name: c.name,
			prepare: func() {
				for i := range fresh {
					fresh[i] = types.Transaction{}
					if err := fresh[i].UnmarshalBinary(raw); err != nil {
						b.Fatal(err)
					}
				}
			},
			ours: func(int) common.Hash { return TxHash(tx) },
			eth:  func(i int) common.Hash { return fresh[i].Hash() },
			want: tx.Hash(),
		})
	}
	cases = append(cases, derivedRootCases(b)...)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			calls := c.calls
			if calls == 0 {
				calls = interleaveRun
			}
			var ours, eth common.Hash
			perCall := benchturns.Measure(b, calls, []benchturns.Turn{
				{Call: func(i int) { ours = c.ours(i) }},
				{Prepare: c.prepare, Call: func(i int) { eth = c.eth(i) }},
			})
			b.ReportMetric(perCall[0], "ns/call-keccakroot")
			b.ReportMetric(perCall[1], "ns/call-go-ethereum")
			b.ReportMetric(perCall[1]/perCall[0], "speedup")
			checkResult(b, ours, c.want)
			checkResult(b, eth, c.want)
		})
	}
}

// derivedRootCases are the roots of BenchmarkDeriveSha's lists and of
// mainnet's genesis allocation, for BenchmarkInterleaved.
func derivedRootCases(b *testing.B) []interleavedCase {
	r := newRand(b)
	var cases []interleavedCase
	for _, l := range []struct {
		name string
		list types.DerivableList
	}{
		{"op=DeriveSha/list=200-transactions", benchTxs(200)},
		{"op=DeriveSha/list=200-receipts", randReceipts(r, 200)},
		{"op=DeriveSha/list=16-withdrawals", randWithdrawals(r, 16)},
	} {
		cases = append(cases, interleavedCase{
			name:  l.name,
			ours:  func(int) common.Hash { return DeriveSha(l.list) },
			eth:   func(int) common.Hash { return types.DeriveSha(l.list, trie.NewStackTrie(nil)) },
			want:  types.DeriveSha(l.list, trie.NewStackTrie(nil)),
			calls: 8,
		})
	}
	g := core.DefaultGenesisBlock()
	return append(cases, interleavedCase{
		name:  "op=GenesisStateRoot/net=mainnet",
		ours:  func(int) common.Hash { return GenesisStateRoot(g.Alloc) },
		eth:   func(int) common.Hash { return g.ToBlock().Root() },
		want:  g.ToBlock().Root(),
		calls: 1,
	})
}

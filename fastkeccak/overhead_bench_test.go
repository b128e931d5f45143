package fastkeccak

import (
	"testing"

	"github.com/keccakroot/keccakroot/internal/benchturns"
)

// cpuTurnCalls is how many calls one turn of BenchmarkOneBlockOverhead
// makes: enough that the two reads of the CPU clock around a turn cost
// under a nanosecond a call.
const cpuTurnCalls = 1024

// BenchmarkOneBlockOverhead measures what a one-block message costs beyond
// its one permutation: Sum256 of 32 and 64 bytes, and a Hasher's Reset,
// Write and Read of 32 bytes (go-ethereum's trie hasher's pattern), taking
// turns with the permutation alone, and reports each call's time and its
// overhead, the call minus one permutation (ns/overhead-<op>). The turns
// (see benchturns) are timed by the thread's CPU time, as BenchmarkOpenSSL
// is: the overheads are a tenth of a call, smaller than what another
// process's load adds to wall-clock turns. The digests are checked against x/crypto's and the
// permutation against the portable Go kernel after the timed loop.
func BenchmarkOneBlockOverhead(b *testing.B) {
	b.Run("backend="+Backend(), func(b *testing.B) {
		msg32, msg64 := benchMessage(32), benchMessage(64)
		var (
			state      [25]uint64
			sum32      [32]byte
			sum64      [32]byte
			hasher     Hasher
			hasherRead = make([]byte, 32)
		)
		names := []string{"permute", "Sum256-32", "Sum256-64", "Hasher-32"}
		turns := []benchturns.Turn{
			{Call: func(int) { permute(&state) }},
			{Call: func(int) { sum32 = Sum256(msg32) }},
			{Call: func(int) { sum64 = Sum256(msg64) }},
			{Call: func(int) {
				hasher.Reset()
				hasher.Write(msg32)
				hasher.Read(hasherRead)
			}},
		}
		clock := benchturns.StartThreadClock()
		defer clock.Stop()
		perCall := benchturns.MeasureBy(b, cpuTurnCalls, turns, clock.Now)
		for i, name := range names {
			b.ReportMetric(perCall[i], "ns/call-"+name)
			if i > 0 {
				b.ReportMetric(perCall[i]-perCall[0], "ns/overhead-"+name)
			}
		}

		checkDigest(b, sum32[:], referenceDigest(msg32, 32))
		checkDigest(b, sum64[:], referenceDigest(msg64, 32))
		checkDigest(b, hasherRead, referenceDigest(msg32, 32))
		want := state
		keccakF1600Generic(&want)
		permute(&state)
		checkState(b, &state, &want)
	})
}

package fastkeccak

import (
	"bufio"
	"bytes"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/keccakroot/keccakroot/internal/benchturns"
)

// opensslSHA3 runs `openssl speed -evp sha3-256 -bytes 16384` for about a
// second and returns its throughput in bytes per second. SHA3-256 has
// Keccak-256's rate and permutation (only the padding byte differs), so it
// measures OpenSSL's assembly permutation on exactly this work.
//
// openssl speed divides by its user time in clock ticks; on a loaded host a
// second of wall time can hold no tick of its own, and it prints an
// infinite rate. Such a run is repeated, a few times at most.
func opensslSHA3(b *testing.B, path string) float64 {
	for range 3 {
		if rate := opensslSHA3Once(b, path); rate > 0 && !math.IsInf(rate, 0) {
			return rate
		}
	}
	b.Fatal("openssl speed gave no finite sha3-256 rate in 3 runs")
	return 0
}

// opensslSHA3Once is one run of opensslSHA3's command.
func opensslSHA3Once(b *testing.B, path string) float64 {
	out, err := exec.Command(path, "speed", "-mr", "-seconds", "1", "-bytes", "16384", "-evp", "sha3-256").Output()
	if err != nil {
		b.Fatalf("openssl speed: %v", err)
	}
	// Machine-readable lines: +F:<index>:<algorithm>:<bytes per second>...
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) >= 4 && fields[0] == "+F" && strings.Contains(strings.ToLower(fields[2]), "sha3-256") {
			rate, err := strconv.ParseFloat(fields[3], 64)
			if err != nil {
				b.Fatalf("openssl speed printed %q: %v", sc.Text(), err)
			}
			return rate
		}
	}
	b.Fatalf("no sha3-256 figure in openssl's output:\n%s", out)
	return 0
}

// sum256Rate hashes 16 KiB messages with Sum256 for about a second of its
// thread's CPU time and returns the throughput in bytes per CPU second, the
// unit `openssl speed` reports in.
func sum256Rate(b *testing.B, msg []byte) float64 {
	want := [32]byte(crypto.Keccak256(msg))
	clock := benchturns.StartThreadClock()
	defer clock.Stop()
	start, n := clock.Now(), 0
	for clock.Now()-start < time.Second {
		for range 64 {
			if Sum256(msg) != want {
				b.Fatal("Sum256 of 16 KiB differs from go-ethereum's Keccak-256")
			}
		}
		n += 64
	}
	return float64(n*len(msg)) / (clock.Now() - start).Seconds()
}

// BenchmarkOpenSSL compares Sum256 on 16 KiB messages, with the backend
// this process chose (set KECCAKROOT_BACKEND to compare another), against
// OpenSSL's assembly Keccak on the same CPU: each round runs `openssl
// speed` for a second, then Sum256 for a second, so both see the machine
// alike, and both are timed by their own CPU time (openssl speed's user
// time, the thread's CPU clock here), so that other processes' load does
// not count against either. It reports both throughputs and their ratio;
// it skips, saying why, where openssl is not on the PATH. Run with
// -benchtime 5x or more.
func BenchmarkOpenSSL(b *testing.B) {
	path, err := exec.LookPath("openssl")
	if err != nil {
		b.Skip("openssl is not on the PATH: no reference to compare with")
	}
	msg := make([]byte, 16384)
	for i := range msg {
		msg[i] = byte(i * 13)
	}
	b.Run("backend="+Backend()+"/size=16384", func(b *testing.B) {
		var ours, theirs float64
		for b.Loop() {
			theirs += opensslSHA3(b, path)
			ours += sum256Rate(b, msg)
		}
		b.ReportMetric(ours/float64(b.N)/1e6, "MB/s-keccakroot")
		b.ReportMetric(theirs/float64(b.N)/1e6, "MB/s-openssl")
		b.ReportMetric(ours/theirs, "ratio-to-openssl")
	})
}

package benchturns

import (
	"strings"
	"testing"
)

// TestMeasureRoundsAlternates checks that the turns go in order in even
// rounds and in reverse in odd ones, each turn's Prepare right before its
// calls, and newRound before every round's first turn.
func TestMeasureRoundsAlternates(t *testing.T) {
	var log strings.Builder
	rounds := 0
	testing.Benchmark(func(b *testing.B) {
		log.Reset()
		rounds = 0
		turn := func(name string) Turn {
			return Turn{
				Prepare: func() { log.WriteString("p" + name) },
				Call:    func(i int) { log.WriteString(name) },
			}
		}
		MeasureRounds(b, 2, func() { rounds++; log.WriteString("|") }, []Turn{turn("a"), turn("b"), turn("c")})
	})
	if rounds < 2 {
		t.Fatalf("%d rounds, want at least 2", rounds)
	}
	// A Prepare logs "p" and the turn's name, each of its two calls the
	// name.
	want := strings.Repeat("|paaapbbbpccc|pcccpbbbpaaa", rounds/2)
	if rounds%2 == 1 {
		want += "|paaapbbbpccc"
	}
	if got := log.String(); got != want {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("%d rounds: the log differs at byte %d: got %.40q, want %.40q", rounds, i, got[i:], want[i:])
			}
		}
		t.Fatalf("%d rounds: a log of %d bytes, want %d", rounds, len(got), len(want))
	}
}

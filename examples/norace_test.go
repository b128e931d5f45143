//go:build !race

package examples

// raceEnabled is set when the tests run with -race.
const raceEnabled = false

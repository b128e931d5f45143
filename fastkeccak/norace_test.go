//go:build !race

package fastkeccak

const raceEnabled = false

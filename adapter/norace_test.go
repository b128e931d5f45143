//go:build !race

package adapter

const raceEnabled = false

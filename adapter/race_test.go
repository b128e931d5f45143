//go:build race

package adapter

const raceEnabled = true

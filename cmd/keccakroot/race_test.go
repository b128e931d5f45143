//go:build race

package main

// raceEnabled is set when the tests run with -race; the command they build is
// then built with it too.
const raceEnabled = true

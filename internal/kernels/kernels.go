// Package kernels names fastkeccak's permutation kernels for this module's
// tests and tools, which must run every kernel and say which they could not,
// without making the kernels part of fastkeccak's public API.
//
// fastkeccak fills in Single and Batch when it is initialised, so they are
// set in every program that links fastkeccak (a package that imports this
// one imports fastkeccak too, directly or through triehash). The names are
// the values that the environment variables KECCAKROOT_BACKEND and
// KECCAKROOT_BATCH accept; they take effect at start-up only, so a test runs
// another kernel in a child process with the variable set.
package kernels

import "slices"

// Family is one kind of kernel: the single-state permutations behind
// fastkeccak.Hasher and Sum256, or the batch kernels behind Sum256Batch.
type Family struct {
	// Built lists every kernel of this build, whether or not this CPU can
	// run it.
	Built []string
	// Available lists the kernels of Built that this CPU can run, the
	// default first.
	Available []string
	// Active is the kernel in use, chosen at start-up.
	Active string
}

// Runs reports whether this CPU can run the kernel called name.
func (f Family) Runs(name string) bool { return slices.Contains(f.Available, name) }

// Missing lists the kernels of this build that this CPU cannot run: the
// ones a test run on this machine leaves unverified.
func (f Family) Missing() []string {
	var names []string
	for _, name := range f.Built {
		if !f.Runs(name) {
			names = append(names, name)
		}
	}
	return names
}

// Single and Batch describe fastkeccak's kernels, as fastkeccak sets them at
// initialisation.
var Single, Batch Family

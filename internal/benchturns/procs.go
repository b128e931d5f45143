package benchturns

import (
	"fmt"
	"runtime"
	"testing"
)

// AtProcs runs f as one sub-benchmark of b for each count in procs, named
// name+"/procs=N", with GOMAXPROCS set to N while it runs. Benchmarks whose work
// depends on GOMAXPROCS take their core counts this way rather than from
// the -cpu flag: the testing package runs the first measurement of each
// -cpu value list at the GOMAXPROCS the benchmark before it left
// (golang/go#49980), and a benchmark driven by b.Loop takes its whole
// measurement in that first run, so with -cpu 1,2 its one-core figures
// would come from two cores.
func AtProcs(b *testing.B, name string, procs []int, f func(b *testing.B)) {
	for _, n := range procs {
		b.Run(fmt.Sprintf("%s/procs=%d", name, n), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
			f(b)
		})
	}
}

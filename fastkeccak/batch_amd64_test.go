//go:build amd64 && !purego

package fastkeccak

import (
	"slices"
	"testing"
)

// TestBatchKernelOrder checks the default batch kernel for each kind of
// amd64 CPU: the five-state kernel leads the AVX2 ones on AMD cores alone,
// and is offered wherever AVX2 and BMI2 are.
func TestBatchKernelOrder(t *testing.T) {
	for _, c := range []struct {
		name string
		cpu  batchCPU
		want []batchKernelID
	}{
		{"AVX-512 with BW and BMI2", batchCPU{avx512F: true, avx512BW: true, avx2: true, bmi2: true, amd: true},
			[]batchKernelID{batchAMD64AVX512BW, batchAMD64AVX512, batchAMD64AVX2Scalar, batchAMD64AVX2, batchLoop}},
		{"AMD, AVX2 and BMI2", batchCPU{avx2: true, bmi2: true, amd: true},
			[]batchKernelID{batchAMD64AVX2Scalar, batchAMD64AVX2, batchLoop}},
		{"Intel, AVX2 and BMI2", batchCPU{avx2: true, bmi2: true},
			[]batchKernelID{batchAMD64AVX2, batchAMD64AVX2Scalar, batchLoop}},
		{"AVX2 without BMI2", batchCPU{avx2: true, amd: true},
			[]batchKernelID{batchAMD64AVX2, batchLoop}},
		{"neither", batchCPU{amd: true}, []batchKernelID{batchLoop}},
	} {
		if got := c.cpu.kernels(); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

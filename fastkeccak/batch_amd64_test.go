//go:build amd64 && !purego

package fastkeccak

import (
	"slices"
	"testing"
)

// TestBatchKernelOrder checks the default batch kernel for each kind of
// amd64 CPU: the four-state AVX2 kernel leads the five-state one, which is
// offered wherever AVX2 and BMI2 are.
func TestBatchKernelOrder(t *testing.T) {
	for _, c := range []struct {
		name string
		cpu  batchCPU
		want []batchKernelID
	}{
		{"AVX-512 with BW and BMI2", batchCPU{avx512F: true, avx512BW: true, avx2: true, bmi2: true},
			[]batchKernelID{batchAMD64AVX512BW, batchAMD64AVX512, batchAMD64AVX2, batchAMD64AVX2Scalar, batchLoop}},
		{"AVX-512 without BW", batchCPU{avx512F: true, avx2: true, bmi2: true},
			[]batchKernelID{batchAMD64AVX512, batchAMD64AVX2, batchAMD64AVX2Scalar, batchLoop}},
		{"AVX2 and BMI2", batchCPU{avx2: true, bmi2: true},
			[]batchKernelID{batchAMD64AVX2, batchAMD64AVX2Scalar, batchLoop}},
		{"AVX2 without BMI2", batchCPU{avx2: true},
			[]batchKernelID{batchAMD64AVX2, batchLoop}},
		{"neither", batchCPU{}, []batchKernelID{batchLoop}},
	} {
		if got := c.cpu.kernels(); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/cpu"
)

// cpuInfo returns the CPU's model name, from /proc/cpuinfo where there is
// one, and the features the keccak kernels choose by.
func cpuInfo() (name, features string) {
	name = runtime.GOARCH + " CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		if n := cpuinfoField(data, "model name", "Hardware", "Model"); n != "" {
			name = n
		}
	}
	var have []string
	add := func(ok bool, f string) {
		if ok {
			have = append(have, f)
		}
	}
	switch runtime.GOARCH {
	case "amd64":
		add(cpu.X86.HasBMI2, "BMI2")
		add(cpu.X86.HasAVX2, "AVX2")
		add(cpu.X86.HasAVX512F, "AVX-512F")
		add(cpu.X86.HasAVX512VL, "AVX-512VL")
	case "arm64":
		add(cpu.ARM64.HasSHA3, "SHA3")
	}
	return name, strings.Join(have, ", ")
}

// cpuinfoField returns the value of the first of keys found in /proc/cpuinfo.
func cpuinfoField(data []byte, keys ...string) string {
	for _, key := range keys {
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if ok && strings.TrimSpace(k) == key {
				if v = strings.TrimSpace(v); v != "" {
					return v
				}
			}
		}
	}
	return ""
}

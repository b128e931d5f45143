package main

// cpuidVendor returns the CPU's vendor string, which
// golang.org/x/sys/cpu does not give: the batch kernels pick the five-state
// kernel (short5.go) on AMD cores alone, whose vector and integer
// instructions issue to pipes of their own.

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/reg"
)

func cpuidVendor() {
	TEXT("cpuidVendor", 0, "func() (ebx, edx, ecx uint32)")
	Doc("cpuidVendor returns the registers of CPUID leaf 0 that hold the vendor string, in its order.")
	AllocLocal(128) // the frame every function has, which keeps the stack check
	XORL(EAX, EAX)
	XORL(ECX, ECX)
	CPUID()
	Store(EBX, ReturnIndex(0))
	Store(EDX, ReturnIndex(1))
	Store(ECX, ReturnIndex(2))
	RET()
}

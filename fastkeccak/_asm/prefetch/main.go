// Command prefetch generates internal/prefetch/prefetch_amd64.s, the
// amd64 kernel behind prefetch.Lines: a loop of PREFETCHT0 over every cache
// line of each span. Run it from the fastkeccak/_asm folder:
//
//	go run ./prefetch -out ../../internal/prefetch/prefetch_amd64.s
//
// (the go:generate line in internal/prefetch/generate.go does exactly
// that). PREFETCHT0 is part of SSE, which every amd64 CPU has, so the
// kernel needs no CPU check. A prefetch of an address that is not mapped
// does not fault, so the kernel reads no memory of its own: it only asks
// the core for lines.
//
// The function has a frame of 128 bytes and no NOSPLIT, as the Keccak
// kernels have, so the assembler keeps the stack-bound check in its
// prologue.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

// lineBytes is the cache line size of every amd64 CPU the module runs on.
const lineBytes = 64

// sliceHeaderBytes is the size of a []byte in a [][]byte.
const sliceHeaderBytes = 24

// minFrameBytes keeps the stack check (see the package comment).
const minFrameBytes = 128

func main() {
	ConstraintExpr("amd64,!purego")
	TEXT("lines", 0, "func(spans [][]byte)")
	Doc("lines asks the core for every cache line of each span of spans.")
	AllocLocal(minFrameBytes) // unused; keeps the stack check

	span := Load(Param("spans").Base(), GP64())
	count := Load(Param("spans").Len(), GP64())
	TESTQ(count, count)
	JZ(LabelRef("done"))

	Label("span")
	at, size, last := GP64(), GP64(), GP64()
	MOVQ(Mem{Base: span}, at)
	MOVQ(Mem{Base: span, Disp: 8}, size)
	TESTQ(size, size)
	JZ(LabelRef("next"))
	// last is the span's final byte: a span that ends a few bytes into a
	// line gets that line too.
	LEAQ(Mem{Base: at, Index: size, Scale: 1, Disp: -1}, last)

	Label("line")
	PREFETCHT0(Mem{Base: at})
	ADDQ(Imm(lineBytes), at)
	CMPQ(at, last)
	JLS(LabelRef("line"))
	PREFETCHT0(Mem{Base: last})

	Label("next")
	ADDQ(Imm(sliceHeaderBytes), span)
	DECQ(count)
	JNZ(LabelRef("span"))

	Label("done")
	RET()
	Generate()
}

package main

// # The BMI2 kernels
//
// keccakF1600BMI2 and absorbBlocksBMI2 run the rounds of the scalar
// package (its documentation describes them) on the state copied into the
// frame: the caller's state is copied into buffer A on entry and back on
// return. The first round of a message computes the parities from memory
// while it XORs the first block in; the last round of every block but the
// last XORs the next block into its outputs as it stores them, so its
// parities come out of the round as usual.
//
// The rounds run in a loop of bmi2RoundsPerPass rounds (an even number,
// so every pass starts from buffer A; a short loop keeps the code well
// inside the op caches of the cores that run this kernel, on Zen 3 too).
// The loop's round-constant pointer lives in the frame; ι loads it into
// the χ scratch register, free at that moment. The absorb loop's last
// pass is unrolled, to branch on the next block before its last round.

import (
	"fmt"

	"github.com/keccakroot/keccakroot/fastkeccak/_asm/internal/scalar"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

const bmi2RoundsPerPass = 4

// Registers of the kernels besides the rounds' (see the scalar package).
var (
	tmp      = scalar.Tmp
	blockPtr = R8 // absorb: the block, only while the row registers are free
	blockEnd = R9 // absorb: end of p, only at the top
)

// Frame layout, in bytes from the frame's base: the rounds' two state
// buffers first (scalar.FrameA, scalar.FrameB).
const (
	frameBlock = scalar.StateBuffer    // absorb: the next block's 17 lanes
	frameRC    = frameBlock + 17*8     // the round constants of this pass
	frameP     = frameRC + 8           // absorb: the current block
	frameEnd   = frameP + 8            // absorb: end of p
	frameState = frameEnd + 8          // the caller's *[25]uint64
	frameBytes = frameState + 16       // 576 >= 128: keeps the stack check in
	passRounds = bmi2RoundsPerPass * 8 // bytes of round constants per pass
	tailRound  = roundCount - 4        // absorb: the first round of the unrolled pass
)

// bmi2Kernel emits one BMI2 function: its frame, and the labels it has
// used.
type bmi2Kernel struct {
	scalar.Rounds
	prefix string // for labels, which are per file
}

func newBMI2Kernel(name string) *bmi2Kernel {
	k := &bmi2Kernel{prefix: name + "_"}
	k.Frame = AllocLocal(frameBytes)
	k.Asm = scalar.Global{}
	return k
}

func (k *bmi2Kernel) label(name string) string { return k.prefix + name }

// copyState copies the 25 lanes from one buffer to the other through tmp.
func copyState(from, to Mem) {
	for i := 0; i < 25; i++ {
		MOVQ(scalar.Lane(from, i), tmp)
		MOVQ(tmp, scalar.Lane(to, i))
	}
}

// round emits round r: its ι constant from the table, or in a loop
// (inLoop) from the pass's constants at frameRC; with addBlock, the block
// at frameBlock XORed into its outputs.
func (k *bmi2Kernel) round(r int, inLoop, addBlock bool) {
	rd := scalar.Round{R: r}
	rd.Iota = func(out Register) {
		if !inLoop {
			XORQ(roundConstantTable.Offset(8*r), out)
			return
		}
		MOVQ(k.Frame.Offset(frameRC), tmp)
		XORQ(Mem{Base: tmp, Disp: 8 * (r % bmi2RoundsPerPass)}, out)
	}
	if addBlock {
		block := k.Frame.Offset(frameBlock)
		rd.AddBlock = &block
	}
	k.Emit(rd)
}

// roundLoop emits passes of bmi2RoundsPerPass rounds up to round
// constant number end; the parities must hold the input's. It clobbers
// every register.
func (k *bmi2Kernel) roundLoop(end int) {
	LEAQ(roundConstantTable, tmp)
	MOVQ(tmp, k.Frame.Offset(frameRC))
	Label(k.label("rounds"))
	for r := 0; r < bmi2RoundsPerPass; r++ {
		k.round(r, true, false)
	}
	MOVQ(k.Frame.Offset(frameRC), tmp)
	ADDQ(U8(passRounds), tmp)
	MOVQ(tmp, k.Frame.Offset(frameRC))
	LEAQ(roundConstantTable.Offset(8*end), R8)
	CMPQ(tmp, R8)
	JB(LabelRef(k.label("rounds")))
}

// loadState copies the caller's state into buffer A and keeps its
// pointer in the frame.
func (k *bmi2Kernel) loadState() {
	Load(Param("a"), RDI)
	MOVQ(RDI, k.Frame.Offset(frameState))
	copyState(Mem{Base: RDI}, k.Frame.Offset(scalar.FrameA))
}

// storeState copies buffer A back to the caller's state.
func (k *bmi2Kernel) storeState() {
	MOVQ(k.Frame.Offset(frameState), RDI)
	copyState(k.Frame.Offset(scalar.FrameA), Mem{Base: RDI})
}

func keccakF1600BMI2() {
	TEXT("keccakF1600BMI2", 0, "func(a *[25]uint64)")
	k := newBMI2Kernel("permute")
	k.loadState()
	k.Parities(nil)
	k.roundLoop(roundCount)
	k.storeState()
	RET()
}

func absorbBlocksBMI2() {
	TEXT("absorbBlocksBMI2", 0, "func(a *[25]uint64, p []byte)")
	k := newBMI2Kernel("absorb")
	Load(Param("p").Base(), blockPtr)
	Load(Param("p").Len(), blockEnd)
	CMPQ(blockEnd, U32(rate))
	JB(LabelRef(k.label("done")))
	ADDQ(blockPtr, blockEnd)
	MOVQ(blockEnd, k.Frame.Offset(frameEnd))
	MOVQ(blockPtr, k.Frame.Offset(frameP))
	k.loadState()
	k.Parities(func(i int) Op {
		if i < rateLanes {
			return Mem{Base: blockPtr, Disp: 8 * i}
		}
		return nil
	})

	Label(k.label("block"))
	k.roundLoop(tailRound)
	for r := tailRound; r < roundCount-1; r++ {
		k.round(r, false, false)
	}
	Comment("is there a whole block after this one?")
	MOVQ(k.Frame.Offset(frameP), blockPtr)
	ADDQ(U32(rate), blockPtr)
	LEAQ(Mem{Base: blockPtr, Disp: rate}, blockEnd)
	CMPQ(blockEnd, k.Frame.Offset(frameEnd))
	JA(LabelRef(k.label("last")))
	MOVQ(blockPtr, k.Frame.Offset(frameP))
	for i := 0; i < rateLanes; i++ {
		t := scalar.RowB[1+i%4]
		MOVQ(Mem{Base: blockPtr, Disp: 8 * i}, t)
		MOVQ(t, k.Frame.Offset(frameBlock+8*i))
	}
	k.round(roundCount-1, false, true)
	JMP(LabelRef(k.label("block")))

	Label(k.label("last"))
	k.round(roundCount-1, false, false)
	k.storeState()
	Label(k.label("done"))
	RET()
}

// The pass arithmetic above assumes whole passes before the unrolled one.
func init() {
	if roundCount%bmi2RoundsPerPass != 0 || tailRound%bmi2RoundsPerPass != 0 || bmi2RoundsPerPass%2 != 0 {
		panic(fmt.Sprintf("bmi2RoundsPerPass %d does not divide the rounds", bmi2RoundsPerPass))
	}
}

// Package lanes tracks, while an avo generator emits a register-resident
// Keccak kernel, which of the 32 AVX-512 vector registers holds each of the
// 25 lanes of a state and which registers are free. The round code renames
// registers instead of moving lanes (π costs nothing), and Home moves every
// lane back to its own register where a loop needs a fixed layout.
package lanes

import (
	"fmt"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/reg"
)

// Map is the lane-to-register map over one register file (xmm, ymm or
// zmm), starting with lane i in register i.
type Map struct {
	File [32]reg.VecPhysical
	Lane [25]int // lane -> register number
	Used [32]bool
}

// New returns the map with lane i in File[i].
func New(file [32]reg.VecPhysical) *Map {
	m := &Map{File: file}
	for i := range m.Lane {
		m.Lane[i] = i
		m.Used[i] = true
	}
	return m
}

// Alloc takes a free register, from the top of the file down.
func (m *Map) Alloc() int {
	for r := len(m.Used) - 1; r >= 0; r-- {
		if !m.Used[r] {
			m.Used[r] = true
			return r
		}
	}
	panic("lanes: out of vector registers")
}

// Free returns register r.
func (m *Map) Free(r int) {
	if !m.Used[r] {
		panic(fmt.Sprintf("lanes: double free of register %d", r))
	}
	m.Used[r] = false
}

// Reg returns the register holding lane.
func (m *Map) Reg(lane int) reg.VecPhysical { return m.File[m.Lane[lane]] }

// Home moves every lane back to register File[lane].
func (m *Map) Home() {
	build.Comment("lanes back to their home registers")
	for {
		moved := false
		for i := range m.Lane {
			if m.Lane[i] != i && !m.Used[i] {
				build.VMOVDQA64(m.File[m.Lane[i]], m.File[i])
				m.Free(m.Lane[i])
				m.Used[i] = true
				m.Lane[i] = i
				moved = true
			}
		}
		if moved {
			continue
		}
		// Only cycles are left: break one through a free register.
		for i := range m.Lane {
			if m.Lane[i] != i {
				t := m.Alloc()
				build.VMOVDQA64(m.File[m.Lane[i]], m.File[t])
				m.Free(m.Lane[i])
				m.Lane[i] = t
				moved = true
				break
			}
		}
		if !moved {
			return
		}
	}
}

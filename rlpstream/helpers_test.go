package rlpstream

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"

	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"
)

// encoder is the method set shared by the three sinks, so that one walker can
// drive each of them in the differential tests.
type encoder interface {
	WriteBytes([]byte)
	WriteString(string)
	WriteUint64(uint64)
	WriteBigInt(*big.Int) error
	WriteUint256(*uint256.Int)
	WriteBool(bool)
	WriteListHeader(int)
	WriteRaw([]byte)
}

// appender adapts the Append functions to encoder.
type appender struct{ b []byte }

func (a *appender) WriteBytes(b []byte)         { a.b = AppendBytes(a.b, b) }
func (a *appender) WriteString(s string)        { a.b = AppendString(a.b, s) }
func (a *appender) WriteUint64(x uint64)        { a.b = AppendUint64(a.b, x) }
func (a *appender) WriteUint256(x *uint256.Int) { a.b = AppendUint256(a.b, x) }
func (a *appender) WriteBool(v bool)            { a.b = AppendBool(a.b, v) }
func (a *appender) WriteListHeader(n int)       { a.b = AppendListHeader(a.b, n) }
func (a *appender) WriteRaw(raw []byte)         { a.b = AppendRaw(a.b, raw) }
func (a *appender) WriteBigInt(x *big.Int) (err error) {
	a.b, err = AppendBigInt(a.b, x)
	return err
}

var (
	_ encoder = Writer{}
	_ encoder = (*StreamWriter)(nil)
	_ encoder = (*appender)(nil)
)

// sizeOf returns the encoded size of a test value with the package's size
// functions. Values are the Go types go-ethereum's rlp package encodes the
// same way: []any is a list, rlp.RawValue is pre-encoded.
func sizeOf(v any) int {
	switch v := v.(type) {
	case []byte:
		return BytesSize(v)
	case string:
		return StringSize(v)
	case uint64:
		return Uint64Size(v)
	case *big.Int:
		return BigIntSize(v)
	case *uint256.Int:
		return Uint256Size(v)
	case bool:
		return BoolSize(v)
	case [1]byte:
		return BytesSize(v[:])
	case [20]byte:
		return BytesSize(v[:])
	case [32]byte:
		return BytesSize(v[:])
	case rlp.RawValue:
		return len(v)
	case []any:
		return ListSize(contentSize(v))
	default:
		panic(fmt.Sprintf("sizeOf: unexpected %T", v))
	}
}

func contentSize(list []any) int {
	n := 0
	for _, e := range list {
		n += sizeOf(e)
	}
	return n
}

// encodeValue writes a test value into e, front to back.
func encodeValue(e encoder, v any) error {
	switch v := v.(type) {
	case []byte:
		e.WriteBytes(v)
	case string:
		e.WriteString(v)
	case uint64:
		e.WriteUint64(v)
	case *big.Int:
		return e.WriteBigInt(v)
	case *uint256.Int:
		e.WriteUint256(v)
	case bool:
		e.WriteBool(v)
	case [1]byte:
		e.WriteBytes(v[:])
	case [20]byte:
		e.WriteBytes(v[:])
	case [32]byte:
		e.WriteBytes(v[:])
	case rlp.RawValue:
		e.WriteRaw(v)
	case []any:
		e.WriteListHeader(contentSize(v))
		for _, x := range v {
			if err := encodeValue(e, x); err != nil {
				return err
			}
		}
	default:
		panic(fmt.Sprintf("encodeValue: unexpected %T", v))
	}
	return nil
}

// hasNegative reports whether a test value holds a negative big.Int, which
// both encoders must refuse.
func hasNegative(v any) bool {
	switch v := v.(type) {
	case *big.Int:
		return v != nil && v.Sign() < 0
	case []any:
		for _, x := range v {
			if hasNegative(x) {
				return true
			}
		}
	}
	return false
}

// gen makes random test values that cover every kind and the boundaries of
// the encoding: lengths around 1, 55/56 and 255/256, integers around 0x7f,
// 0x80 and every byte length.
type gen struct {
	r *rand.Rand
}

func newGen(seed uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

var interestingLens = []int{0, 1, 2, 20, 32, 54, 55, 56, 57, 100, 255, 256, 1024, 65535, 65536, 70000}

func (g *gen) bytes() []byte {
	var n int
	switch g.r.IntN(4) {
	case 0:
		n = interestingLens[g.r.IntN(len(interestingLens))]
		if n > 1024 && g.r.IntN(8) != 0 {
			n = 1024 // keep the huge strings rare
		}
	case 1:
		n = 1
	default:
		n = g.r.IntN(80)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	if n == 1 && g.r.IntN(2) == 0 {
		b[0] &= 0x7f // single bytes on both sides of 0x80
	}
	return b
}

func (g *gen) uint64() uint64 {
	switch g.r.IntN(4) {
	case 0:
		edges := []uint64{0, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 1<<56 - 1, 1 << 56, ^uint64(0)}
		return edges[g.r.IntN(len(edges))]
	default:
		return g.r.Uint64() >> g.r.IntN(64)
	}
}

func (g *gen) bigInt() *big.Int {
	switch g.r.IntN(10) {
	case 0:
		return nil
	case 1:
		return new(big.Int)
	}
	bitsLen := g.r.IntN(600)
	if g.r.IntN(2) == 0 {
		bitsLen = g.r.IntN(70)
	}
	buf := make([]byte, (bitsLen+7)/8)
	for i := range buf {
		buf[i] = byte(g.r.Uint32())
	}
	x := new(big.Int).SetBytes(buf)
	return x.Rsh(x, uint(g.r.IntN(8)))
}

func (g *gen) u256() *uint256.Int {
	if g.r.IntN(10) == 0 {
		return nil
	}
	x := &uint256.Int{g.r.Uint64(), g.r.Uint64(), g.r.Uint64(), g.r.Uint64()}
	return x.Rsh(x, uint(g.r.IntN(257)))
}

// value returns a random value; depth bounds the nesting of lists.
func (g *gen) value(depth int) any {
	k := g.r.IntN(12)
	if depth <= 0 && k >= 10 {
		k = g.r.IntN(10)
	}
	switch k {
	case 0:
		return g.bytes()
	case 1:
		return string(g.bytes())
	case 2:
		return g.uint64()
	case 3:
		return g.bigInt()
	case 4:
		return g.u256()
	case 5:
		return g.r.IntN(2) == 0
	case 6:
		var a [20]byte
		for i := range a {
			a[i] = byte(g.r.Uint32())
		}
		return a
	case 7:
		var a [32]byte
		for i := range a {
			a[i] = byte(g.r.Uint32())
		}
		return a
	case 8:
		return [1]byte{byte(g.r.Uint32())}
	case 9:
		enc, err := rlp.EncodeToBytes(g.value(depth - 1))
		if err != nil {
			panic(err)
		}
		return rlp.RawValue(enc)
	default:
		return g.list(depth)
	}
}

// list returns a random list whose elements nest up to depth-1 further.
func (g *gen) list(depth int) []any {
	n := g.r.IntN(6)
	if g.r.IntN(6) == 0 {
		n = g.r.IntN(40)
	}
	list := make([]any, n)
	for i := range list {
		list[i] = g.value(depth - 1)
	}
	return list
}

// gethValidate is the reference for Validate, built from go-ethereum's
// rlp.Split: one item, canonical all the way down, nothing after it. It
// returns the go-ethereum error and the offset of the offending header.
func gethValidate(b []byte) (off int, err error) {
	rest, off, err := gethItem(b, 0)
	if err != nil {
		return off, err
	}
	if len(rest) > 0 {
		return len(b) - len(rest), rlp.ErrMoreThanOneValue
	}
	return 0, nil
}

func gethItem(b []byte, pos int) (rest []byte, off int, err error) {
	k, content, rest, err := rlp.Split(b)
	if err != nil {
		return nil, pos, err
	}
	if k == rlp.List {
		cpos := pos + (len(b) - len(rest) - len(content))
		for len(content) > 0 {
			next, off, err := gethItem(content, cpos)
			if err != nil {
				return nil, off, err
			}
			cpos += len(content) - len(next)
			content = next
		}
	}
	return rest, 0, nil
}

// sameError reports whether an error of this package and one of go-ethereum
// mean the same thing.
func sameError(ours, theirs error) bool {
	switch {
	case ours == nil || theirs == nil:
		return ours == nil && theirs == nil
	case errors.Is(theirs, io.ErrUnexpectedEOF):
		return errors.Is(ours, ErrUnexpectedEnd)
	case errors.Is(theirs, rlp.ErrCanonSize):
		return errors.Is(ours, ErrNonCanonicalSize)
	case errors.Is(theirs, rlp.ErrValueTooLarge):
		return errors.Is(ours, ErrValueTooLarge)
	case errors.Is(theirs, rlp.ErrMoreThanOneValue):
		return errors.Is(ours, ErrTrailingData)
	}
	return false
}

// offsetOf returns the offset recorded in an error of this package, or -1.
func offsetOf(err error) int {
	var oe *OffsetError
	if errors.As(err, &oe) {
		return oe.Offset
	}
	return -1
}

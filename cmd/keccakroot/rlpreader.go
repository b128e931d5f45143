package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/keccakroot/keccakroot/rlpstream"
)

// maxBlockSize is the largest block, in bytes of RLP, that verify-chain
// reads. Mainnet blocks stay under a few megabytes; the limit keeps a corrupt
// length from making the reader allocate gigabytes.
const maxBlockSize = 64 << 20

// The ways a chain file can fail to split into blocks, each wrapped in a
// *framingError: errNotChain, errTruncated, errBlockTooLarge and errBadSize
// for the RLP framing, errGzip for a compressed file whose gzip stream is
// broken, and errRead for any other failure to read the file.
var (
	errNotChain      = errors.New("not a chain export: a block must be an RLP list")
	errTruncated     = errors.New("truncated")
	errBlockTooLarge = errors.New("block too large")
	errBadSize       = errors.New("non-canonical RLP size")
	errGzip          = errors.New("broken gzip stream")
	errRead          = errors.New("read error")
)

// framingError reports a chain file that does not split into RLP items, or
// cannot be read: what went wrong, at which block and at which byte of the
// (decompressed) stream.
type framingError struct {
	Index  int   // the block's position in the file, from 0
	Offset int64 // the block's first byte in the decompressed stream
	Err    error // one of the sentinels above
	Detail string
	cause  error // the reader's error, if one caused it
}

// Error names the block, its offset and what is wrong.
func (e *framingError) Error() string {
	return fmt.Sprintf("block %d of the file (at byte %d): %v: %s", e.Index+1, e.Offset, e.Err, e.Detail)
}

// Unwrap returns the sentinel error and the reader's error.
func (e *framingError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.Err, e.cause}
	}
	return []error{e.Err}
}

// gzipReader reads a gzip file member by member (gzip allows several, one
// after another, as cat of two .gz files makes) and marks the errors of
// the compressed data, so that the block reader can tell a broken gzip
// stream from a truncated chain. It reads each member itself, rather than
// leaving that to gzip.Reader's multistream mode, to tell bytes after the
// last member that do not start another (trailing garbage, however short)
// from a member cut short (a truncated file).
type gzipReader struct {
	src *bufio.Reader // exactly past the current member's end once it is read: gzip reads a ByteReader no further
	zr  *gzip.Reader
}

// newGzipReader opens the gzip member at the start of src.
func newGzipReader(src *bufio.Reader) (*gzipReader, error) {
	zr, err := gzip.NewReader(src)
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	return &gzipReader{src: src, zr: zr}, nil
}

// errTrailingGarbage is the error of bytes after the last gzip member that
// do not start another one.
var errTrailingGarbage = errors.New("data after the end of the compressed stream is not gzip")

// gzipStreamError is an error of the gzip stream, not of the RLP in it.
type gzipStreamError struct {
	err error
}

func (e *gzipStreamError) Error() string { return "gzip: " + e.err.Error() }
func (e *gzipStreamError) Unwrap() error { return e.err }

// Read reads decompressed bytes; its errors other than the clean end of the
// last member are *gzipStreamError.
func (g *gzipReader) Read(p []byte) (int, error) {
	for {
		n, err := g.zr.Read(p)
		if err == nil {
			return n, nil
		}
		if !errors.Is(err, io.EOF) {
			return n, &gzipStreamError{err}
		}
		if err := g.nextMember(); err != nil {
			return n, err
		}
		if n > 0 {
			return n, nil
		}
	}
}

// nextMember opens the member after the one just read to its end. It
// returns io.EOF at the end of the file, and a *gzipStreamError for bytes
// that do not start a member or a member whose header is broken or cut.
func (g *gzipReader) nextMember() error {
	head, err := g.src.Peek(len(gzipMagic))
	switch {
	case len(head) == 0 && errors.Is(err, io.EOF):
		return io.EOF
	case err != nil && !errors.Is(err, io.EOF):
		return &gzipStreamError{err}
	case !bytes.Equal(head, gzipMagic):
		return &gzipStreamError{errTrailingGarbage}
	}
	if err := g.zr.Reset(g.src); err != nil {
		return &gzipStreamError{err}
	}
	g.zr.Multistream(false)
	return nil
}

// describe says what is wrong with a gzip stream.
func (e *gzipStreamError) describe() string {
	switch {
	case errors.Is(e.err, io.ErrUnexpectedEOF):
		return "the compressed stream ends early: the file is truncated"
	case errors.Is(e.err, errTrailingGarbage):
		return "data after the end of the compressed stream is not gzip (trailing garbage)"
	case errors.Is(e.err, gzip.ErrHeader):
		return "a compressed stream's header is invalid: the file is corrupt"
	case errors.Is(e.err, gzip.ErrChecksum):
		return "the decompressed data fails the stream's checksum: the file is corrupt"
	default:
		return e.Error()
	}
}

// blockReader reads a chain export, the concatenated RLP of blocks as
// 'geth export' writes it, one block at a time, without loading the file.
type blockReader struct {
	r      *bufio.Reader
	limit  int
	offset int64 // bytes of RLP read so far
	index  int   // blocks read so far
}

// gzipMagic starts every gzip stream.
var gzipMagic = []byte{0x1f, 0x8b}

// openChainStream returns a reader of the RLP in src, decompressing it when
// it starts with gzip's magic bytes (whatever the file is called), and
// whether it did.
func openChainStream(src io.Reader) (io.Reader, bool, error) {
	br := bufio.NewReaderSize(src, 1<<20)
	head, err := br.Peek(len(gzipMagic))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	if len(head) == len(gzipMagic) && head[0] == gzipMagic[0] && head[1] == gzipMagic[1] {
		zr, err := newGzipReader(br)
		if err != nil {
			return nil, true, fmt.Errorf("gzip: %w", err)
		}
		return zr, true, nil
	}
	return br, false, nil
}

// newBlockReader returns a reader of the RLP items of r, each at most limit
// bytes long.
func newBlockReader(r io.Reader, limit int) *blockReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 1<<20)
	}
	return &blockReader{r: br, limit: limit}
}

// Append reads the next block and appends its whole encoding (header and
// content) to dst; it returns the extended slice and the offset of the
// block's first byte in the stream. At the end of the input it returns
// io.EOF; an input that ends inside a block, or that holds something other
// than RLP lists, is a *framingError. On error dst is returned unchanged.
func (b *blockReader) Append(dst []byte) (out []byte, offset int64, err error) {
	offset = b.offset
	// The header tells the block's size; it is at most maxHeaderSize bytes
	// long, fewer at the end of the input.
	hdr, peekErr := b.r.Peek(maxHeaderSize)
	if len(hdr) == 0 {
		if errors.Is(peekErr, io.EOF) {
			return dst, offset, io.EOF
		}
		return dst, offset, b.readError(peekErr)
	}
	kind, hdrLen, size, err := rlpstream.ReadHeader(hdr)
	if kind != rlpstream.List {
		return dst, offset, b.frameErr(errNotChain, "byte 0x%02x starts %s", hdr[0], kindName[kind])
	}
	switch {
	case errors.Is(err, rlpstream.ErrUnexpectedEnd):
		return dst, offset, b.endError(peekErr, "the file ends inside the block's RLP header")
	case err != nil: // ErrNonCanonicalSize, the other fault a header can have
		return dst, offset, b.frameErr(errBadSize, "the list length has a leading zero byte, or is under 56 in the long form")
	}
	if size > uint64(b.limit) {
		return dst, offset, b.frameErr(errBlockTooLarge, "the RLP list claims %d bytes, over the limit of %d", size, b.limit)
	}
	total := hdrLen + int(size)
	start := len(dst)
	out = slices.Grow(dst, total)[:start+total]
	copy(out[start:], hdr[:hdrLen])
	_, _ = b.r.Discard(hdrLen) // buffered: Peek returned it
	n, err := io.ReadFull(b.r, out[start+hdrLen:])
	if err != nil {
		return dst, offset, b.endError(err, fmt.Sprintf("the block's RLP list claims %d bytes of content, the file ends after %d", size, n))
	}
	b.offset += int64(total)
	b.index++
	return out, offset, nil
}

// maxHeaderSize is the size of the longest RLP header: a byte that says how
// long the length is, and a length of up to 8 bytes.
const maxHeaderSize = 9

// kindName names what a first byte that is not a list's starts.
var kindName = [...]string{rlpstream.Byte: "a single RLP byte", rlpstream.String: "an RLP string"}

// frameErr returns a *framingError at the current item.
func (b *blockReader) frameErr(err error, format string, args ...any) error {
	return &framingError{Index: b.index, Offset: b.offset, Err: err, Detail: fmt.Sprintf(format, args...)}
}

// endError turns an early end of input into errTruncated and any other read
// error into what readError makes of it.
func (b *blockReader) endError(err error, detail string) error {
	var gz *gzipStreamError
	if !errors.As(err, &gz) && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)) {
		return b.frameErr(errTruncated, "%s", detail)
	}
	return b.readError(err)
}

// readError wraps a read error with where it happened: errGzip for a broken
// gzip stream, errRead for anything else.
func (b *blockReader) readError(err error) error {
	var gz *gzipStreamError
	if errors.As(err, &gz) {
		return &framingError{Index: b.index, Offset: b.offset, Err: errGzip, Detail: gz.describe(), cause: err}
	}
	return &framingError{Index: b.index, Offset: b.offset, Err: errRead, Detail: err.Error(), cause: err}
}

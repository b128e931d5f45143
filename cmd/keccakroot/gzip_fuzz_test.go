package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"slices"
	"testing"
	"testing/iotest"
)

// FuzzGzipChainStream reads inputs that start as gzip does through the
// chain reader's decompression, read half a buffer at a time, and checks it
// against compress/gzip's own multistream reader: the same bytes whenever
// gzip reads the whole input without error, an error (a *gzipStreamError)
// whenever gzip has one, and no other outcome.
func FuzzGzipChainStream(f *testing.F) {
	one := gzipBytes(f, []byte("a chain export, compressed"))
	two := slices.Concat(one, gzipBytes(f, []byte(" and a second member")))
	f.Add(one)
	f.Add(two)
	f.Add(slices.Concat(one, []byte{1, 2, 3}))
	f.Add(slices.Concat(one, []byte("garbage after the stream")))
	f.Add(slices.Concat(one, one[:5]))
	f.Add(slices.Concat(one, []byte{0x1f}))
	f.Add(one[:len(one)-4])
	f.Add(gzipBytes(f, nil))
	f.Fuzz(func(t *testing.T, in []byte) {
		if !bytes.HasPrefix(in, gzipMagic) {
			return
		}
		var want []byte
		var wantErr error
		if zr, err := gzip.NewReader(bytes.NewReader(in)); err != nil {
			wantErr = err
		} else {
			want, wantErr = io.ReadAll(zr)
		}
		r, gz, err := openChainStream(iotest.HalfReader(bytes.NewReader(in)))
		if !gz {
			t.Fatalf("gzip input %x not read as gzip", in)
		}
		var got []byte
		if err == nil {
			got, err = io.ReadAll(r)
		}
		switch {
		case wantErr == nil && err != nil:
			t.Fatalf("%x: error %v, where compress/gzip reads %x", in, err, want)
		case wantErr == nil && !bytes.Equal(got, want):
			t.Fatalf("%x: read %x, compress/gzip reads %x", in, got, want)
		case wantErr != nil && err == nil:
			t.Fatalf("%x: read %x without error, where compress/gzip fails: %v", in, got, wantErr)
		case err != nil && !errors.As(err, new(*gzipStreamError)) && !errors.Is(err, gzip.ErrHeader) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, gzip.ErrChecksum):
			t.Fatalf("%x: error %v (%T) is not a gzip stream error", in, err, err)
		}
	})
}

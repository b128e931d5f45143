package rlpstream

// readItemHeader parses the header of the item at the start of b and returns
// its kind, the size of the header (tag) and the size of the content. It
// checks that the header is canonical and that tag+size <= len(b), so the
// caller may slice b[tag:tag+size] without further checks. Errors are bare
// sentinels; the caller adds the offset.
//
// It is the one header parser of the package's readers. Its rules for the
// one-byte headers of most items are shortString and shortList, which the
// readers' loops also call directly for their fast paths, where the compiler
// inlines them; the long forms and the errors are readOtherHeader's, which
// parses the header with parseHeader, as ReadHeader does.
func readItemHeader(b []byte) (k Kind, tag, size int, err error) {
	if len(b) > 0 {
		switch c := b[0]; {
		case c < 0x80:
			return Byte, 0, 1, nil
		case c < 0xb8:
			if size, ok := shortString(b); ok {
				return String, 1, size, nil
			}
		case c >= 0xc0 && c < 0xf8:
			if size, ok := shortList(b); ok {
				return List, 1, size, nil
			}
		}
	}
	return readOtherHeader(b)
}

// shortString returns the content size of the short string whose header,
// 0x80 to 0xb7, is b[0], and whether it is canonical (not a single byte
// below 0x80 in a header) and fits in b.
func shortString(b []byte) (size int, ok bool) {
	size = int(b[0] - 0x80)
	return size, size < len(b) && (size != 1 || b[1] >= 0x80)
}

// shortList returns the content size of the short list whose header, 0xc0
// to 0xf7, is b[0], and whether it fits in b.
func shortList(b []byte) (size int, ok bool) {
	size = int(b[0] - 0xc0)
	return size, size < len(b)
}

// readOtherHeader is readItemHeader for every header that shortString and
// shortList do not accept: the long forms and the errors. It parses the
// header as ReadHeader does and adds the rules that need the content: that
// it fits in b, and that a one-byte string is not a byte below 0x80.
func readOtherHeader(b []byte) (k Kind, tag, size int, err error) {
	k, tag, n, err := parseHeader(b)
	switch {
	case err != nil:
		return 0, 0, 0, err
	case n > uint64(len(b)-tag):
		return 0, 0, 0, ErrValueTooLarge
	case k == String && tag == 1 && n == 1 && b[1] < 0x80:
		return 0, 0, 0, ErrNonCanonicalSize // a single byte below 0x80 in a header
	}
	return k, tag, int(n), nil
}

// ReadHeader parses the header of the RLP item at the start of b and returns
// the item's kind, the size of its header and the size of its content. b
// need hold no more than the header (at most 9 bytes), so that a reader of a
// stream can learn how many bytes an item takes before it reads them; a Byte
// item is its own header, of size 0, with a content of 1 byte.
//
// ReadHeader applies the rules that the header alone decides: it is complete
// (ErrUnexpectedEnd) and a long-form length has no leading zero byte and is
// 56 or more (ErrNonCanonicalSize). What needs the content is left to Split,
// Validate and Iterator: that it is all there, and that a one-byte string is
// not a byte below 0x80 that must stand for itself. The error is an
// *OffsetError at offset 0; when b is not empty, k is the kind that b[0]
// announces even then, so that a stream reader can reject an item of the
// wrong kind before it has its whole header.
func ReadHeader(b []byte) (k Kind, headerSize int, contentSize uint64, err error) {
	k, headerSize, contentSize, err = parseHeader(b)
	if err != nil {
		return k, 0, 0, errAt(err, 0)
	}
	return k, headerSize, contentSize, nil
}

// parseHeader is ReadHeader with a bare sentinel error: the one parser of
// the header alone, under both ReadHeader and readOtherHeader.
func parseHeader(b []byte) (k Kind, tag int, size uint64, err error) {
	if len(b) == 0 {
		return 0, 0, 0, ErrUnexpectedEnd
	}
	switch c := b[0]; {
	case c < 0x80:
		return Byte, 0, 1, nil
	case c < 0xb8:
		return String, 1, uint64(c - 0x80), nil
	case c < 0xc0:
		return readLongHeader(b, String, c-0xb7)
	case c < 0xf8:
		return List, 1, uint64(c - 0xc0), nil
	default:
		return readLongHeader(b, List, c-0xf7)
	}
}

// readLongHeader parses a long-form header whose length field is n (1 to 8)
// bytes long. The length must have no leading zero byte and be at least 56,
// otherwise the short form was required. The size is returned as a uint64,
// so that one that would overflow an int on a 32-bit platform is compared
// against the input rather than wrapping. On error k is still returned (see
// ReadHeader).
func readLongHeader(b []byte, k Kind, n byte) (Kind, int, uint64, error) {
	tag := 1 + int(n)
	if tag > len(b) {
		return k, 0, 0, ErrUnexpectedEnd
	}
	if b[1] == 0 {
		return k, 0, 0, ErrNonCanonicalSize
	}
	var s uint64
	for _, c := range b[1:tag] {
		s = s<<8 | uint64(c)
	}
	if s < 56 {
		return k, 0, 0, ErrNonCanonicalSize
	}
	return k, tag, s, nil
}

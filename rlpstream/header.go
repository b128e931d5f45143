package rlpstream

// readHeader parses the header of the item at the start of b and returns its
// kind, the size of the header (tag) and the size of the content. It checks
// that the header is canonical and that tag+size <= len(b), so the caller may
// slice b[tag:tag+size] without further checks. Errors are bare sentinels;
// the caller adds the offset.
//
// It is the one header parser of the package. Its rules for the one-byte
// headers of most items are shortString and shortList, which the readers'
// loops also call directly for their fast paths, where the compiler inlines
// them; the long forms and the errors are readOtherHeader's.
func readHeader(b []byte) (k Kind, tag, size int, err error) {
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

// readOtherHeader is readHeader for every header that shortString and
// shortList do not accept: the long forms and the errors.
func readOtherHeader(b []byte) (k Kind, tag, size int, err error) {
	if len(b) == 0 {
		return 0, 0, 0, ErrUnexpectedEnd
	}
	switch c := b[0]; {
	case c < 0xb8:
		if int(c-0x80) >= len(b) {
			return 0, 0, 0, ErrValueTooLarge
		}
		return 0, 0, 0, ErrNonCanonicalSize // a single byte below 0x80 in a header
	case c < 0xc0:
		return readLongHeader(b, String, c-0xb7)
	case c < 0xf8:
		return 0, 0, 0, ErrValueTooLarge
	default:
		return readLongHeader(b, List, c-0xf7)
	}
}

// readLongHeader parses a long-form header whose length field is n (1 to 8)
// bytes long. The length must have no leading zero byte and be at least 56,
// otherwise the short form was required. Sizes are compared as uint64 against
// the bytes left in b, so a size that would overflow an int on a 32-bit
// platform is reported as too large rather than wrapping.
func readLongHeader(b []byte, k Kind, n byte) (Kind, int, int, error) {
	tag := 1 + int(n)
	if tag > len(b) {
		return 0, 0, 0, ErrUnexpectedEnd
	}
	if b[1] == 0 {
		return 0, 0, 0, ErrNonCanonicalSize
	}
	var s uint64
	for _, c := range b[1:tag] {
		s = s<<8 | uint64(c)
	}
	if s < 56 {
		return 0, 0, 0, ErrNonCanonicalSize
	}
	if s > uint64(len(b)-tag) {
		return 0, 0, 0, ErrValueTooLarge
	}
	return k, tag, int(s), nil
}

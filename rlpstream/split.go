package rlpstream

// Kind is the kind of an RLP item.
type Kind uint8

// The three kinds of RLP item. Byte is a single byte below 0x80, which is its
// own encoding; String is any other byte string, written with a header; List
// is a sequence of items.
const (
	Byte Kind = iota
	String
	List
)

// String returns the name of the kind, for messages and tests.
func (k Kind) String() string {
	switch k {
	case Byte:
		return "Byte"
	case String:
		return "String"
	case List:
		return "List"
	default:
		return "Kind(invalid)"
	}
}

// Split reads the item at the start of b and returns its kind, its content
// and the bytes after it. The content of a Byte item is the byte itself; that
// of a String its bytes; that of a List the concatenated encodings of its
// elements, which Split does not look into (Validate does). The returned
// slices alias b: nothing is copied.
//
// Split enforces the canonical rules of the header (see Validate) and that
// the content fits in b. On error it returns b as rest and an *OffsetError
// wrapping one of ErrUnexpectedEnd, ErrNonCanonicalSize or ErrValueTooLarge.
func Split(b []byte) (k Kind, content, rest []byte, err error) {
	// Fast paths for the short forms, which are most items; anything
	// unusual, errors included, goes through readHeader.
	if len(b) > 0 {
		switch c := b[0]; {
		case c < 0x80:
			return Byte, b[:1], b[1:], nil
		case c < 0xb8:
			if end := 1 + int(c-0x80); end <= len(b) && (end != 2 || b[1] >= 0x80) {
				return String, b[1:end], b[end:], nil
			}
		case c >= 0xc0 && c < 0xf8:
			if end := 1 + int(c-0xc0); end <= len(b) {
				return List, b[1:end], b[end:], nil
			}
		}
	}
	k, tag, size, err := readHeader(b)
	if err != nil {
		return 0, nil, b, errAt(err, 0)
	}
	end := tag + size
	return k, b[tag:end], b[end:], nil
}

// SplitList is Split for a caller that requires a list: it returns the list's
// content and the bytes after it, or an error wrapping ErrExpectedList if the
// item at the start of b is a byte or a string.
func SplitList(b []byte) (content, rest []byte, err error) {
	k, content, rest, err := Split(b)
	if err != nil {
		return nil, b, err
	}
	if k != List {
		return nil, b, errAt(ErrExpectedList, 0)
	}
	return content, rest, nil
}

// readHeader parses the header of the item at the start of b and returns its
// kind, the size of the header (tag) and the size of the content. It checks
// that the header is canonical and that tag+size <= len(b), so the caller may
// slice b[tag:tag+size] without further checks. Errors are bare sentinels;
// the caller adds the offset.
func readHeader(b []byte) (k Kind, tag, size int, err error) {
	if len(b) == 0 {
		return 0, 0, 0, ErrUnexpectedEnd
	}
	switch c := b[0]; {
	case c < 0x80:
		return Byte, 0, 1, nil
	case c < 0xb8:
		size = int(c - 0x80)
		if size >= len(b) {
			return 0, 0, 0, ErrValueTooLarge
		}
		if size == 1 && b[1] < 0x80 {
			return 0, 0, 0, ErrNonCanonicalSize
		}
		return String, 1, size, nil
	case c < 0xc0:
		return readLongHeader(b, String, c-0xb7)
	case c < 0xf8:
		size = int(c - 0xc0)
		if size >= len(b) {
			return 0, 0, 0, ErrValueTooLarge
		}
		return List, 1, size, nil
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

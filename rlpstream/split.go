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
	// unusual, errors included, goes through readOtherHeader.
	if len(b) > 0 {
		switch c := b[0]; {
		case c < 0x80:
			return Byte, b[:1], b[1:], nil
		case c < 0xb8:
			if size, ok := shortString(b); ok {
				return String, b[1 : 1+size], b[1+size:], nil
			}
		case c >= 0xc0 && c < 0xf8:
			if size, ok := shortList(b); ok {
				return List, b[1 : 1+size], b[1+size:], nil
			}
		}
	}
	k, tag, size, err := readOtherHeader(b)
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

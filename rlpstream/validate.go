package rlpstream

// Validate reports whether b holds exactly one canonical RLP item and nothing
// after it. It walks into every list, at any depth, and applies to each item
// the rules go-ethereum's decoder enforces:
//
//   - a single byte below 0x80 is its own encoding and is never wrapped in a
//     one-byte string header (ErrNonCanonicalSize);
//   - a long-form length has no leading zero byte and is 56 or more, so that
//     every size has exactly one encoding (ErrNonCanonicalSize);
//   - a header is complete (ErrUnexpectedEnd) and its content fits in the
//     input and in the enclosing list (ErrValueTooLarge);
//   - nothing follows the item (ErrTrailingData).
//
// Validate does not allocate unless it fails, reads nothing outside b and
// uses memory proportional to the nesting it actually finds, never to a size
// that a header claims. The error is an *OffsetError whose offset is that of
// the first offending header from the start of b.
func Validate(b []byte) error {
	k, tag, size, err := readItemHeader(b)
	if err != nil {
		return errAt(err, 0)
	}
	end := tag + size
	if k == List && size > 0 {
		if err := validateItems(b[tag:end], tag); err != nil {
			return err
		}
	}
	if end != len(b) {
		return errAt(ErrTrailingData, end)
	}
	return nil
}

// maxOpen is how many enclosing lists validateItems tracks on its own stack
// before it recurses; it bounds the stack frame while keeping recursion rare.
const maxOpen = 32

// validateItems checks that b is a sequence of zero or more canonical items
// that exactly fills it, descending into lists. base is the offset of b in the
// caller's input, for error reports.
//
// It walks the bytes front to back and keeps the end offsets of the lists it
// is inside on a small fixed stack, so the common case is one flat loop with
// no recursion and no allocation.
func validateItems(b []byte, base int) error {
	var stack [maxOpen]int
	open := stack[:0] // ends of the enclosing lists, innermost last
	end := len(b)     // end of the innermost open list (or of b)
	pos := 0
	for {
		for pos == end {
			n := len(open)
			if n == 0 {
				return nil
			}
			end = open[n-1]
			open = open[:n-1]
		}
		// Slicing to end keeps every read inside the list.
		// Fast paths for the items that dominate real data: single bytes and
		// short strings.
		cur := b[pos:end]
		if c := cur[0]; c < 0x80 {
			pos++
			continue
		} else if c < 0xb8 {
			if size, ok := shortString(cur); ok {
				pos += 1 + size
				continue
			}
		}
		k, tag, size, err := readItemHeader(cur)
		if err != nil {
			return errAt(err, base+pos)
		}
		if k != List || size == 0 {
			pos += tag + size
			continue
		}
		if len(open) == cap(open) {
			// Deeper than the fixed stack: validate this list's content in
			// a fresh frame and carry on after it.
			if err := validateItems(cur[tag:tag+size], base+pos+tag); err != nil {
				return err
			}
			pos += tag + size
			continue
		}
		open = append(open, end) // within capacity: never allocates
		end = pos + tag + size
		pos += tag
	}
}

// CountValues returns the number of items in b, a sequence of encoded items
// such as the content of a list returned by Split. Each item's header is
// checked as Split checks it; the content of nested lists is not looked into.
// On error it returns the number of items read before the bad one, where
// go-ethereum's rlp.CountValues counts the bad one too.
func CountValues(b []byte) (int, error) {
	n, pos := 0, 0
	for pos < len(b) {
		_, tag, size, err := readItemHeader(b[pos:])
		if err != nil {
			return n, errAt(err, pos)
		}
		pos += tag + size
		n++
	}
	return n, nil
}

package rlpstream

// Iterator walks the items of a list one by one without copying: the content
// and raw encoding of each item alias the input. Each item's header is checked
// as Split checks it, but the content of nested lists is only checked when the
// caller walks into it (or calls Validate first).
//
//	it := rlpstream.NewIterator(content)
//	for it.Next() {
//		use(it.Kind(), it.Content())
//	}
//	if err := it.Err(); err != nil { ... }
//
// The zero Iterator has no items.
type Iterator struct {
	rest    []byte // items not yet read
	off     int    // offset of rest in the caller's input, for errors
	kind    Kind
	content []byte
	raw     []byte
	err     error
}

// NewIterator returns an iterator over content, a sequence of encoded items
// such as the content of a list returned by Split. Offsets, of items and of
// errors, count from the start of content.
func NewIterator(content []byte) Iterator {
	return Iterator{rest: content}
}

// NewIteratorAt is NewIterator for content that starts at offset in a larger
// input, such as a list's content inside a block: offsets, of items and of
// errors, count from the start of that input.
func NewIteratorAt(content []byte, offset int) Iterator {
	return Iterator{rest: content, off: offset}
}

// NewListIterator returns an iterator over the elements of list, which must
// hold exactly one list item and nothing after it. Offsets, of items and of
// errors, count from the start of list.
func NewListIterator(list []byte) (Iterator, error) {
	k, tag, size, err := readItemHeader(list)
	if err != nil {
		return Iterator{}, errAt(err, 0)
	}
	if k != List {
		return Iterator{}, errAt(ErrExpectedList, 0)
	}
	if end := tag + size; end != len(list) {
		return Iterator{}, errAt(ErrTrailingData, end)
	}
	return Iterator{rest: list[tag:], off: tag}, nil
}

// Next moves to the next item and reports whether there is one. It returns
// false at the end of the list and on a malformed item; Err tells which.
func (it *Iterator) Next() bool {
	if len(it.rest) == 0 {
		it.kind, it.content, it.raw = 0, nil, nil
		return false
	}
	k, tag, size, err := readItemHeader(it.rest)
	if err != nil {
		it.err = errAt(err, it.off)
		it.rest = nil
		it.kind, it.content, it.raw = 0, nil, nil
		return false
	}
	end := tag + size
	it.kind = k
	it.content = it.rest[tag:end]
	it.raw = it.rest[:end]
	it.rest = it.rest[end:]
	it.off += end
	return true
}

// Kind returns the kind of the current item.
func (it *Iterator) Kind() Kind { return it.kind }

// Content returns the content of the current item: the byte of a Byte item,
// the bytes of a String, the encoded elements of a List.
func (it *Iterator) Content() []byte { return it.content }

// Offset returns the offset of the current item's header in the input the
// iterator was made for (see NewIteratorAt), the offset its errors would
// carry. After Next has returned false it is the offset where the iteration
// stopped.
func (it *Iterator) Offset() int { return it.off - len(it.raw) }

// Raw returns the whole encoding of the current item, header included, for a
// caller that passes items on unchanged (see Writer.WriteRaw).
func (it *Iterator) Raw() []byte { return it.raw }

// Err returns the error that stopped the iteration, or nil if it reached the
// end of the list or has not stopped yet.
func (it *Iterator) Err() error { return it.err }

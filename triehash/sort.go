package triehash

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// sortEntry is a key's 4-byte big-endian prefix (zero-padded) and its
// position in the caller's slices.
type sortEntry struct {
	prefix uint32
	index  uint32
}

// radixThreshold is the size below which a comparison sort wins.
const radixThreshold = 256

// sortedOrder sorts order, a list of indices into keys, into ascending key
// order and returns it; a nil order stands for all of keys.
//
// Root and SecureRoot spend a large part of their time here for big inputs,
// so it avoids a comparison sort over scattered key slices: a least
// significant digit radix sort orders small (prefix, index) pairs by the
// first four key bytes, touching each key once, and only runs of equal
// prefixes (rare for hashed keys) are then sorted by full comparison. The
// zero padding keeps prefix order consistent with byte order: a key that is
// a proper prefix of another never gets the larger prefix.
func sortedOrder(keys [][]byte, order []int) []int {
	if order == nil {
		order = make([]int, len(keys))
		for i := range order {
			order[i] = i
		}
	}
	entries := make([]sortEntry, len(order))
	for j, i := range order {
		entries[j] = sortEntry{prefix: keyPrefix(keys[i]), index: uint32(i)}
	}
	if len(entries) < radixThreshold {
		slices.SortFunc(entries, func(a, b sortEntry) int { return compareEntries(keys, a, b) })
	} else {
		radixSortByPrefix(entries)
		for start := 0; start < len(entries); {
			end := start + 1
			for end < len(entries) && entries[end].prefix == entries[start].prefix {
				end++
			}
			if end-start > 1 {
				slices.SortFunc(entries[start:end], func(a, b sortEntry) int { return compareEntries(keys, a, b) })
			}
			start = end
		}
	}
	for j, e := range entries {
		order[j] = int(e.index)
	}
	return order
}

func compareEntries(keys [][]byte, a, b sortEntry) int {
	if a.prefix != b.prefix {
		if a.prefix < b.prefix {
			return -1
		}
		return 1
	}
	return bytes.Compare(keys[a.index], keys[b.index])
}

// keyPrefix returns the first four bytes of k, big-endian, zero-padded.
func keyPrefix(k []byte) uint32 {
	if len(k) >= 4 {
		return binary.BigEndian.Uint32(k)
	}
	var p [4]byte
	copy(p[:], k)
	return binary.BigEndian.Uint32(p[:])
}

// radixSortByPrefix sorts entries by prefix, stably, one byte per pass from
// the least significant, skipping bytes on which all entries agree.
func radixSortByPrefix(entries []sortEntry) {
	tmp := make([]sortEntry, len(entries))
	src, dst := entries, tmp
	for shift := 0; shift < 32; shift += 8 {
		var count [256]int
		for _, e := range src {
			count[byte(e.prefix>>shift)]++
		}
		if count[byte(src[0].prefix>>shift)] == len(src) {
			continue // every entry has the same byte here
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, e := range src {
			d := byte(e.prefix >> shift)
			dst[count[d]] = e
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &entries[0] {
		copy(entries, src)
	}
}

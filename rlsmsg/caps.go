package rlsmsg

import "strconv"

// Caps bound the size of the requests a RequestDecoder decodes: a request
// over one is refused with a *CapError as soon as decoding passes the cap,
// without decoding the rest. A field of 0 (or less) is no bound; the zero
// Caps bound nothing.
type Caps struct {
	// MaxDescriptors bounds the request's descriptors.
	MaxDescriptors int
	// MaxEntries bounds the entries of each descriptor.
	MaxEntries int
	// MaxKeyBytes bounds the bytes of the request's domain and of its
	// entries' keys and values, together; every occurrence of those fields
	// counts, a domain that occurs twice twice.
	MaxKeyBytes int
}

// Cap names one of the Caps.
type Cap int

// The Caps, as CapError.Cap.
const (
	// CapDescriptors is Caps.MaxDescriptors.
	CapDescriptors Cap = iota + 1
	// CapEntries is Caps.MaxEntries.
	CapEntries
	// CapKeyBytes is Caps.MaxKeyBytes.
	CapKeyBytes
)

var capNames = [...]string{CapDescriptors: "MaxDescriptors", CapEntries: "MaxEntries", CapKeyBytes: "MaxKeyBytes"}

// String returns the Caps field the cap is: "MaxDescriptors", "MaxEntries"
// or "MaxKeyBytes".
func (c Cap) String() string { return enumName(capNames[:], int64(c), "Cap") }

// CapError is a request over one of a RequestDecoder's Caps.
type CapError struct {
	// Cap is the cap the request is over.
	Cap Cap
	// Descriptor is the index of the descriptor with too many entries
	// (CapEntries); -1 for the other caps.
	Descriptor int
	// Max is the cap.
	Max int
	// Got is the request's figure for Cap, counted over the whole input
	// (the fields after a malformed one, if any, are not counted): its
	// descriptors, the descriptor's entries, or its domain's and entries'
	// bytes.
	Got int
}

// Error returns, for instance, "rlsmsg: RateLimitRequest.descriptors:
// 1025, over the cap of 1024 (MaxDescriptors)".
func (e *CapError) Error() string {
	return "rlsmsg: RateLimitRequest." + e.Field() + ": " + strconv.Itoa(e.Got) +
		", over the cap of " + strconv.Itoa(e.Max) + " (" + e.Cap.String() + ")"
}

// Field is where the request is over the cap, as a path from the request:
// "descriptors", "descriptors[3].entries", or "domain and entries" (the
// bytes of the keys and values).
func (e *CapError) Field() string {
	switch e.Cap {
	case CapDescriptors:
		return "descriptors"
	case CapEntries:
		return "descriptors[" + strconv.Itoa(e.Descriptor) + "].entries"
	}
	return "domain and entries"
}

// overCap returns the CapError of cap over max in b, the whole request,
// its figure measured; desc is the descriptor for CapEntries.
func overCap(b []byte, c Cap, max, desc int) *CapError {
	e := &CapError{Cap: c, Descriptor: -1, Max: max}
	if c == CapEntries {
		e.Descriptor = desc
	}
	e.Got = measure(b, c, desc)
	return e
}

// measure counts, in the encoded RateLimitRequest b, the descriptors, the
// entries of descriptor desc, or the bytes of the domain and the entries'
// keys and values, reading the fields' tags and lengths only (no copy, no
// UTF-8 check), up to the end of b or the first malformed field.
func measure(b []byte, c Cap, desc int) int {
	n, i := 0, 0
	rd := fieldReader{b: b}
	rd.each(func(f Field) error {
		switch {
		case f.Num == reqDomain && f.Type == WireBytes:
			if c == CapKeyBytes {
				n += len(f.Bytes)
			}
		case f.Num == reqDescriptors && f.Type == WireBytes:
			switch {
			case c == CapDescriptors:
				n++
			case c == CapEntries && i == desc:
				n = measureEntries(f.Bytes, false)
			case c == CapKeyBytes:
				n += measureEntries(f.Bytes, true)
			}
			i++
		}
		return nil
	})
	return n
}

// measureEntries counts the entries of the encoded RateLimitDescriptor b,
// or with keyBytes the bytes of their keys and values.
func measureEntries(b []byte, keyBytes bool) int {
	n := 0
	rd := fieldReader{b: b}
	rd.each(func(f Field) error {
		if f.Num != descEntries || f.Type != WireBytes {
			return nil
		}
		if !keyBytes {
			n++
			return nil
		}
		entry := fieldReader{b: f.Bytes}
		entry.each(func(f Field) error {
			if (f.Num == pairKey || f.Num == pairValue) && f.Type == WireBytes {
				n += len(f.Bytes)
			}
			return nil
		})
		return nil
	})
	return n
}

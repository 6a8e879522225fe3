package rlsmsg

import (
	"encoding/binary"
	"math"
	"unicode/utf8"
)

// Field is one field of an encoded message, as EachField reads it.
type Field struct {
	// Num is the field number.
	Num int
	// Type is the wire type: never WireStartGroup or WireEndGroup.
	Type WireType
	// Uint is the value of a WireVarint, WireFixed32 or WireFixed64 field.
	Uint uint64
	// Bytes is the value of a WireBytes field, a slice of the message
	// (its capacity ends with it).
	Bytes []byte
}

// EachField calls fn with each field of the encoded protobuf message b, in
// order, and returns the first error, fn's or the message's: what
// proto.Unmarshal refuses in any message (a truncated field, a varint over
// 10 bytes or 64 bits, a field number out of range, an invalid wire type,
// a misplaced end of group). It skips groups whole (no message of the
// exchange has one), nested up to MaxDepth+1 deep as protobuf-go allows.
// f.Bytes is a slice of b.
func EachField(b []byte, fn func(f Field) error) error {
	r := fieldReader{b: b}
	return r.each(fn)
}

// fieldReader reads the fields of one encoded message.
type fieldReader struct {
	b   []byte
	s   string // string(b), or empty when there is none to take substrings of
	off int
}

// each calls fn with each field, as EachField does.
func (r *fieldReader) each(fn func(f Field) error) error {
	var f Field
	for {
		ok, err := r.next(&f)
		if err != nil || !ok {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
	}
}

// next reads the next field into f and reports whether there was one: it
// returns false and a nil error at the end of the message.
func (r *fieldReader) next(f *Field) (bool, error) {
	for r.off < len(r.b) {
		tag, err := r.varint()
		if err != nil {
			return false, &wireError{err: err}
		}
		num := tag >> 3
		if num == 0 || num > maxFieldNumber {
			return false, &wireError{err: errFieldNumber}
		}
		f.Num, f.Type = int(num), WireType(tag&7)
		if f.Type == WireStartGroup {
			err = r.skipGroup(num, MaxDepth)
		} else {
			err = r.value(f)
		}
		if err != nil {
			return false, &wireError{num: num, err: err}
		}
		if f.Type != WireStartGroup {
			return true, nil
		}
	}
	return false, nil
}

// varint reads a varint as protobuf-go does: at most 10 bytes, the tenth 0
// or 1.
func (r *fieldReader) varint() (uint64, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		if r.off >= len(r.b) {
			return 0, errTruncated
		}
		c := r.b[r.off]
		r.off++
		if i == 9 && c > 1 {
			return 0, errOverflow
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errOverflow // not reached: the tenth byte ends the varint
}

// value reads the value of a field of type f.Type, other than a group.
func (r *fieldReader) value(f *Field) error {
	var err error
	f.Uint, f.Bytes = 0, nil
	switch f.Type {
	case WireVarint:
		f.Uint, err = r.varint()
	case WireFixed64:
		if len(r.b)-r.off < 8 {
			return errTruncated
		}
		f.Uint = binary.LittleEndian.Uint64(r.b[r.off:])
		r.off += 8
	case WireFixed32:
		if len(r.b)-r.off < 4 {
			return errTruncated
		}
		f.Uint = uint64(binary.LittleEndian.Uint32(r.b[r.off:]))
		r.off += 4
	case WireBytes:
		var n uint64
		if n, err = r.varint(); err == nil {
			if n > uint64(len(r.b)-r.off) {
				return errTruncated
			}
			end := r.off + int(n)
			f.Bytes = r.b[r.off:end:end]
			r.off = end
		}
	case WireEndGroup:
		return errEndGroup
	default:
		return errWireType
	}
	return err
}

// skipGroup reads the fields of group num up to its end, depth more
// groups being allowed inside it. As in protobuf-go, a field number inside
// a group may be anything from 1 to 2^31-1.
func (r *fieldReader) skipGroup(num uint64, depth int) error {
	if depth < 0 {
		return errDepth
	}
	var f Field
	for {
		tag, err := r.varint()
		if err != nil {
			return err
		}
		inner := tag >> 3
		if inner == 0 || inner > math.MaxInt32 {
			return errFieldNumber
		}
		switch f.Type = WireType(tag & 7); f.Type {
		case WireEndGroup:
			if inner != num {
				return errEndGroup
			}
			return nil
		case WireStartGroup:
			err = r.skipGroup(inner, depth-1)
		default:
			err = r.value(&f)
		}
		if err != nil {
			return err
		}
	}
}

// sub returns a reader of the message in the WireBytes field f just read.
func (r *fieldReader) sub(f *Field) fieldReader {
	sub := fieldReader{b: f.Bytes}
	if r.s != "" {
		sub.s = r.s[r.off-len(f.Bytes) : r.off]
	}
	return sub
}

// text returns the WireBytes field f just read as a string, which must be
// UTF-8: a substring of r's string when it has one, else a copy.
func (r *fieldReader) text(f *Field) (string, error) {
	if !utf8.Valid(f.Bytes) {
		return "", errUTF8
	}
	if r.s == "" {
		return string(f.Bytes), nil
	}
	return r.s[r.off-len(f.Bytes) : r.off], nil
}

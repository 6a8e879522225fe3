package rlswire

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// Wire types of the protobuf encoding.
const (
	wireVarint     = 0
	wireFixed64    = 1
	wireBytes      = 2
	wireStartGroup = 3
	wireEndGroup   = 4
	wireFixed32    = 5
)

// maxFieldNumber is the largest valid protobuf field number.
const maxFieldNumber = 1<<29 - 1

// maxDepth bounds the nesting of groups and messages a decoder follows, as protobuf-go does.
const maxDepth = 10000

var (
	errTruncated   = errors.New("rlswire: message truncated")
	errOverflow    = errors.New("rlswire: varint overflows 64 bits")
	errFieldNumber = errors.New("rlswire: invalid field number")
	errWireType    = errors.New("rlswire: invalid wire type")
	errGroup       = errors.New("rlswire: mismatched end of group")
	errUTF8        = errors.New("rlswire: string field is not valid UTF-8")
	errDepth       = errors.New("rlswire: message nested too deeply")
)

// appendVarint appends v in base-128 varint form.
func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// sizeVarint is the encoded length of v.
func sizeVarint(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// appendTag appends the key of field num with wire type typ.
func appendTag(b []byte, num int, typ int) []byte {
	return appendVarint(b, uint64(num)<<3|uint64(typ))
}

// sizeTag is the encoded length of the key of field num.
func sizeTag(num int) int { return sizeVarint(uint64(num) << 3) }

// appendStringField appends a length-delimited field; proto3 omits an empty one, so callers
// check for emptiness when the field is a scalar.
func appendStringField(b []byte, num int, s string) []byte {
	b = appendTag(b, num, wireBytes)
	b = appendVarint(b, uint64(len(s)))
	return append(b, s...)
}

// sizeStringField is the encoded length of a length-delimited field holding n bytes.
func sizeStringField(num, n int) int { return sizeTag(num) + sizeVarint(uint64(n)) + n }

// appendVarintField appends a varint field.
func appendVarintField(b []byte, num int, v uint64) []byte {
	return appendVarint(appendTag(b, num, wireVarint), v)
}

// sizeVarintField is the encoded length of a varint field.
func sizeVarintField(num int, v uint64) int { return sizeTag(num) + sizeVarint(v) }

// consumeVarint reads a varint from the start of b and returns it and its length.
func consumeVarint(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		if i >= len(b) {
			return 0, 0, errTruncated
		}
		c := b[i]
		if i == 9 && c > 1 {
			return 0, 0, errOverflow
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errOverflow
}

// field is one decoded field: its number, wire type, and its value as a varint (varint,
// fixed32, fixed64) or bytes (length-delimited).
type field struct {
	num   int
	typ   int
	u     uint64
	bytes []byte
}

// reader walks the fields of one message.
type reader struct {
	b     []byte
	depth int
}

// next reads the next field into f. It returns false at the end of the message. Groups are
// skipped: they are never a field this package reads.
func (r *reader) next(f *field) (bool, error) {
	for len(r.b) > 0 {
		tag, n, err := consumeVarint(r.b)
		if err != nil {
			return false, err
		}
		r.b = r.b[n:]
		num, typ := tag>>3, int(tag&7)
		if num == 0 || num > maxFieldNumber {
			return false, errFieldNumber
		}
		f.num, f.typ = int(num), typ
		switch typ {
		case wireVarint:
			v, n, err := consumeVarint(r.b)
			if err != nil {
				return false, err
			}
			f.u, r.b = v, r.b[n:]
		case wireFixed64:
			if len(r.b) < 8 {
				return false, errTruncated
			}
			f.u = le64(r.b)
			r.b = r.b[8:]
		case wireFixed32:
			if len(r.b) < 4 {
				return false, errTruncated
			}
			f.u = uint64(le32(r.b))
			r.b = r.b[4:]
		case wireBytes:
			l, n, err := consumeVarint(r.b)
			if err != nil {
				return false, err
			}
			r.b = r.b[n:]
			if l > uint64(len(r.b)) {
				return false, errTruncated
			}
			f.bytes, r.b = r.b[:l], r.b[l:]
		case wireStartGroup:
			if err := r.skipGroup(int(num), r.depth+1); err != nil {
				return false, err
			}
			continue
		case wireEndGroup:
			return false, errGroup
		default:
			return false, errWireType
		}
		return true, nil
	}
	return false, nil
}

// skipGroup consumes the fields of group num up to and including its end-group key.
func (r *reader) skipGroup(num, depth int) error {
	if depth > maxDepth {
		return errDepth
	}
	for {
		if len(r.b) == 0 {
			return errTruncated
		}
		tag, n, err := consumeVarint(r.b)
		if err != nil {
			return err
		}
		r.b = r.b[n:]
		fnum, typ := tag>>3, int(tag&7)
		if fnum == 0 || fnum > maxFieldNumber {
			return errFieldNumber
		}
		switch typ {
		case wireEndGroup:
			if int(fnum) != num {
				return errGroup
			}
			return nil
		case wireStartGroup:
			if err := r.skipGroup(int(fnum), depth+1); err != nil {
				return err
			}
		case wireVarint:
			_, n, err := consumeVarint(r.b)
			if err != nil {
				return err
			}
			r.b = r.b[n:]
		case wireFixed64:
			if len(r.b) < 8 {
				return errTruncated
			}
			r.b = r.b[8:]
		case wireFixed32:
			if len(r.b) < 4 {
				return errTruncated
			}
			r.b = r.b[4:]
		case wireBytes:
			l, n, err := consumeVarint(r.b)
			if err != nil {
				return err
			}
			r.b = r.b[n:]
			if l > uint64(len(r.b)) {
				return errTruncated
			}
			r.b = r.b[l:]
		default:
			return errWireType
		}
	}
}

// str returns a length-delimited field as a string, which must be valid UTF-8.
func (f *field) str(what string) (string, error) {
	if !utf8.Valid(f.bytes) {
		return "", errors.New(errUTF8.Error() + ": " + what + " (field " + strconv.Itoa(f.num) + ")")
	}
	return string(f.bytes), nil
}

// float64 returns a fixed64 field as a double.
func (f *field) float64() float64 { return math.Float64frombits(f.u) }

func le64(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

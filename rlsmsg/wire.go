package rlsmsg

// WireType is the wire type of an encoded protobuf field: how its value is
// laid out after its tag.
type WireType uint8

// The wire types of the protobuf encoding.
const (
	// WireVarint is a base-128 varint.
	WireVarint WireType = 0
	// WireFixed64 is 8 bytes, little-endian.
	WireFixed64 WireType = 1
	// WireBytes is a varint length, then that many bytes: strings, bytes
	// and messages.
	WireBytes WireType = 2
	// WireStartGroup starts a group (a deprecated way to nest messages).
	WireStartGroup WireType = 3
	// WireEndGroup ends a group.
	WireEndGroup WireType = 4
	// WireFixed32 is 4 bytes, little-endian.
	WireFixed32 WireType = 5
)

// maxFieldNumber is the largest field number a message may use.
const maxFieldNumber = 1<<29 - 1

// MaxDepth is how deeply messages may nest, the outermost one at depth 0:
// as with protobuf-go's proto.Unmarshal (its default recursion limit), a
// message at depth MaxDepth is refused.
const MaxDepth = 10000

// AppendVarint appends v in base-128 varint form.
func AppendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// SizeVarint returns the length of v in base-128 varint form: 1 to 10.
func SizeVarint(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// AppendTag appends the tag (key) of field num with wire type typ.
func AppendTag(b []byte, num int, typ WireType) []byte {
	return AppendVarint(b, uint64(num)<<3|uint64(typ))
}

// The proto3 rules for the fields below: a zero scalar and an empty string
// or bytes field are not written; an enum is its int32 sign-extended to 64
// bits; a present message is written even when empty.

func sizeTag(num int) int { return SizeVarint(uint64(num) << 3) }

func uintFieldSize(num int, v uint64) int {
	if v == 0 {
		return 0
	}
	return sizeTag(num) + SizeVarint(v)
}

func appendUintField(b []byte, num int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return AppendVarint(AppendTag(b, num, WireVarint), v)
}

func enumFieldSize(num int, v int32) int { return uintFieldSize(num, uint64(int64(v))) }

func appendEnumField(b []byte, num int, v int32) []byte {
	return appendUintField(b, num, uint64(int64(v)))
}

func boolFieldSize(num int, v bool) int {
	if !v {
		return 0
	}
	return sizeTag(num) + 1
}

func appendBoolField(b []byte, num int, v bool) []byte {
	if !v {
		return b
	}
	return append(AppendTag(b, num, WireVarint), 1)
}

// bytesFieldSize is the length of a string or bytes field of n bytes.
func bytesFieldSize(num, n int) int {
	if n == 0 {
		return 0
	}
	return messageFieldSize(num, n)
}

// appendBytesField appends a string or bytes field.
func appendBytesField[T string | []byte](b []byte, num int, v T) []byte {
	if len(v) == 0 {
		return b
	}
	b = AppendTag(b, num, WireBytes)
	b = AppendVarint(b, uint64(len(v)))
	return append(b, v...)
}

// messageFieldSize is the length of a message field whose content is n
// bytes long.
func messageFieldSize(num, n int) int { return sizeTag(num) + SizeVarint(uint64(n)) + n }

// appendMessageHeader appends the tag and length of a message field whose
// content is n bytes long.
func appendMessageHeader(b []byte, num, n int) []byte {
	return AppendVarint(AppendTag(b, num, WireBytes), uint64(n))
}

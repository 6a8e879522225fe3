package rlsmsg

import "google.golang.org/protobuf/encoding/protowire"

// Raw encodings, written with protowire, for what proto.Marshal never
// writes: fields out of order or repeated, unknown fields, wrong wire types
// and broken input.

func varintField(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
}

func bytesField(num protowire.Number, parts ...[]byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), cat(parts...))
}

func fixed32Field(num protowire.Number, v uint32) []byte {
	return protowire.AppendFixed32(protowire.AppendTag(nil, num, protowire.Fixed32Type), v)
}

func fixed64Field(num protowire.Number, v uint64) []byte {
	return protowire.AppendFixed64(protowire.AppendTag(nil, num, protowire.Fixed64Type), v)
}

func group(num protowire.Number, parts ...[]byte) []byte {
	b := protowire.AppendTag(nil, num, protowire.StartGroupType)
	b = append(b, cat(parts...)...)
	return protowire.AppendTag(b, num, protowire.EndGroupType)
}

// nestedGroups returns n groups of field num, one inside the other.
func nestedGroups(num protowire.Number, n int) []byte {
	var b []byte
	for range n {
		b = protowire.AppendTag(b, num, protowire.StartGroupType)
	}
	for range n {
		b = protowire.AppendTag(b, num, protowire.EndGroupType)
	}
	return b
}

func str(num protowire.Number, s string) []byte { return bytesField(num, []byte(s)) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

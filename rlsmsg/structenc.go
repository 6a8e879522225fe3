package rlsmsg

import (
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// AppendStruct appends fields encoded as a google.protobuf.Struct (the
// content of Response.DynamicMetadata) to b. Values are those of a JSON or
// YAML document: nil (null_value), bool, string (valid UTF-8), float64 and
// the integer types (number_value), []any (list_value) and map[string]any
// (struct_value). Keys are written in sorted order, so that the same fields
// always give the same bytes. Any other value, or a string that is not
// UTF-8, is an error naming its path, and nothing is appended.
func AppendStruct(b []byte, fields map[string]any) ([]byte, error) {
	out, err := appendStructFields(b, fields, "")
	if err != nil {
		return b, err
	}
	return out, nil
}

// Struct and Value field numbers (google/protobuf/struct.proto).
const (
	structFields     = 1 // map<string, Value>
	structEntryKey   = 1
	structEntryValue = 2
	valueNull        = 1 // NullValue
	valueNumber      = 2 // double
	valueString      = 3
	valueBool        = 4
	valueStruct      = 5
	valueList        = 6
	listValues       = 1 // repeated Value
)

func appendStructFields(b []byte, fields map[string]any, path string) ([]byte, error) {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !utf8.ValidString(k) {
			return b, fmt.Errorf("rlsmsg: struct key %q under %q is not UTF-8", k, path)
		}
		v, err := appendValue(nil, fields[k], path+"."+k)
		if err != nil {
			return b, err
		}
		entry := appendBytesOrEmpty(nil, structEntryKey, k)
		entry = append(appendMessageHeader(entry, structEntryValue, len(v)), v...)
		b = append(appendMessageHeader(b, structFields, len(entry)), entry...)
	}
	return b, nil
}

// appendValue appends the content of a google.protobuf.Value holding v.
func appendValue(b []byte, v any, path string) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(AppendTag(b, valueNull, WireVarint), 0), nil
	case bool:
		x := byte(0)
		if v {
			x = 1
		}
		return append(AppendTag(b, valueBool, WireVarint), x), nil
	case string:
		if !utf8.ValidString(v) {
			return b, fmt.Errorf("rlsmsg: struct value at %q is not UTF-8", path)
		}
		return appendBytesOrEmpty(b, valueString, v), nil
	case []any:
		var list []byte
		for i, e := range v {
			ev, err := appendValue(nil, e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return b, err
			}
			list = append(appendMessageHeader(list, listValues, len(ev)), ev...)
		}
		return append(appendMessageHeader(b, valueList, len(list)), list...), nil
	case map[string]any:
		st, err := appendStructFields(nil, v, path)
		if err != nil {
			return b, err
		}
		return append(appendMessageHeader(b, valueStruct, len(st)), st...), nil
	}
	f, ok := number(v)
	if !ok {
		return b, fmt.Errorf("rlsmsg: struct value at %q has type %T, not one of a JSON document", path, v)
	}
	b = AppendTag(b, valueNumber, WireFixed64)
	bits := math.Float64bits(f)
	for i := range 8 {
		b = append(b, byte(bits>>(8*i)))
	}
	return b, nil
}

// number returns v as a float64 when it is a number.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int8:
		return float64(v), true
	case int16:
		return float64(v), true
	case int32:
		return float64(v), true
	case int64:
		return float64(v), true
	case uint:
		return float64(v), true
	case uint8:
		return float64(v), true
	case uint16:
		return float64(v), true
	case uint32:
		return float64(v), true
	case uint64:
		return float64(v), true
	}
	return 0, false
}

// appendBytesOrEmpty appends a string field even when it is empty, as a
// oneof member or a map entry's key is written.
func appendBytesOrEmpty(b []byte, num int, v string) []byte {
	b = AppendTag(b, num, WireBytes)
	b = AppendVarint(b, uint64(len(v)))
	return append(b, v...)
}

package rlswire

import "math"

// Field numbers of the metadata messages.
const (
	metadataFilterMetadata = 1

	mapKey   = 1
	mapValue = 2

	structFields = 1

	valueNull   = 1
	valueNumber = 2
	valueString = 3
	valueBool   = 4
	valueStruct = 5
	valueList   = 6

	listValues = 1
)

// DecodeMetadata decodes an envoy.config.core.v3.Metadata into its filter_metadata: a map
// from namespace to struct, each struct a map[string]any whose values are nil (null),
// float64 (infinities and NaN included), string, bool, map[string]any or []any, as
// package descriptor's Metadata expects. typed_filter_metadata is not read. Empty input is
// empty metadata.
func DecodeMetadata(b []byte) (map[string]any, error) {
	md := make(map[string]any)
	r := reader{b: b}
	var f field
	for {
		ok, err := r.next(&f)
		if err != nil {
			return nil, err
		}
		if !ok {
			return md, nil
		}
		if f.num != metadataFilterMetadata || f.typ != wireBytes {
			continue
		}
		key, st, err := decodeStructEntry(f.bytes, 1)
		if err != nil {
			return nil, err
		}
		md[key] = st
	}
}

// decodeStructEntry decodes a map<string, Struct> entry; a missing value is an empty struct.
func decodeStructEntry(b []byte, depth int) (string, map[string]any, error) {
	var key string
	var st map[string]any
	r := reader{b: b}
	var f field
	for {
		ok, err := r.next(&f)
		if err != nil {
			return "", nil, err
		}
		if !ok {
			break
		}
		switch {
		case f.num == mapKey && f.typ == wireBytes:
			if key, err = f.str("map key"); err != nil {
				return "", nil, err
			}
		case f.num == mapValue && f.typ == wireBytes:
			if st == nil {
				st = make(map[string]any)
			}
			if err := decodeStruct(f.bytes, st, depth+1); err != nil {
				return "", nil, err
			}
		}
	}
	if st == nil {
		st = make(map[string]any)
	}
	return key, st, nil
}

// decodeStruct merges the fields of a google.protobuf.Struct into st.
func decodeStruct(b []byte, st map[string]any, depth int) error {
	if depth > maxDepth {
		return errDepth
	}
	r := reader{b: b}
	var f field
	for {
		ok, err := r.next(&f)
		if err != nil || !ok {
			return err
		}
		if f.num != structFields || f.typ != wireBytes {
			continue
		}
		if err := decodeValueEntry(f.bytes, st, depth+1); err != nil {
			return err
		}
	}
}

// decodeValueEntry decodes a map<string, Value> entry into st; a missing value is null.
func decodeValueEntry(b []byte, st map[string]any, depth int) error {
	var key string
	var v any
	r := reader{b: b}
	var f field
	for {
		ok, err := r.next(&f)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch {
		case f.num == mapKey && f.typ == wireBytes:
			if key, err = f.str("map key"); err != nil {
				return err
			}
		case f.num == mapValue && f.typ == wireBytes:
			if v, err = decodeValue(f.bytes, v, depth+1); err != nil {
				return err
			}
		}
	}
	st[key] = v
	return nil
}

// decodeValue decodes a google.protobuf.Value, merging into cur as protobuf merges a
// repeated message: the last kind wins, and a struct or list following one of its own kind
// extends it.
func decodeValue(b []byte, cur any, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errDepth
	}
	r := reader{b: b}
	var f field
	for {
		ok, err := r.next(&f)
		if err != nil {
			return nil, err
		}
		if !ok {
			return cur, nil
		}
		switch {
		case f.num == valueNull && f.typ == wireVarint:
			cur = nil
		case f.num == valueNumber && f.typ == wireFixed64:
			cur = math.Float64frombits(f.u)
		case f.num == valueString && f.typ == wireBytes:
			if cur, err = f.str("Value.string_value"); err != nil {
				return nil, err
			}
		case f.num == valueBool && f.typ == wireVarint:
			cur = f.u != 0
		case f.num == valueStruct && f.typ == wireBytes:
			st, isStruct := cur.(map[string]any)
			if !isStruct {
				st = make(map[string]any)
			}
			if err := decodeStruct(f.bytes, st, depth+1); err != nil {
				return nil, err
			}
			cur = st
		case f.num == valueList && f.typ == wireBytes:
			list, isList := cur.([]any)
			if !isList {
				list = []any{}
			}
			if list, err = decodeList(f.bytes, list, depth+1); err != nil {
				return nil, err
			}
			cur = list
		}
	}
}

// decodeList appends the values of a google.protobuf.ListValue to list.
func decodeList(b []byte, list []any, depth int) ([]any, error) {
	if depth > maxDepth {
		return nil, errDepth
	}
	r := reader{b: b}
	var f field
	for {
		ok, err := r.next(&f)
		if err != nil {
			return nil, err
		}
		if !ok {
			return list, nil
		}
		if f.num != listValues || f.typ != wireBytes {
			continue
		}
		v, err := decodeValue(f.bytes, nil, depth+1)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
	}
}

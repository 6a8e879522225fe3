package rlswire

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

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

var (
	errUTF8  = errors.New("string field is not valid UTF-8")
	errDepth = errors.New("messages nested too deeply")
)

// DecodeMetadata decodes an envoy.config.core.v3.Metadata into its filter_metadata: a map
// from namespace to struct, each struct a map[string]any whose values are nil (null),
// float64 (infinities and NaN included), string, bool, map[string]any or []any, as
// package descriptor's Metadata expects. typed_filter_metadata is not read. Empty input is
// empty metadata.
func DecodeMetadata(b []byte) (map[string]any, error) {
	md := make(map[string]any)
	err := rlsmsg.EachField(b, func(f rlsmsg.Field) error {
		if f.Num != metadataFilterMetadata || f.Type != rlsmsg.WireBytes {
			return nil
		}
		key, st, err := decodeStructEntry(f.Bytes, 1)
		if err != nil {
			return fmt.Errorf("filter_metadata: %w", err)
		}
		md[key] = st
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rlswire: Metadata: %w", err)
	}
	return md, nil
}

// Each decoder below is given the depth of its message, Metadata's being 0: as
// proto.Unmarshal does, a message at rlsmsg.MaxDepth is refused (a Struct checks its map
// entries' depth, as they are only one below it, and filter_metadata's entries are too
// shallow to need a check).

// decodeStructEntry decodes a map<string, Struct> entry; a missing value is an empty struct.
func decodeStructEntry(b []byte, depth int) (key string, st map[string]any, err error) {
	st = make(map[string]any)
	err = rlsmsg.EachField(b, func(f rlsmsg.Field) (err error) {
		switch {
		case f.Num == mapKey && f.Type == rlsmsg.WireBytes:
			key, err = text(&f)
		case f.Num == mapValue && f.Type == rlsmsg.WireBytes:
			err = decodeStruct(f.Bytes, st, depth+1)
		}
		return err
	})
	return key, st, err
}

// decodeStruct merges the fields of a google.protobuf.Struct into st.
func decodeStruct(b []byte, st map[string]any, depth int) error {
	if depth >= rlsmsg.MaxDepth {
		return errDepth
	}
	return rlsmsg.EachField(b, func(f rlsmsg.Field) error {
		switch {
		case f.Num != structFields:
			return nil
		case depth+1 >= rlsmsg.MaxDepth:
			return errDepth // protobuf-go counts a map entry's depth before it looks at the wire type
		case f.Type != rlsmsg.WireBytes:
			return nil
		}
		return decodeValueEntry(f.Bytes, st, depth+1)
	})
}

// decodeValueEntry decodes a map<string, Value> entry into st; a missing value is null.
func decodeValueEntry(b []byte, st map[string]any, depth int) error {
	var key string
	var v any
	err := rlsmsg.EachField(b, func(f rlsmsg.Field) (err error) {
		switch {
		case f.Num == mapKey && f.Type == rlsmsg.WireBytes:
			key, err = text(&f)
		case f.Num == mapValue && f.Type == rlsmsg.WireBytes:
			v, err = decodeValue(f.Bytes, v, depth+1)
		}
		return err
	})
	if err != nil {
		return err
	}
	st[key] = v
	return nil
}

// decodeValue decodes a google.protobuf.Value, merging into cur as protobuf merges a
// repeated message: the last kind wins, and a struct or list following one of its own kind
// extends it.
func decodeValue(b []byte, cur any, depth int) (any, error) {
	if depth >= rlsmsg.MaxDepth {
		return nil, errDepth
	}
	err := rlsmsg.EachField(b, func(f rlsmsg.Field) (err error) {
		cur, err = valueField(&f, cur, depth)
		return err
	})
	if err != nil {
		return nil, err
	}
	return cur, nil
}

// valueField applies the field f of a Value at depth depth to cur.
func valueField(f *rlsmsg.Field, cur any, depth int) (any, error) {
	var err error
	switch {
	case f.Num == valueNull && f.Type == rlsmsg.WireVarint:
		cur = nil
	case f.Num == valueNumber && f.Type == rlsmsg.WireFixed64:
		cur = math.Float64frombits(f.Uint)
	case f.Num == valueString && f.Type == rlsmsg.WireBytes:
		cur, err = text(f)
	case f.Num == valueBool && f.Type == rlsmsg.WireVarint:
		cur = f.Uint != 0
	case f.Num == valueStruct && f.Type == rlsmsg.WireBytes:
		st, isStruct := cur.(map[string]any)
		if !isStruct {
			st = make(map[string]any)
		}
		err = decodeStruct(f.Bytes, st, depth+1)
		cur = st
	case f.Num == valueList && f.Type == rlsmsg.WireBytes:
		list, isList := cur.([]any)
		if !isList {
			list = []any{}
		}
		cur, err = decodeList(f.Bytes, list, depth+1)
	}
	return cur, err
}

// decodeList appends the values of a google.protobuf.ListValue to list.
func decodeList(b []byte, list []any, depth int) ([]any, error) {
	if depth >= rlsmsg.MaxDepth {
		return nil, errDepth
	}
	err := rlsmsg.EachField(b, func(f rlsmsg.Field) error {
		if f.Num != listValues || f.Type != rlsmsg.WireBytes {
			return nil
		}
		v, err := decodeValue(f.Bytes, nil, depth+1)
		list = append(list, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return list, nil
}

// text returns the bytes field f as a string, which must be UTF-8.
func text(f *rlsmsg.Field) (string, error) {
	if !utf8.Valid(f.Bytes) {
		return "", errUTF8
	}
	return string(f.Bytes), nil
}

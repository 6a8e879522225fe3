package rlswire

import (
	"math"
	"reflect"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rlpkit/rlpkit/rlsmsg"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// generatedMetadata decodes b with the generated type, as DecodeMetadata should.
func generatedMetadata(b []byte) (map[string]any, error) {
	var md corev3.Metadata
	if err := proto.Unmarshal(b, &md); err != nil {
		return nil, err
	}
	out := make(map[string]any)
	for ns, st := range md.GetFilterMetadata() {
		out[ns] = structAsMap(st)
	}
	return out, nil
}

// structAsMap is structpb's AsMap except that numbers stay float64 even when infinite or NaN
// (AsMap writes those as JSON strings): a metadata action must not read a number as a string.
func structAsMap(s *structpb.Struct) map[string]any {
	m := make(map[string]any, len(s.GetFields()))
	for k, v := range s.GetFields() {
		m[k] = valueAsAny(v)
	}
	return m
}

func valueAsAny(v *structpb.Value) any {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NumberValue:
		return k.NumberValue
	case *structpb.Value_StructValue:
		return structAsMap(k.StructValue)
	case *structpb.Value_ListValue:
		l := make([]any, 0, len(k.ListValue.GetValues()))
		for _, e := range k.ListValue.GetValues() {
			l = append(l, valueAsAny(e))
		}
		return l
	}
	return v.AsInterface()
}

func mustStruct(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDecodeMetadata(t *testing.T) {
	authz := map[string]any{
		"user":   "alice",
		"cost":   3.0,
		"admin":  true,
		"none":   nil,
		"limit":  map[string]any{"requests_per_unit": 10.0, "unit": "MINUTE"},
		"groups": []any{"a", 1.5, false, nil, map[string]any{"x": "y"}, []any{}},
		"empty":  map[string]any{},
	}
	tests := []struct {
		name string
		md   *corev3.Metadata
		want map[string]any
	}{
		{name: "empty", md: &corev3.Metadata{}, want: map[string]any{}},
		{name: "every kind of value", md: &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{
			"envoy.filters.http.ext_authz": mustStruct(t, authz),
			"other":                        {},
		}}, want: map[string]any{"envoy.filters.http.ext_authz": authz, "other": map[string]any{}}},
		{name: "typed metadata is not read", md: &corev3.Metadata{
			FilterMetadata:      map[string]*structpb.Struct{"ns": mustStruct(t, map[string]any{"k": "v"})},
			TypedFilterMetadata: map[string]*anypb.Any{"typed": {TypeUrl: "type.googleapis.com/x", Value: []byte{1}}},
		}, want: map[string]any{"ns": map[string]any{"k": "v"}}},
		{name: "special numbers", md: &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{"ns": {Fields: map[string]*structpb.Value{
			"inf": structpb.NewNumberValue(math.Inf(1)), "neg": structpb.NewNumberValue(-0.5), "big": structpb.NewNumberValue(1e300),
		}}}}, want: map[string]any{"ns": map[string]any{"inf": math.Inf(1), "neg": -0.5, "big": 1e300}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := proto.Marshal(tc.md)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeMetadata(b)
			if err != nil {
				t.Fatalf("DecodeMetadata(%x) error %v", b, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("DecodeMetadata mismatch (-want +got):\n%s", diff)
			}
			gen, _ := generatedMetadata(b)
			if diff := cmp.Diff(gen, got); diff != "" {
				t.Errorf("DecodeMetadata disagrees with the generated type (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeMetadataWire covers encodings proto.Marshal never writes.
func TestDecodeMetadataWire(t *testing.T) {
	// entry builds a filter_metadata entry {key: ns, value: struct bytes}.
	entry := func(ns string, st ...byte) []byte {
		inner := append([]byte{0x0a, byte(len(ns))}, ns...)
		inner = append(inner, 0x12, byte(len(st)))
		inner = append(inner, st...)
		return append([]byte{0x0a, byte(len(inner))}, inner...)
	}
	// field builds a Struct field entry {key: k, value: value bytes}.
	field := func(k string, v ...byte) []byte {
		inner := append([]byte{0x0a, byte(len(k))}, k...)
		inner = append(inner, 0x12, byte(len(v)))
		inner = append(inner, v...)
		return append([]byte{0x0a, byte(len(inner))}, inner...)
	}
	cat := func(parts ...[]byte) []byte {
		var out []byte
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	str := func(s string) []byte { return append([]byte{0x1a, byte(len(s))}, s...) }
	structOf := func(fields ...byte) []byte { return append([]byte{0x2a, byte(len(fields))}, fields...) }
	tests := []struct {
		name    string
		in      []byte
		want    map[string]any
		wantErr bool
	}{
		{name: "a later namespace entry replaces an earlier one", in: cat(entry("ns", field("a", str("1")...)...), entry("ns", field("b", str("2")...)...)),
			want: map[string]any{"ns": map[string]any{"b": "2"}}},
		{name: "a later kind replaces an earlier one", in: entry("ns", field("a", cat(str("s"), []byte{0x20, 0x01})...)...),
			want: map[string]any{"ns": map[string]any{"a": true}}},
		{name: "two struct values merge", in: entry("ns", field("a", cat(structOf(field("x", str("1")...)...), structOf(field("y", str("2")...)...))...)...),
			want: map[string]any{"ns": map[string]any{"a": map[string]any{"x": "1", "y": "2"}}}},
		{name: "an entry without value is an empty struct", in: []byte{0x0a, 0x04, 0x0a, 0x02, 'n', 's'},
			want: map[string]any{"ns": map[string]any{}}},
		{name: "a field without value is null", in: entry("ns", 0x0a, 0x03, 0x0a, 0x01, 'k'),
			want: map[string]any{"ns": map[string]any{"k": nil}}},
		{name: "invalid UTF-8 key", in: entry("ns", field("\xff", str("v")...)...), wantErr: true},
		{name: "invalid UTF-8 string value", in: entry("ns", field("k", str("\xff")...)...), wantErr: true},
		{name: "truncated", in: []byte{0x0a, 0x09, 0x0a}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gen, protoErr := generatedMetadata(tc.in)
			got, err := DecodeMetadata(tc.in)
			if (err != nil) != tc.wantErr || (protoErr != nil) != tc.wantErr {
				t.Fatalf("DecodeMetadata(%x) error %v, proto.Unmarshal error %v; want error %v", tc.in, err, protoErr, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("DecodeMetadata(%x) mismatch (-want +got):\n%s", tc.in, diff)
			}
			if diff := cmp.Diff(gen, got); diff != "" {
				t.Errorf("DecodeMetadata(%x) disagrees with proto.Unmarshal (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// FuzzDecodeMetadata holds DecodeMetadata to proto.Unmarshal, as
// FuzzDecodeResponse does for responses.
func FuzzDecodeMetadata(f *testing.F) {
	seed, _ := proto.Marshal(&corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{
		"ns": {Fields: map[string]*structpb.Value{
			"s": structpb.NewStringValue("v"), "n": structpb.NewNumberValue(2), "b": structpb.NewBoolValue(true),
			"z": structpb.NewNullValue(), "l": structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("x")}}),
			"o": structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"k": structpb.NewNumberValue(1)}}),
		}},
	}})
	f.Add(seed)
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeMetadata(b)
		want, protoErr := generatedMetadata(b)
		switch {
		case err != nil && protoErr == nil:
			t.Fatalf("DecodeMetadata(%x) error %v; proto.Unmarshal accepts it", b, err)
		case err == nil && protoErr == nil:
			if diff := cmp.Diff(want, got, cmpopts.EquateNaNs()); diff != "" {
				t.Fatalf("DecodeMetadata(%x) disagrees with proto.Unmarshal (-want +got):\n%s", b, diff)
			}
		}
	})
}

// TestDecodeMetadataDepth holds DecodeMetadata to proto.Unmarshal at the depth limit.
func TestDecodeMetadataDepth(t *testing.T) {
	bytesField := func(num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), v)
	}
	entry := func(v []byte) []byte { return bytesField(1, append(bytesField(1, []byte("a")), bytesField(2, v)...)) }
	// valueAt returns metadata whose Value of content inner is at depth depth: Metadata is
	// at 0, its entry at 1, the Struct at 2, its entry at 3, the outermost Value at 4.
	valueAt := func(depth int, inner []byte) []byte {
		for depth > 4 {
			if (depth-4)%2 == 0 {
				inner, depth = bytesField(valueList, bytesField(listValues, inner)), depth-2
			} else {
				inner, depth = bytesField(valueStruct, entry(inner)), depth-3
			}
		}
		return entry(entry(inner))
	}
	max := rlsmsg.MaxDepth
	varint := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1)
	for name, in := range map[string][]byte{
		"a Value at the last depth":                    valueAt(max-1, bytesField(valueString, []byte("x"))),
		"a Value too deep":                             valueAt(max, bytesField(valueString, []byte("x"))),
		"a Struct at the last depth":                   valueAt(max-2, bytesField(valueStruct, nil)),
		"a Struct at the last depth with fields":       valueAt(max-2, bytesField(valueStruct, entry(nil))),
		"a Struct at the last depth with a varint 1":   valueAt(max-2, bytesField(valueStruct, varint)),
		"a ListValue at the last depth with values":    valueAt(max-2, bytesField(valueList, bytesField(listValues, nil))),
		"a ListValue at the last depth with a varint1": valueAt(max-2, bytesField(valueList, varint)),
	} {
		want, protoErr := generatedMetadata(in)
		got, err := DecodeMetadata(in)
		if (err != nil) != (protoErr != nil) {
			t.Errorf("%s: DecodeMetadata error %v, proto.Unmarshal error %v", name, err, protoErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(want, got) { // cmp.Diff takes minutes this deep
			t.Errorf("%s: DecodeMetadata disagrees with proto.Unmarshal", name)
		}
	}
}

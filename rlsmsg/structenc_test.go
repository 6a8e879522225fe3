package rlsmsg

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestAppendStruct: AppendStruct writes what protobuf-go's deterministic
// marshalling of the same Struct writes, byte for byte.
func TestAppendStruct(t *testing.T) {
	fields := map[string]any{
		"domain": "d", "empty": "", "n": 1.5, "zero": 0, "big": uint64(1 << 40), "neg": -3,
		"yes": true, "no": false, "null": nil,
		"list":   []any{"a=b", 2, []any{}, map[string]any{}},
		"nested": map[string]any{"x": map[string]any{"y": "z"}, "": "empty key"},
	}
	got, err := AppendStruct([]byte("prefix"), fields)
	if err != nil {
		t.Fatal(err)
	}
	want, err := structpb.NewStruct(fields)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[6:], deterministic(t, want)) {
		t.Errorf("AppendStruct = %x, want %x", got[6:], deterministic(t, want))
	}
	var back structpb.Struct
	if err := proto.Unmarshal(got[6:], &back); err != nil || !proto.Equal(&back, want) {
		t.Errorf("AppendStruct does not decode to the Struct: %v", err)
	}
	if got, err := AppendStruct(nil, nil); err != nil || len(got) != 0 {
		t.Errorf("AppendStruct(nil) = %x, %v; want nothing", got, err)
	}
}

func TestAppendStructRefuses(t *testing.T) {
	for _, tc := range []struct {
		fields map[string]any
		want   string
	}{
		{map[string]any{"a": map[string]any{"b": struct{}{}}}, `struct value at ".a.b" has type struct {}`},
		{map[string]any{"a": []any{"\xff"}}, `struct value at ".a[0]" is not UTF-8`},
		{map[string]any{"\xff": 1}, `is not UTF-8`},
	} {
		got, err := AppendStruct([]byte("x"), tc.fields)
		if err == nil || !strings.Contains(err.Error(), tc.want) || string(got) != "x" {
			t.Errorf("AppendStruct(%v) = %q, %v; want x and an error containing %q", tc.fields, got, err, tc.want)
		}
	}
}

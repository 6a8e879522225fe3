package filter

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHeaderMapRoundTrip(t *testing.T) {
	tests := []struct {
		name    string
		headers []Header
	}{
		{name: "none", headers: []Header{}},
		{name: "pseudo-headers and a repeated header", headers: []Header{
			{":authority", "a.com"}, {":path", "/x?y=1"}, {"x-a", "1"}, {"x-a", "2"}, {"empty", ""},
		}},
		{name: "binary", headers: []Header{{"k", "v\xffw"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := EncodeHeaderMap(nil, tc.headers)
			got, ok := DecodeHeaderMap(b)
			if !ok {
				t.Fatalf("DecodeHeaderMap(%x) failed", b)
			}
			if diff := cmp.Diff(tc.headers, got); diff != "" {
				t.Errorf("DecodeHeaderMap(EncodeHeaderMap(h)) (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeHeaderMapMalformed(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
	}{
		{name: "short count", in: []byte{1, 0}},
		{name: "count beyond the sizes", in: []byte{2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}},
		{name: "sizes beyond the data", in: []byte{1, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 'a', 0, 'b', 0}},
		{name: "missing NUL", in: []byte{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 'a', 'x', 'b', 0}},
		{name: "huge count", in: []byte{0xff, 0xff, 0xff, 0xff}},
		{name: "trailing data", in: []byte{0, 0, 0, 0, '0'}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := DecodeHeaderMap(tc.in); ok {
				t.Errorf("DecodeHeaderMap(%x) = %v, true; want false", tc.in, got)
			}
		})
	}
}

// FuzzDecodeHeaderMap checks that no input panics, and that what decodes encodes back to
// the same bytes.
func FuzzDecodeHeaderMap(f *testing.F) {
	f.Add(EncodeHeaderMap(nil, []Header{{":path", "/"}, {"a", "b"}}))
	f.Add([]byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, ok := DecodeHeaderMap(b)
		if !ok || len(b) == 0 {
			return
		}
		if again := EncodeHeaderMap(nil, h); string(again) != string(b) {
			t.Fatalf("EncodeHeaderMap(DecodeHeaderMap(%x)) = %x", b, again)
		}
	})
}

func TestHeaderPairs(t *testing.T) {
	h := headerPairs{{":path", "/"}, {"x-a", "1"}, {"x-b", "2"}, {"x-a", "3"}}
	if v, ok := h.Get("x-a"); v != "1" || !ok {
		t.Errorf(`Get("x-a") = %q, %v; want "1", true`, v, ok)
	}
	if v, ok := h.Get("x-c"); v != "" || ok {
		t.Errorf(`Get("x-c") = %q, %v; want "", false`, v, ok)
	}
	if diff := cmp.Diff([]string{"1", "3"}, h.Values("x-a")); diff != "" {
		t.Errorf(`Values("x-a") (-want +got):\n%s`, diff)
	}
}

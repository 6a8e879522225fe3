package descriptor

import (
	"encoding/json"
	"math"
	"testing"
)

func TestMetadataNumber(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want float64
		ok   bool
	}{
		{float64(2.5), 2.5, true},
		{float32(1.5), 1.5, true},
		{int(3), 3, true},
		{int32(-4), -4, true},
		{int64(5), 5, true},
		{uint32(6), 6, true},
		{uint64(7), 7, true},
		{json.Number("8.25"), 8.25, true},
		{math.NaN(), 0, false},
		{json.Number("x"), 0, false},
		{"9", 0, false},
		{true, 0, false},
		{nil, 0, false},
	} {
		got, ok := MetadataNumber(tc.v)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("MetadataNumber(%#v) = %v, %v; want %v, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

package script

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/rlpkit/rlpkit/limit/counter"
)

func TestAppendNum(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 1699920000000000, 1<<53 - 1, -(1<<53 - 1)} {
		a := AppendNum([]byte{7}, v)
		if len(a) != 9 || a[0] != 7 {
			t.Fatalf("AppendNum([7], %d) = %v, want 7 and 8 bytes", v, a)
		}
		if got := math.Float64frombits(binary.LittleEndian.Uint64(a[1:])); got != float64(v) {
			t.Errorf("AppendNum(%d) reads back as %v", v, got)
		}
	}
}

func TestHashTag(t *testing.T) {
	tests := []struct {
		key, want string
	}{
		{"{ns}key", "ns"},
		{"prefix:{ns}key", "ns"},
		{"{ns}{other}", "ns"},
		{"{}key", "{}key"},
		{"no tag", "no tag"},
		{"{unclosed", "{unclosed"},
		{"}{ns}", "ns"},
		{"{a{b}c}", "a{b"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := HashTag(tc.key); got != tc.want {
			t.Errorf("HashTag(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}

func TestParseState(t *testing.T) {
	tests := []struct {
		in      string
		want    counter.State
		wantErr bool
	}{
		{in: "1699920000000000 3 2", want: counter.State{Time: 1699920000000000, Count: 3, Prev: 2}},
		{in: "-5 0 0", want: counter.State{Time: -5}},
		{in: "", wantErr: true},
		{in: "1 2", wantErr: true},
		{in: "1 2 3 4", wantErr: true},
		{in: "a 2 3", wantErr: true},
		{in: "1 -2 3", wantErr: true},
		{in: "1  2", wantErr: true},
	}
	for _, tc := range tests {
		got, err := ParseState(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseState(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseState(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

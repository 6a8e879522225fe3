package yamljson

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
)

func TestFormatFloat(t *testing.T) {
	tests := []struct {
		name string
		in   float64
		want string
	}{
		{"zero", 0, "0"},
		{"negative zero", math.Copysign(0, -1), "-0.0"},
		{"integral", 1000, "1000"},
		{"fraction", 1.5, "1.5"},
		{"negative", -2.25, "-2.25"},
		{"smallest plain", 1e-6, "0.000001"},
		{"below plain", 1e-7, "1e-7"},
		{"tiny", 5e-324, "5e-324"},
		{"largest plain", 1e20, "100000000000000000000"},
		{"above plain", 1e21, "1e+21"},
		{"huge", math.MaxFloat64, "1.7976931348623157e+308"},
		{"shortest", 0.1, "0.1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := formatFloat(tc.in)
			if got != tc.want {
				t.Errorf("formatFloat(%v) = %s, want %s", tc.in, got, tc.want)
			}
			back, err := strconv.ParseFloat(got, 64)
			if err != nil || back != tc.in || math.Signbit(back) != math.Signbit(tc.in) {
				t.Errorf("ParseFloat(formatFloat(%v)) = %v, %v; want %v", tc.in, back, err, tc.in)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("formatFloat(%v) = %s, not a JSON number", tc.in, got)
			}
		})
	}
}

func TestIntText(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		wantOK bool
	}{
		{"0", "0", true},
		{"-0", "0", true},
		{"+12", "12", true},
		{"1_000", "1000", true},
		{"0x_1F", "31", true},
		{"017", "15", true},
		{"0o17", "15", true},
		{"-0o17", "-15", true},
		{"0b11", "3", true},
		{"0b-11", "-3", true}, // the YAML resolver reads this, so must we
		{"0o-7", "-7", true},
		{"18446744073709551615", "18446744073709551615", true},
		{"0b" + "1111111111111111111111111111111111111111111111111111111111111111", "18446744073709551615", true},
		{"abc", "", false},
		{"0b2", "", false},
		{"18446744073709551616", "", false},
	}
	for _, tc := range tests {
		got, ok := intText(tc.in)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("intText(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.wantOK)
		}
	}
}

func TestBigInt(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		wantOK bool
	}{
		{"123", "123", true},
		{"+0123", "123", true},
		{"-000", "0", true},
		{"-1_2", "-12", true},
		{"_12", "", false},
		{"+", "", false},
		{"", "", false},
		{"1.0", "", false},
		{"1e5", "", false},
	}
	for _, tc := range tests {
		got, ok := bigInt(tc.in)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("bigInt(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.wantOK)
		}
	}
}

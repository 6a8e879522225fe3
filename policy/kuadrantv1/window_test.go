package kuadrantv1

import "testing"

func TestWindowSeconds(t *testing.T) {
	tests := []struct {
		window string
		want   int64
		ok     bool
	}{
		{"1m", 60, true},
		{"30s", 30, true},
		{"1m30s", 90, true},
		{"500ms", 0, true},
		{"1500ms", 1, true},
		{"1h30m", 5400, true},
		{"99999h", 99999 * 3600, true},
		{"1h1m1s1ms", 3661, true},
		{"1h1m1s1ms1h", 0, false}, // at most four parts
		{"100000s", 0, false},     // at most five digits
		{"1d", 0, false},
		{"10 s", 0, false},
		{"", 0, false},
		{"-1s", 0, false},
		{"1.5s", 0, false},
	}
	for _, tc := range tests {
		got, ok := WindowSeconds(tc.window)
		if got != tc.want || ok != tc.ok {
			t.Errorf("WindowSeconds(%q) = %d, %v, want %d, %v", tc.window, got, ok, tc.want, tc.ok)
		}
	}
}

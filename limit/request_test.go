package limit

import (
	"testing"
	"time"
)

func TestResetSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want int64
	}{
		{-time.Second, 0},
		{0, 0},
		{time.Nanosecond, 1},
		{time.Second, 1},
		{time.Second + 1, 2},
		{time.Duration(1<<63 - 1), 9223372037},
	}
	for _, tc := range tests {
		if got := ResetSeconds(tc.d); got != tc.want {
			t.Errorf("ResetSeconds(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}

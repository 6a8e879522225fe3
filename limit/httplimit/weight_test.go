package httplimit

import (
	"testing"
	"time"
)

// TestWeightWorkedExample holds the package doc's worked example: max 10 per 10s. With the
// default weight 50 a fresh key admits 20 in its first interval, none in the second (the
// previous window's 20 count half), 20 again in the third; with weight 100, at most 10 in
// every interval.
func TestWeightWorkedExample(t *testing.T) {
	for _, tc := range []struct {
		weight int
		want   []int // admitted per interval, of 30 requests each
	}{
		{DefaultWeight, []int{20, 0, 20}},
		{100, []int{10, 10, 10}},
	} {
		clock := newFakeClock()
		start := clock.Now().Truncate(10 * time.Second) // windows are aligned to the epoch
		c := validConfig(func(c *Config) { c.Max, c.Interval, c.Weight = 10, 10*time.Second, tc.weight })
		h := front(mustNew(t, "p", c, WithClock(clock.Now)), StepRequest, &upstream{})
		for i, want := range tc.want {
			clock.Set(start.Add(time.Duration(i) * 10 * time.Second))
			admitted := 0
			for range 30 {
				if do(h, request()) == passed {
					admitted++
				}
			}
			if admitted != want {
				t.Errorf("weight %d, interval %d: %d of 30 admitted, want %d", tc.weight, i+1, admitted, want)
			}
		}
	}
}

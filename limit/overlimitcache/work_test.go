package overlimitcache

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// fullStore answers every update as a full fixed window ending in a
// minute.
type fullStore struct{}

func (fullStore) Update(_ context.Context, _ time.Time, u []counter.Update, d []counter.Decision) error {
	for i := range u {
		d[i] = counter.Decision{Used: float64(u[i].Policy.Max), ResetAfter: time.Minute, RetryAfter: time.Minute}
	}
	return nil
}

// TestCacheLearnWorkLinear learns batches of 2,000 to 8,000 full counters
// in a cache whose budget holds 1,000, and counts the entries eviction
// looks at: a few per counter learnt, however large the budget, where
// scanning the full cache for every new entry would look at 1,000 each.
func TestCacheLearnWorkLinear(t *testing.T) {
	const keep = 1_000
	for _, n := range []int{2_000, 4_000, 8_000} {
		c := New(fullStore{}, keep*(EntryOverhead+6))
		us := make([]counter.Update, n)
		for i := range us {
			us[i] = counter.Update{Key: fmt.Sprintf("k%05d", i), Policy: fixed(1), Cost: 1}
		}
		if err := c.Update(context.Background(), t0, us, make([]counter.Decision, n)); err != nil {
			t.Fatal(err)
		}
		if c.Len() > keep || c.Len() < keep*7/8 {
			t.Errorf("after %d counters learnt: %d entries, want between %d and %d", n, c.Len(), keep*7/8, keep)
		}
		if limit := 10 * n; c.m.Visited > limit {
			t.Errorf("learning %d counters looked at %d entries, want at most %d", n, c.m.Visited, limit)
		}
	}
}

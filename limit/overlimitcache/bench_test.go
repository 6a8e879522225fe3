package overlimitcache

import (
	"context"
	"strconv"
	"testing"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// BenchmarkLearnFull is one request of 1,000 counters the wrapped store
// shows full, learnt by a cache already full of 100,000 others: the work
// must not grow with the budget.
func BenchmarkLearnFull(b *testing.B) {
	const entries, batch = 100_000, 1_000
	c := New(fullStore{}, entries*(EntryOverhead+8))
	ctx := context.Background()
	fill := make([]counter.Update, entries)
	for i := range fill {
		fill[i] = counter.Update{Key: "fill-" + strconv.Itoa(i), Policy: fixed(1), Cost: 1}
	}
	if err := c.Update(ctx, t0, fill, make([]counter.Decision, entries)); err != nil {
		b.Fatal(err)
	}
	ds := make([]counter.Decision, batch)
	us := make([]counter.Update, batch)
	round := 0
	for b.Loop() {
		for i := range us {
			us[i] = counter.Update{Key: "new-" + strconv.Itoa(round) + "-" + strconv.Itoa(i), Policy: fixed(1), Cost: 1}
		}
		round++
		if err := c.Update(ctx, t0, us, ds); err != nil {
			b.Fatal(err)
		}
	}
}

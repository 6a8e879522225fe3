package redis

import (
	"context"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
)

// TestServerTime decides at the server's clock: the now argument, however
// wrong, is ignored, and the counter's window is the server's.
func TestServerTime(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	ctx := context.Background()
	s := newStore(t, c, Options{ServerTime: true})
	// A window of 100 years starting at the epoch: every instant of the
	// test falls in the first one.
	const w = 100 * 365 * 24 * time.Hour
	p := counter.Policy{Max: 5, Window: w}
	key := "{time}k"

	before, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	ds := make([]counter.Decision, 1)
	for _, now := range []time.Time{{}, time.Unix(0, 0), time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if err := s.Update(ctx, now, []counter.Update{{Key: key, Policy: p, Cost: 1}}, ds); err != nil {
			t.Fatalf("Update(now=%v): %v", now, err)
		}
	}
	after, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}

	// All three hits landed in the server's current window.
	if ds[0].Used != 3 || !ds[0].Allowed {
		t.Errorf("third Update = %+v, want allowed with Used 3", ds[0])
	}
	raw, err := c.Get(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	st, err := script.ParseState(raw)
	if err != nil {
		t.Fatal(err)
	}
	// The window starts at the epoch, and the reset counts from the
	// server's instant, which lies between before and after.
	if want := (counter.State{Time: 0, Count: 3}); st != want {
		t.Errorf("stored state = %+v, want %+v", st, want)
	}
	end := time.Unix(0, 0).Add(w)
	if lo, hi := end.Sub(after), end.Sub(before); ds[0].ResetAfter < lo || ds[0].ResetAfter > hi {
		t.Errorf("ResetAfter = %v, want between %v and %v (the window's end less the server's instant)", ds[0].ResetAfter, lo, hi)
	}
}

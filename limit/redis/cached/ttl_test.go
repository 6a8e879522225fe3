package cached

import (
	"context"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// TestKeyExpiresWithItsWindow: a flushed counter's key expires when its
// window ends on the Updates' clock, plus the margin, however late in the
// window it is written; not a whole window after the flush.
func TestKeyExpiresWithItsWindow(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	s := newStore(t, c, Options{MaxUnflushed: 100})
	p := counter.Policy{Max: 100, Window: time.Minute}
	margin := redis.DefaultTTLMargin
	for _, at := range []time.Duration{10 * time.Second, 40 * time.Second} {
		if err := s.Update(context.Background(), t0.Add(at), []counter.Update{{Key: "{k}a", Policy: p, Cost: 1}}, make([]counter.Decision, 1)); err != nil {
			t.Fatal(err)
		}
		mustFlush(t, s)
		ttl, err := c.PTTL(context.Background(), "{k}a").Result()
		if err != nil {
			t.Fatal(err)
		}
		left := time.Minute - at // until the window's end
		if ttl > left+margin || ttl < left+margin-time.Second {
			t.Errorf("written %v into its window: the key's TTL is %v, want the %v left in its window plus the %v margin", at, ttl, left, margin)
		}
	}
}

// TestAdoptedWindowExpires: an instance whose window from the first hit
// adopts the earlier one Redis holds writes the key to expire when that
// window ends, not its own.
func TestAdoptedWindowExpires(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	a, b := newStore(t, c, Options{MaxUnflushed: 100}), newStore(t, c, Options{MaxUnflushed: 100})
	p := counter.Policy{Max: 100, Window: time.Minute, FirstHit: true}
	for _, w := range []struct {
		s  *Store
		at time.Duration
	}{{a, 0}, {b, 30 * time.Second}} {
		if err := w.s.Update(context.Background(), t0.Add(w.at), []counter.Update{{Key: "{k}f", Policy: p, Cost: 1}}, make([]counter.Decision, 1)); err != nil {
			t.Fatal(err)
		}
		mustFlush(t, w.s)
	}
	ttl, err := c.PTTL(context.Background(), "{k}f").Result()
	if err != nil {
		t.Fatal(err)
	}
	if want := 30*time.Second + redis.DefaultTTLMargin; ttl > want || ttl < want-time.Second {
		t.Errorf("the key's TTL after the second instance adopted the first's window is %v, want the 30s left in it plus the margin, %v", ttl, want)
	}
	if got := stored(t, c, "{k}f"); got.Count != 2 || got.Time != t0.UnixMicro() {
		t.Errorf("Redis holds %+v, want both hits in the window of t0", got)
	}
}

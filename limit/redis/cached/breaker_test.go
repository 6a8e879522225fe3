package cached

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// TestBreakerSharedWithFlushes: with Redis killed, a flush that fails makes
// the shared Breaker down; then flushes and the exact store's batches fail
// at once with counter.ErrStoreDown, sending nothing, while fixed windows
// are still decided locally; once a probe answers, a flush writes the hits
// kept.
func TestBreakerSharedWithFlushes(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	hook := &commands{}
	c.AddHook(hook)
	b, err := redis.NewBreaker(c, redis.BreakerOptions{ProbeInterval: time.Hour, CheckInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	s := newStore(t, c, Options{Redis: redis.Options{Breaker: b}})
	fixed := counter.Policy{Max: 100, Window: time.Hour}
	bucket := counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: 100, Window: time.Hour}
	const key = "{brk}k"
	hit(t, s, t0, key, fixed, 1)
	mustFlush(t, s)

	srv.Kill()
	hit(t, s, t0, key, fixed, 1)
	if err := s.Flush(context.Background()); err == nil || errors.Is(err, counter.ErrStoreDown) {
		t.Fatalf("Flush with Redis killed = %v, want the network's error", err)
	}
	if !errors.Is(b.Err(), counter.ErrStoreDown) {
		t.Fatalf("breaker after a failed flush: Err = %v, want down", b.Err())
	}
	hook.take()
	for range 10 {
		if !hit(t, s, t0, key, fixed, 1) {
			t.Fatal("a fixed window was not admitted locally while Redis is down")
		}
		if err := s.Flush(context.Background()); !errors.Is(err, counter.ErrStoreDown) {
			t.Errorf("Flush while down = %v, want counter.ErrStoreDown", err)
		}
		ds := make([]counter.Decision, 1)
		if err := s.Update(context.Background(), t0, []counter.Update{{Key: "{brk}b", Policy: bucket, Cost: 1}}, ds); !errors.Is(err, counter.ErrStoreDown) {
			t.Errorf("exact batch while down = %v, want counter.ErrStoreDown", err)
		}
	}
	if names, trips := hook.take(); trips != 0 {
		t.Errorf("while down: sent %v in %d round trips, want nothing", names, trips)
	}

	srv.Restart(t)
	if err := b.Probe(context.Background()); err != nil {
		t.Fatalf("Probe after the restart: %v", err)
	}
	mustFlush(t, s)
	if got := stored(t, c, key); got.Count != 11 {
		t.Errorf("Redis holds %+v after the outage, want the 11 hits kept", got)
	}
}

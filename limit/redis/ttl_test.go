package redis

import (
	"context"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestTTL checks that every key written has a TTL of its policy's span
// plus the margin, and that checks and rejected batches write nothing.
func TestTTL(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	ctx := context.Background()
	hour := time.Hour.Milliseconds()
	tests := []struct {
		name    string
		margin  time.Duration
		policy  counter.Policy
		wantTTL int64 // ms
	}{
		{"fixed window", 0, counter.Policy{Algorithm: counter.AlgorithmFixedWindow, Max: 7, Window: time.Hour}, hour + 2000},
		{"fixed window from its first hit", 0, counter.Policy{Algorithm: counter.AlgorithmFixedWindow, Max: 7, Window: time.Hour, FirstHit: true}, hour + 2000},
		{"sliding window keeps the previous one", 0, counter.Policy{Algorithm: counter.AlgorithmSlidingWindow, Max: 7, Window: time.Hour}, 2*hour + 2000},
		{"weighted sliding window", 0, counter.Policy{Algorithm: counter.AlgorithmSlidingWindow, Max: 7, Window: time.Hour, Weighted: true, Weight: 30}, 2*hour + 2000},
		// ceil(3.6e9µs/7) * 7 = 3,600,000,005µs, rounded up to ms.
		{"token bucket refills a full bucket", 0, counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: 7, Window: time.Hour}, hour + 1 + 2000},
		{"gcra", 0, counter.Policy{Algorithm: counter.AlgorithmGCRA, Max: 7, Window: time.Hour}, hour + 1 + 2000},
		{"margin option", 30 * time.Second, counter.Policy{Max: 7, Window: time.Hour}, hour + 30000},
		{"sub-millisecond window", 0, counter.Policy{Max: 7, Window: 10 * time.Microsecond}, 1 + 2000},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t, c, Options{TTLMargin: tc.margin})
			key := "{ttl}" + tc.name
			ds := make([]counter.Decision, 1)
			check := []counter.Update{{Key: key, Policy: tc.policy, Cost: 0}}
			if err := s.Update(ctx, t0, check, ds); err != nil {
				t.Fatal(err)
			}
			if n := c.Exists(ctx, key).Val(); n != 0 {
				t.Fatalf("a check created key %q", key)
			}
			hit := []counter.Update{{Key: key, Policy: tc.policy, Cost: 1}}
			if err := s.Update(ctx, t0.Add(time.Duration(i)), hit, ds); err != nil {
				t.Fatal(err)
			}
			pttl, err := c.PTTL(ctx, key).Result()
			if err != nil {
				t.Fatal(err)
			}
			// The TTL counts down in real time: allow a minute of it.
			if got := pttl.Milliseconds(); got > tc.wantTTL || got <= tc.wantTTL-60_000 {
				t.Errorf("PTTL(%q) = %dms, want %dms (less the time since the write)", key, got, tc.wantTTL)
			}
		})
	}

	t.Run("rejected batch writes nothing", func(t *testing.T) {
		s := newStore(t, c, Options{})
		batch := []counter.Update{
			{Key: "{ttl}r/open", Policy: counter.Policy{Max: 5, Window: time.Hour}, Cost: 1},
			{Key: "{ttl}r/closed", Policy: counter.Policy{Max: 0, Window: time.Hour}, Cost: 1},
		}
		ds := make([]counter.Decision, 2)
		if err := s.Update(ctx, t0, batch, ds); err != nil {
			t.Fatal(err)
		}
		if ds[1].Allowed {
			t.Fatalf("Update of a max-0 counter = %+v, want rejected", ds[1])
		}
		if n := c.Exists(ctx, batch[0].Key, batch[1].Key).Val(); n != 0 {
			t.Errorf("a rejected batch created %d keys, want 0", n)
		}
	})

	t.Run("every key has a TTL", func(t *testing.T) {
		keys, err := c.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) < len(tests) {
			t.Fatalf("KEYS * = %q, want at least %d keys", keys, len(tests))
		}
		for _, k := range keys {
			if pttl := c.PTTL(ctx, k).Val(); pttl <= 0 {
				t.Errorf("PTTL(%q) = %v, want a TTL", k, pttl)
			}
		}
	})
}

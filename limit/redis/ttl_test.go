package redis

import (
	"context"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
)

// ttlPolicies are the policies TestTTL writes, one per algorithm and form.
var ttlPolicies = []struct {
	name   string
	policy counter.Policy
}{
	{"fixed window", counter.Policy{Algorithm: counter.AlgorithmFixedWindow, Max: 7, Window: time.Hour}},
	{"fixed window of 10s", counter.Policy{Algorithm: counter.AlgorithmFixedWindow, Max: 7, Window: 10 * time.Second}},
	{"fixed window from its first hit", counter.Policy{Algorithm: counter.AlgorithmFixedWindow, Max: 7, Window: time.Hour, FirstHit: true}},
	{"sliding window", counter.Policy{Algorithm: counter.AlgorithmSlidingWindow, Max: 7, Window: time.Hour}},
	{"weighted sliding window", counter.Policy{Algorithm: counter.AlgorithmSlidingWindow, Max: 7, Window: time.Hour, Weighted: true, Weight: 30}},
	{"token bucket", counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: 7, Window: time.Hour}},
	{"gcra", counter.Policy{Algorithm: counter.AlgorithmGCRA, Max: 7, Window: time.Hour}},
	{"sub-millisecond window", counter.Policy{Max: 7, Window: 10 * time.Microsecond}},
}

// freshAt returns the instant (Unix µs) from which state s, as stored under
// p, decides as a fresh counter does under any max: its window's end (fixed
// window), the next window's end (sliding window), a window and a
// microsecond per token taken less one after its time (token bucket: the
// refill of the tokens taken at the slowest max), its TAT (GCRA).
func freshAt(p counter.Policy, s counter.State) int64 {
	w := p.Window.Microseconds()
	switch p.Algorithm {
	case counter.AlgorithmSlidingWindow:
		return s.Time + 2*w
	case counter.AlgorithmTokenBucket:
		return s.Time + w + int64(s.Count) - 1
	case counter.AlgorithmGCRA:
		return s.Time
	}
	return s.Time + w
}

// serverNow returns the Redis server's clock (TIME).
func serverNow(t *testing.T, c goredis.UniversalClient) time.Time {
	t.Helper()
	now, err := c.Time(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return now
}

// outlives returns how long the key outlives its state: its expiry
// (PEXPIRETIME, the server's clock) less the instant its stored state
// decides as a fresh counter from, both in ms.
func outlives(t *testing.T, c goredis.UniversalClient, key string, p counter.Policy) time.Duration {
	t.Helper()
	ctx := context.Background()
	raw, err := c.Get(ctx, key).Result()
	if err != nil {
		t.Fatalf("GET %q: %v", key, err)
	}
	st, err := script.ParseState(raw)
	if err != nil {
		t.Fatal(err)
	}
	at, err := c.Do(ctx, "PEXPIRETIME", key).Int64()
	if err != nil {
		t.Fatalf("PEXPIRETIME %q: %v", key, err)
	}
	if at < 0 {
		t.Fatalf("PEXPIRETIME %q = %d: the key has no TTL", key, at)
	}
	return time.Duration(at)*time.Millisecond - time.Duration(freshAt(p, st))*time.Microsecond
}

// TestTTL checks, on the server's clock, that every key written expires
// when its state decides as a fresh counter does, plus the margin and the
// rounding to a millisecond: never earlier, never more than a second later,
// whenever in its window it was written. With ServerTime there is no
// margin; deciding at the store's own now (here the server's clock read
// just before), the margin is added and the TTL is counted from the write.
func TestTTL(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	ctx := context.Background()
	for _, mode := range []struct {
		name     string
		o        Options
		min, max time.Duration
	}{
		{"server time", Options{ServerTime: true}, 0, time.Millisecond},
		{"store's now", Options{}, DefaultTTLMargin, time.Second},
		{"store's now, margin option", Options{TTLMargin: 700 * time.Millisecond}, 700 * time.Millisecond, time.Second},
	} {
		s := newStore(t, c, mode.o)
		for _, tc := range ttlPolicies {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				key := "{ttl}" + mode.name + "/" + tc.name
				ds := make([]counter.Decision, 1)
				check := []counter.Update{{Key: key, Policy: tc.policy, Cost: 0}}
				if err := s.Update(ctx, serverNow(t, c), check, ds); err != nil {
					t.Fatal(err)
				}
				if n := c.Exists(ctx, key).Val(); n != 0 {
					t.Fatalf("a check created key %q", key)
				}
				// Three hits at the server's clock: wherever they fall in
				// the window, the key expires with the state.
				for range 3 {
					hit := []counter.Update{{Key: key, Policy: tc.policy, Cost: 1}}
					if err := s.Update(ctx, serverNow(t, c), hit, ds); err != nil {
						t.Fatal(err)
					}
				}
				if got := outlives(t, c, key, tc.policy); got < mode.min || got > mode.max {
					t.Errorf("the key expires %v after its state is fresh again, want %v to %v", got, mode.min, mode.max)
				}
			})
		}
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
		if len(keys) < len(ttlPolicies) {
			t.Fatalf("KEYS * = %q, want at least %d keys", keys, len(ttlPolicies))
		}
		for _, k := range keys {
			if pttl := c.PTTL(ctx, k).Val(); pttl <= 0 && pttl != -2 {
				t.Errorf("PTTL(%q) = %v, want a TTL", k, pttl)
			}
		}
	})
}

// TestTTLLoweredMax takes 4 of 10 tokens (10 per 10 s) at a fake instant,
// then, 5 s later on that clock, lowers Max to 5: the key must still be
// there (it is deleted here when its TTL, read right after the write, is
// shorter than those 5 s, as Redis would have expired it), since under Max
// 5 two of the missing tokens are still missing, and 5 hits admit 3, as
// deciding over the kept state does, not the 5 of a fresh bucket.
func TestTTLLoweredMax(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	ctx := context.Background()
	s := newStore(t, c, Options{})
	high := counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: 10, Window: 10 * time.Second}
	low := high
	low.Max = 5
	const key = "{ttl}lowered"
	ds := make([]counter.Decision, 1)
	var kept counter.State
	for range 4 {
		kept, _ = high.Decide(kept, t0, 1)
		if err := s.Update(ctx, t0, []counter.Update{{Key: key, Policy: high, Cost: 1}}, ds); err != nil {
			t.Fatal(err)
		}
	}
	pttl, err := c.PTTL(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	const elapsed = 5 * time.Second
	if pttl <= elapsed {
		t.Errorf("the key's TTL is %v: it expires before t0+%v, when Max 5 still reads 2 tokens missing", pttl, elapsed)
		c.Del(ctx, key)
	}
	at := t0.Add(elapsed)
	admitted, want := 0, 0
	for range 5 {
		var d counter.Decision
		if kept, d = low.Decide(kept, at, 1); d.Allowed {
			want++
		}
		if err := s.Update(ctx, at, []counter.Update{{Key: key, Policy: low, Cost: 1}}, ds); err != nil {
			t.Fatal(err)
		}
		if ds[0].Allowed {
			admitted++
		}
	}
	if want != 3 || admitted != want {
		t.Errorf("5 hits at t0+%v under Max 5 admitted %d, want %d (Decide over the kept state: 3)", elapsed, admitted, want)
	}
}

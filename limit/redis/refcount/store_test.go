package refcount

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// TestCountsEveryDescriptor: each counter is INCRBY then EXPIRE, in one
// round trip, and a request over one limit still charges the others, as
// the reference counts; over is after > limit.
func TestCountsEveryDescriptor(t *testing.T) {
	c, rec := newClient(t)
	s := newStore(t, c, Options{KeyPrefix: "p:", JitterMaxSeconds: 300, Jitter: func(n int64) int64 { return n - 1 }})
	small := counter.Update{Key: "d_a_1_" + "1800", Policy: fixed(1, time.Minute), Cost: 1}
	big := counter.Update{Key: "d_b_2_" + "1800", Policy: fixed(5, time.Hour), Cost: 1}
	ds := update(t, s, t0, small, big)
	if !ds[0].Allowed || ds[0].Remaining != 0 || !ds[1].Allowed || ds[1].Remaining != 4 {
		t.Fatalf("first request: %+v", ds)
	}
	cmds, trips := rec.take()
	want := []string{"incrby p:d_a_1_1800 1", "expire p:d_a_1_1800 359", "incrby p:d_b_2_1800 1", "expire p:d_b_2_1800 3899"}
	if !slices.Equal(cmds, want) || trips != 1 {
		t.Fatalf("commands %q in %d round trips, want %q in 1", cmds, trips, want)
	}
	ds = update(t, s, t0, small, big)
	if ds[0].Allowed || ds[0].Remaining != 0 || ds[0].Used != 2 || !ds[1].Allowed || ds[1].Remaining != 3 {
		t.Fatalf("second request: %+v", ds)
	}
	if ds[0].ResetAfter != 50*time.Second || ds[1].ResetAfter != 3590*time.Second {
		t.Errorf("resets %v, %v, want 50s and 3590s", ds[0].ResetAfter, ds[1].ResetAfter)
	}
	if !ds[1].PartAdmitted || ds[0].PartAdmitted {
		t.Errorf("PartAdmitted %v, %v, want false for the rejected one, true for the admitted one", ds[0].PartAdmitted, ds[1].PartAdmitted)
	}
	if a, b := get(t, c, "p:d_a_1_1800"), get(t, c, "p:d_b_2_1800"); a != "2" || b != "2" {
		t.Errorf("counters %s, %s, want 2 and 2: a rejected request is counted too", a, b)
	}
	// A check at the limit is within it; over it, over.
	check := counter.Update{Key: "d_b_2_1800", Policy: fixed(2, time.Hour)}
	if ds := update(t, s, t0, check); !ds[0].Allowed || ds[0].Remaining != 0 {
		t.Errorf("check at the limit: %+v, want allowed", ds[0])
	}
	if ds := update(t, s, t0, counter.Update{Key: "d_b_2_1800", Policy: fixed(1, time.Hour)}); ds[0].Allowed {
		t.Errorf("check above the limit: %+v, want over", ds[0])
	}
}

// TestJitter: no jitter when JitterMaxSeconds is 0; otherwise the draw is
// in [0, JitterMaxSeconds).
func TestJitter(t *testing.T) {
	c, rec := newClient(t)
	update(t, newStore(t, c, Options{Jitter: func(int64) int64 { panic("drawn") }}), t0, counter.Update{Key: "k", Policy: fixed(5, time.Minute), Cost: 1})
	if cmds, _ := rec.take(); cmds[1] != "expire k 60" {
		t.Errorf("without jitter: %q, want expire k 60", cmds[1])
	}
	s := newStore(t, c, Options{JitterMaxSeconds: 3})
	seen := map[string]bool{}
	for range 200 {
		update(t, s, t0, counter.Update{Key: "k", Policy: fixed(1000, time.Minute), Cost: 1})
		cmds, _ := rec.take()
		seen[cmds[1]] = true
	}
	if len(seen) != 3 || !seen["expire k 60"] || !seen["expire k 62"] {
		t.Errorf("TTLs drawn %v, want expire k 60, 61 and 62", seen)
	}
}

// TestStopIncrementWhenOverLimit: as the reference, a GET round trip
// first; when a counter would go over, only those that would are
// incremented.
func TestStopIncrementWhenOverLimit(t *testing.T) {
	c, rec := newClient(t)
	s := newStore(t, c, Options{StopIncrementWhenOverLimit: true})
	a := counter.Update{Key: "a", Policy: fixed(1, time.Minute), Cost: 1}
	b := counter.Update{Key: "b", Policy: fixed(5, time.Minute), Cost: 1}
	update(t, s, t0, a, b)
	if _, trips := rec.take(); trips != 2 {
		t.Errorf("%d round trips, want 2 (GETs, then INCRBY and EXPIRE)", trips)
	}
	ds := update(t, s, t0, a, b)
	if ds[0].Allowed || !ds[1].Allowed || ds[1].Remaining != 4 {
		t.Fatalf("second request: %+v, want a over, b within with 4 left", ds)
	}
	cmds, _ := rec.take()
	if want := []string{"get a", "get b", "incrby a 1", "expire a 60", "incrby b 0", "expire b 60"}; !slices.Equal(cmds, want) {
		t.Errorf("commands %q, want %q", cmds, want)
	}
	if ga, gb := get(t, c, "a"), get(t, c, "b"); ga != "2" || gb != "1" {
		t.Errorf("counters a=%s b=%s, want 2 and 1", ga, gb)
	}
}

// TestLocalCache: a counter found over is answered from the process, with
// no command, until its window ends; the request's other counters still go
// to Redis.
func TestLocalCache(t *testing.T) {
	for _, stop := range []bool{false, true} {
		c, rec := newClient(t)
		s := newStore(t, c, Options{LocalCacheBytes: 1 << 20, StopIncrementWhenOverLimit: stop})
		a := counter.Update{Key: "a", Policy: fixed(1, time.Minute), Cost: 1}
		b := counter.Update{Key: "b", Policy: fixed(5, time.Minute), Cost: 1}
		update(t, s, t0, a, b)
		update(t, s, t0, a, b) // a over: remembered
		rec.take()
		ds := update(t, s, t0.Add(49*time.Second), a, b)
		if ds[0].Allowed || ds[0].Used != 2 || !ds[1].Allowed {
			t.Fatalf("stop=%v: from the cache: %+v", stop, ds)
		}
		cmds, _ := rec.take()
		want := []string{"incrby b 1", "expire b 60"}
		if stop {
			want[0] = "incrby b 0"
		}
		if !slices.Equal(cmds, want) {
			t.Errorf("stop=%v: commands %q, want %q", stop, cmds, want)
		}
		// Remembered for the window's length from when it was found over,
		// as the reference's cache does (its keys name their window).
		update(t, s, t0.Add(60*time.Second), a, b)
		if cmds, _ := rec.take(); !slices.Contains(cmds, "incrby a 1") && !slices.Contains(cmds, "get a") {
			t.Errorf("stop=%v: after the window, commands %q, want a counted in Redis again", stop, cmds)
		}
	}
}

// TestLocalCacheBudget: a full cache makes room, and never grows past its
// budget.
func TestLocalCacheBudget(t *testing.T) {
	budget := 10 * (EntryOverhead + 2)
	lc := newLocalCache(budget)
	for i := range 100 {
		lc.put(string(rune('a'+i%26))+string(rune('a'+i/26)), 1, 100, 0)
		if used := lc.m.Used(); used > budget {
			t.Fatalf("used %d of %d after %d puts", used, budget, i+1)
		}
	}
	if !lc.over("vd", 99, 1) || lc.over("vd", 100, 1) {
		t.Error("the last entry is not remembered until its instant")
	}
}

// TestInvalid: what the reference cannot count is an error, before any
// command.
func TestInvalid(t *testing.T) {
	c, rec := newClient(t)
	s := newStore(t, c, Options{})
	for _, p := range []counter.Policy{
		{Algorithm: counter.AlgorithmSlidingWindow, Max: 1, Window: time.Minute},
		{Algorithm: counter.AlgorithmFixedWindow, Max: 1, Window: time.Minute, FirstHit: true},
		{Algorithm: counter.AlgorithmFixedWindow, Max: 1, Window: 1500 * time.Millisecond},
	} {
		err := s.Update(context.Background(), t0, []counter.Update{{Key: "k", Policy: p, Cost: 1}}, make([]counter.Decision, 1))
		if err == nil || !strings.Contains(err.Error(), `key "k"`) {
			t.Errorf("%+v: error %v, want one naming the key", p, err)
		}
	}
	if err := s.Update(context.Background(), t0, make([]counter.Update, 2), make([]counter.Decision, 1)); err == nil {
		t.Error("no error for decisions shorter than updates")
	}
	if cmds, _ := rec.take(); len(cmds) != 0 {
		t.Errorf("commands sent: %q", cmds)
	}
	for _, o := range []Options{{JitterMaxSeconds: -1}, {LocalCacheBytes: -1}} {
		if _, err := New(c, o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

// TestCluster: keys of several slots, as the reference's are, in one
// Update on a Cluster client.
func TestCluster(t *testing.T) {
	srv := redistest.StartCluster(t)
	c, err := redis.NewClient(srv.URL() + "?addr=" + srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, ok := c.(*goredis.ClusterClient); !ok {
		t.Fatalf("client %T, want a cluster client", c)
	}
	s := newStore(t, c, Options{KeyPrefix: "{p}"})
	var us []counter.Update
	for _, k := range []string{"d_a_1_0", "d_b_2_0", "d_c_3_0"} {
		us = append(us, counter.Update{Key: k, Policy: fixed(1, time.Minute), Cost: 1})
	}
	update(t, s, t0, us...)
	if ds := update(t, s, t0, us...); ds[0].Allowed || ds[2].Allowed {
		t.Fatalf("second request: %+v, want over", ds)
	}
	if v := get(t, c, "{p}d_c_3_0"); v != "2" {
		t.Errorf("counter %q, want 2", v)
	}
}

// TestBreaker: while the breaker knows Redis down, Update fails at once,
// without a command.
func TestBreaker(t *testing.T) {
	srv := redistest.Start(t)
	c, err := redis.NewClient(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	b, err := redis.NewBreaker(c, redis.BreakerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	s := newStore(t, c, Options{Breaker: b})
	srv.Kill()
	if b.Probe(context.Background()) == nil {
		t.Fatal("PING answered with Redis killed")
	}
	rec := newRecorder()
	c.AddHook(rec)
	u := []counter.Update{{Key: "k", Policy: fixed(1, time.Minute), Cost: 1}}
	err = s.Update(context.Background(), t0, u, make([]counter.Decision, 1))
	if !errors.Is(err, counter.ErrStoreDown) {
		t.Errorf("Update with Redis known down: %v, want the breaker's error", err)
	}
	if cmds, _ := rec.take(); len(cmds) != 0 {
		t.Errorf("commands sent while Redis is known down: %q", cmds)
	}
}

// TestPerSecondClient: one-second counters live in the per-second Redis,
// the others in the main one, one pipeline each.
func TestPerSecondClient(t *testing.T) {
	for _, stop := range []bool{false, true} {
		main, mainRec := newClient(t)
		sec, secRec := newClient(t)
		s := newStore(t, main, Options{PerSecondClient: sec, StopIncrementWhenOverLimit: stop})
		perSecond := counter.Update{Key: "s", Policy: fixed(2, time.Second), Cost: 1}
		perMinute := counter.Update{Key: "m", Policy: fixed(2, time.Minute), Cost: 1}
		update(t, s, t0, perSecond, perMinute)
		trips := 1
		if stop {
			trips = 2
		}
		if _, n := mainRec.take(); n != trips {
			t.Errorf("stop=%v: %d round trips to the main Redis, want %d", stop, n, trips)
		}
		if cmds, n := secRec.take(); n != trips || !slices.Contains(cmds, "expire s 1") {
			t.Errorf("stop=%v: per-second Redis got %q in %d round trips, want expire s 1 in %d", stop, cmds, n, trips)
		}
		if get(t, main, "m") != "1" || get(t, main, "s") != "" || get(t, sec, "s") != "1" || get(t, sec, "m") != "" {
			t.Errorf("stop=%v: main m=%q s=%q, per-second m=%q s=%q; want m in main, s in per-second", stop,
				get(t, main, "m"), get(t, main, "s"), get(t, sec, "m"), get(t, sec, "s"))
		}
	}
}

// TestLocalCacheCopiesKeysOnRefresh: a key remembered again is kept as a
// copy; the caller's buffer, overwritten afterwards, does not rename it.
func TestLocalCacheCopiesKeysOnRefresh(t *testing.T) {
	c := newLocalCache(1 << 10)
	buf := []byte("d_k_a_60")
	c.put(string(buf), 1, 100, 0)
	c.put(unsafe.String(&buf[0], len(buf)), 1, 200, 0)
	copy(buf, "d_k_b_60")
	if !c.over("d_k_a_60", 150, 1) {
		t.Error("d_k_a_60 forgotten after its key's buffer was reused")
	}
	if c.over("d_k_b_60", 150, 1) {
		t.Error("d_k_b_60 remembered: the cache kept the caller's buffer as its key")
	}
}

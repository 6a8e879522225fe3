package cached

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// TestLocalDecisionsSendNothing: within the allowance, decisions send no
// Redis command; a flush of many counters is one round trip (one script
// call) that writes them all; the next allowance is then local again.
func TestLocalDecisionsSendNothing(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	var cmds commands
	c.AddHook(&cmds)
	s := newStore(t, c, Options{MaxUnflushed: 5})
	p := counter.Policy{Max: 1000, Window: time.Minute}
	hit(t, s, t0, "{rt}warm-up", p, 1) // connect and load the script
	mustFlush(t, s)
	cmds.take()
	for k := range 50 {
		for range 5 {
			if !hit(t, s, t0, fmt.Sprint("{rt}k", k), p, 1) {
				t.Fatalf("counter %d: a hit was rejected", k)
			}
		}
	}
	if names, trips := cmds.take(); trips != 0 {
		t.Errorf("250 local decisions sent %d round trips (%v), want none", trips, names)
	}
	mustFlush(t, s)
	if names, trips := cmds.take(); trips != 1 || names["evalsha"] != 1 {
		t.Errorf("Flush of 50 counters: %d round trips %v, want one EVALSHA", trips, names)
	}
	for k := range 50 {
		if got := stored(t, c, fmt.Sprint("{rt}k", k)); got != (counter.State{Time: t0.UnixMicro(), Count: 5}) {
			t.Errorf("counter %d: Redis holds %+v, want 5 hits in the window of t0", k, got)
		}
	}
	cmds.take()
	hit(t, s, t0, "{rt}k0", p, 1)
	if names, trips := cmds.take(); trips != 0 {
		t.Errorf("a decision after the flush sent %d round trips (%v), want none", trips, names)
	}
	// The sixth unacknowledged hit waits for a flush: one round trip.
	for range 5 {
		hit(t, s, t0, "{rt}k0", p, 1)
	}
	if names, trips := cmds.take(); trips != 1 || names["evalsha"] != 1 {
		t.Errorf("a decision past the allowance: %d round trips %v, want one EVALSHA", trips, names)
	}
}

// TestSharesKeysWithExactStore: the approximate store writes the exact
// store's keys and format, so both count on one counter: the exact store
// sees flushed hits and the approximate one learns the exact store's at its
// next flush.
func TestSharesKeysWithExactStore(t *testing.T) {
	srv := redistest.Start(t)
	prefix := redis.Options{KeyPrefix: "rl:"}
	approx := newStore(t, newClient(t, srv), Options{Redis: prefix, MaxUnflushed: 100})
	exact, err := redis.New(newClient(t, srv), prefix)
	if err != nil {
		t.Fatal(err)
	}
	p := counter.Policy{Max: 10, Window: time.Minute}
	const key = "{share}k"
	for range 3 {
		hit(t, approx, t0, key, p, 1)
	}
	mustFlush(t, approx)
	ds := make([]counter.Decision, 1)
	update := func(s counter.Store, at time.Time) counter.Decision {
		t.Helper()
		if err := s.Update(context.Background(), at, []counter.Update{{Key: key, Policy: p, Cost: 1}}, ds); err != nil {
			t.Fatal(err)
		}
		return ds[0]
	}
	want := counter.Decision{Allowed: true, Used: 4, Remaining: 6, ResetAfter: 50 * time.Second}
	if diff := cmp.Diff(want, update(exact, t0.Add(10*time.Second))); diff != "" {
		t.Errorf("exact store after 3 flushed hits (-want +got):\n%s", diff)
	}
	// The approximate store's view is 3; it flushes its next hit and reads 5.
	if d := update(approx, t0.Add(20*time.Second)); d.Used != 4 {
		t.Errorf("approximate store before its flush: Used %v, want 4 (its view)", d.Used)
	}
	mustFlush(t, approx)
	want = counter.Decision{Allowed: true, Used: 6, Remaining: 4, ResetAfter: 30 * time.Second}
	if diff := cmp.Diff(want, update(approx, t0.Add(30*time.Second))); diff != "" {
		t.Errorf("approximate store after its flush (-want +got):\n%s", diff)
	}
	mustFlush(t, approx)
	if got := stored(t, approx.client, "rl:"+key); got != (counter.State{Time: t0.UnixMicro(), Count: 6}) {
		t.Errorf("Redis holds %+v, want 6 hits in the window of t0", got)
	}
}

// TestExactPath: a batch with another algorithm than the fixed window is
// the exact store's, decided in Redis at once.
func TestExactPath(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, newClient(t, srv), Options{})
	tests := []struct {
		name    string
		updates []counter.Update
	}{
		{"token bucket", []counter.Update{{Key: "{x}tb", Policy: counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: 5, Window: time.Minute}, Cost: 1}}},
		{"GCRA", []counter.Update{{Key: "{x}gcra", Policy: counter.Policy{Algorithm: counter.AlgorithmGCRA, Max: 5, Window: time.Minute}, Cost: 1}}},
		{"mixed", []counter.Update{
			{Key: "{x}fw", Policy: counter.Policy{Max: 5, Window: time.Minute}, Cost: 1},
			{Key: "{x}sw", Policy: counter.Policy{Algorithm: counter.AlgorithmSlidingWindow, Max: 5, Window: time.Minute}, Cost: 1},
		}},
	}
	for i, tc := range tests {
		if err := s.Update(context.Background(), t0, tc.updates, make([]counter.Decision, len(tc.updates))); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := s.Stats().ExactBatches; got != uint64(i+1) {
			t.Errorf("%s: ExactBatches = %d, want %d", tc.name, got, i+1)
		}
		for _, u := range tc.updates {
			if st := stored(t, s.client, u.Key); st == (counter.State{}) {
				t.Errorf("%s: Redis holds nothing for %s, want the state the exact store wrote at once", tc.name, u.Key)
			}
		}
	}
	if got := s.Stats().Counters; got != 0 {
		t.Errorf("Counters = %d, want 0: the exact path keeps nothing", got)
	}
}

// TestRedisDown: with Redis killed, the store keeps deciding from its view
// (up to the limit, no more), keeps the hits pending and marks itself
// down; when Redis is back, a flush writes them and ends it.
func TestRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	var events []string
	s := newStore(t, newClient(t, srv), Options{MaxUnflushed: 2, OnStateChange: func(down bool, err error) {
		events = append(events, fmt.Sprintf("down=%v err=%v", down, err != nil))
	}})
	p := counter.Policy{Max: 20, Window: time.Minute}
	const key = "{down}k"
	for range 5 {
		hit(t, s, t0, key, p, 1)
	}
	flushed := stored(t, s.client, key).Count // lost with the server
	srv.Kill()
	admitted := 5
	for range 40 {
		if hit(t, s, t0, key, p, 1) {
			admitted++
		}
	}
	if admitted != 20 {
		t.Errorf("admitted %d with Redis down, want the limit, 20", admitted)
	}
	st := s.Stats()
	if !st.Down || st.FlushErrors == 0 || st.Pending == 0 {
		t.Errorf("Stats() = %+v, want down, a flush error and pending hits", st)
	}
	srv.Restart(t)
	// go-redis may need a retry to notice the new server.
	for i := 0; s.Flush(context.Background()) != nil; i++ {
		if i == 50 {
			t.Fatal("Flush keeps failing after Restart")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st := s.Stats(); st.Down || st.Pending != 0 {
		t.Errorf("Stats() after a flush = %+v, want up, nothing pending", st)
	}
	if diff := cmp.Diff([]string{"down=true err=true", "down=false err=false"}, events); diff != "" {
		t.Errorf("OnStateChange calls (-want +got):\n%s", diff)
	}
	if got := stored(t, s.client, key); got.Count != 20-flushed {
		t.Errorf("Redis holds %+v after the flush, want the %d hits pending while it was down (the %d flushed before were lost with it)", got, 20-flushed, flushed)
	}
}

// TestBoundedMemory: at most MaxCounters counters are kept; with Redis
// down and every counter holding unacknowledged hits, a new counter is an
// error, not a forgotten hit, and counters of ended windows make room.
func TestBoundedMemory(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, newClient(t, srv), Options{MaxCounters: 4})
	p := counter.Policy{Max: 100, Window: time.Minute}
	for k := range 10 {
		hit(t, s, t0, fmt.Sprint("{mem}", k), p, 1)
		if n := s.Stats().Counters; n > 4 {
			t.Fatalf("after counter %d: %d counters kept, want at most 4", k, n)
		}
	}
	mustFlush(t, s)
	srv.Kill()
	for k := range 4 {
		hit(t, s, t0, fmt.Sprint("{mem}down", k), p, 1)
	}
	err := s.Update(context.Background(), t0, []counter.Update{{Key: "{mem}one more", Policy: p, Cost: 1}}, make([]counter.Decision, 1))
	if err == nil || !strings.Contains(err.Error(), "no room") {
		t.Errorf("Update of a fifth counter with Redis down = %v, want an error saying there is no room", err)
	}
	if !hit(t, s, t0, "{mem}a check", p, 0) {
		t.Error("a check of a new counter was rejected: a check keeps nothing, so needs no room")
	}
	if !hit(t, s, t0.Add(time.Minute), "{mem}next window", p, 1) {
		t.Error("a counter in the next window was rejected: the ended windows' counters should make room")
	}
}

// TestCloseFlushes: Close writes what is pending; Update then fails.
func TestCloseFlushes(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	s, err := New(c, Options{FlushPeriod: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	p := counter.Policy{Max: 100, Window: time.Minute}
	for range 7 {
		hit(t, s, t0, "{close}k", p, 1)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := stored(t, c, "{close}k"); got.Count != 7 {
		t.Errorf("Redis holds %+v after Close, want 7 hits", got)
	}
	if err := s.Update(context.Background(), t0, []counter.Update{{Key: "{close}k", Policy: p, Cost: 1}}, make([]counter.Decision, 1)); err == nil {
		t.Error("Update after Close = nil, want an error")
	}
}

// TestBatchSizeStartsFlush: BatchSize counters with pending hits start a
// flush without waiting for the period (an hour here).
func TestBatchSizeStartsFlush(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, newClient(t, srv), Options{FlushPeriod: time.Hour, BatchSize: 3, MaxUnflushed: 100})
	p := counter.Policy{Max: 100, Window: time.Minute}
	hit(t, s, t0, "{batch}a", p, 1)
	hit(t, s, t0, "{batch}b", p, 1)
	if got := s.Stats().Flushes; got != 0 {
		t.Fatalf("Flushes = %d with 2 counters pending, want 0", got)
	}
	hit(t, s, t0, "{batch}c", p, 1)
	deadline := time.Now().Add(10 * time.Second)
	for s.Stats().Flushes == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no flush started after 3 counters had pending hits")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for _, k := range []string{"a", "b", "c"} {
		if got := stored(t, s.client, "{batch}"+k); got.Count != 1 {
			t.Errorf("Redis holds %+v for %s, want 1 hit", got, k)
		}
	}
}

func TestNewErrors(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"server time", Options{Redis: redis.Options{ServerTime: true}}, "ServerTime"},
		{"negative batch", Options{BatchSize: -1}, "negative batch size"},
		{"negative counters", Options{MaxCounters: -1}, "negative max counters"},
		{"negative timeout", Options{FlushTimeout: -1}, "negative flush timeout"},
		{"brace in prefix", Options{Redis: redis.Options{KeyPrefix: "{x"}}, "brace"},
	}
	for _, tc := range tests {
		_, err := New(c, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%s) = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// TestFirstHitWindowsAdoptRedis: windows from the first hit (limitador's)
// start at an instance's own first hit until its first flush, which
// adopts the window Redis holds (started by another instance's flush), so
// that the instances end the window together.
func TestFirstHitWindowsAdoptRedis(t *testing.T) {
	srv := redistest.Start(t)
	a := newStore(t, newClient(t, srv), Options{MaxUnflushed: 100})
	b := newStore(t, newClient(t, srv), Options{MaxUnflushed: 100})
	p := counter.Policy{Max: 10, Window: time.Minute, FirstHit: true}
	const key = "{first}k"
	hit(t, a, t0, key, p, 1)
	mustFlush(t, a)
	hit(t, b, t0.Add(30*time.Second), key, p, 1) // b's own window starts here
	mustFlush(t, b)
	want := counter.State{Time: t0.UnixMicro(), Count: 2}
	if got := stored(t, a.client, key); got != want {
		t.Errorf("Redis holds %+v, want %+v: b's hit in a's window", got, want)
	}
	ds := make([]counter.Decision, 1)
	if err := b.Update(context.Background(), t0.Add(40*time.Second), []counter.Update{{Key: key, Policy: p}}, ds); err != nil {
		t.Fatal(err)
	}
	if wantD := (counter.Decision{Allowed: true, Used: 2, Remaining: 8, ResetAfter: 20 * time.Second}); ds[0] != wantD {
		t.Errorf("b's check after its flush = %+v, want %+v (a's window, ending at t0+1m)", ds[0], wantD)
	}
	hit(t, b, t0.Add(61*time.Second), key, p, 1) // a new window, from b's hit
	mustFlush(t, b)
	want = counter.State{Time: t0.Add(61 * time.Second).UnixMicro(), Count: 1}
	if got := stored(t, b.client, key); got != want {
		t.Errorf("Redis holds %+v after the window ended, want %+v", got, want)
	}
}

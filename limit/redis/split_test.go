package redis

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// newSplitClusterStore starts a Redis Cluster and returns a Store with
// SplitHashTags on a Cluster client for it.
func newSplitClusterStore(t *testing.T) (*Store, goredis.UniversalClient) {
	t.Helper()
	srv := redistest.StartCluster(t)
	c, err := NewClient(srv.URL() + "?addr=" + srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return newStore(t, c, Options{SplitHashTags: true}), c
}

// count returns the hits Redis holds for key, 0 when it holds none.
func count(t *testing.T, c goredis.UniversalClient, key string) uint64 {
	t.Helper()
	v, err := c.Get(context.Background(), key).Result()
	if err == goredis.Nil {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	st, err := script.ParseState(v)
	if err != nil {
		t.Fatal(err)
	}
	return st.Count
}

// TestSplitHashTags: on a Redis Cluster, a batch of several hash tags is
// decided one tag at a time, in one pipeline: all or nothing within a tag,
// a tag with room counted even when another is over.
func TestSplitHashTags(t *testing.T) {
	s, c := newSplitClusterStore(t)
	ctx := context.Background()
	p := counter.Policy{Max: 2, Window: time.Minute}

	t.Run("every tag admitted", func(t *testing.T) {
		// Load the script first: the server answers NOSCRIPT only once.
		if err := s.Update(ctx, t0, []counter.Update{{Key: "{warm}x", Policy: p, Cost: 0}}, make([]counter.Decision, 1)); err != nil {
			t.Fatal(err)
		}
		var hook commandCounter
		c.AddHook(&hook)
		updates := []counter.Update{{Key: "{a}x", Policy: p, Cost: 1}, {Key: "{b}x", Policy: p, Cost: 1}, {Key: "{a}y", Policy: p, Cost: 1}}
		ds := make([]counter.Decision, len(updates))
		if err := s.Update(ctx, t0, updates, ds); err != nil {
			t.Fatal(err)
		}
		if got := hook.take(); !cmp.Equal(got, map[string]int{"pipeline": 1}) {
			t.Errorf("commands of an Update under 2 hash tags = %v, want one pipeline", got)
		}
		for i, d := range ds {
			if !d.Allowed || !d.PartAdmitted || d.Remaining != 1 {
				t.Errorf("decision %d (%s) = %+v, want allowed, PartAdmitted, 1 remaining", i, updates[i].Key, d)
			}
		}
		for _, k := range []string{"{a}x", "{b}x", "{a}y"} {
			if n := count(t, c, k); n != 1 {
				t.Errorf("Redis holds %d hits for %s, want 1", n, k)
			}
		}
	})

	t.Run("one tag over", func(t *testing.T) {
		if err := s.Update(ctx, t0, []counter.Update{{Key: "{c}full", Policy: p, Cost: 2}}, make([]counter.Decision, 1)); err != nil {
			t.Fatal(err)
		}
		updates := []counter.Update{{Key: "{c}other", Policy: p, Cost: 1}, {Key: "{c}full", Policy: p, Cost: 1}, {Key: "{d}x", Policy: p, Cost: 1}}
		ds := make([]counter.Decision, len(updates))
		if err := s.Update(ctx, t0, updates, ds); err != nil {
			t.Fatal(err)
		}
		// {c} is over: its allowed update is a check and nothing of it
		// moves; {d} had room and is counted.
		if d := ds[0]; !d.Allowed || d.PartAdmitted || d.Remaining != 2 {
			t.Errorf("{c}other = %+v, want allowed as a check (2 remaining), not PartAdmitted", d)
		}
		if d := ds[1]; d.Allowed || d.PartAdmitted {
			t.Errorf("{c}full = %+v, want rejected", d)
		}
		if d := ds[2]; !d.Allowed || !d.PartAdmitted || d.Remaining != 1 {
			t.Errorf("{d}x = %+v, want allowed, PartAdmitted, 1 remaining", d)
		}
		want := map[string]uint64{"{c}other": 0, "{c}full": 2, "{d}x": 1}
		for k, n := range want {
			if got := count(t, c, k); got != n {
				t.Errorf("Redis holds %d hits for %s, want %d", got, k, n)
			}
		}
	})

	t.Run("one tag", func(t *testing.T) {
		ds := make([]counter.Decision, 2)
		if err := s.Update(ctx, t0, []counter.Update{{Key: "{e}x", Policy: p, Cost: 1}, {Key: "{e}y", Policy: p, Cost: 1}}, ds); err != nil {
			t.Fatal(err)
		}
		if ds[0].PartAdmitted || ds[1].PartAdmitted || !ds[0].Allowed || !ds[1].Allowed {
			t.Errorf("decisions of one hash tag = %+v, want allowed and not PartAdmitted (not split)", ds)
		}
	})
}

// TestFirstEntryTagsOnCluster runs envoyratelimit with keys tagged by the
// first entry over a Redis Cluster store that splits: a request spanning
// tenants is decided per tenant (over overall when one is over, the other
// charged), a request let through by the global shadow mode is not
// charged twice on the tenant already counted, and the tenant over counts
// the rejected hit.
func TestFirstEntryTagsOnCluster(t *testing.T) {
	s, c := newSplitClusterStore(t)
	cfg, err := envoyratelimit.Load([]envoyratelimit.File{{Key: "config.t", Data: []byte(`domain: d
descriptors:
  - key: tenant
    value: a
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: tenant
    rate_limit: {unit: minute, requests_per_unit: 5}
`)}}, envoyratelimit.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tenants := func(names ...string) *rlsmsg.Request {
		r := &rlsmsg.Request{Domain: "d"}
		for _, n := range names {
			r.Descriptors = append(r.Descriptors, rlsmsg.Descriptor{Entries: []rlsmsg.Entry{{Key: "tenant", Value: n}}})
		}
		return r
	}
	for _, shadow := range []bool{false, true} {
		mustDo(t, c, "FLUSHALL")
		ev, err := envoyratelimit.NewEvaluator(envoyratelimit.Options{Store: s, TagBy: limit.TagByFirstEntry, ShadowMode: shadow})
		if err != nil {
			t.Fatal(err)
		}
		ev = ev.WithConfig(cfg)
		decide := func(r *rlsmsg.Request) *limit.Result {
			t.Helper()
			res := new(limit.Result)
			if err := ev.Evaluate(context.Background(), t0, r, res); err != nil {
				t.Fatalf("shadow %v: Evaluate: %v", shadow, err)
			}
			return res
		}
		if got := decide(tenants("a", "b")).OverallCode; got != rlsmsg.CodeOK {
			t.Fatalf("shadow %v: first request %v, want OK", shadow, got)
		}
		res := decide(tenants("a", "b"))
		wantOverall := rlsmsg.CodeOverLimit
		if shadow {
			wantOverall = rlsmsg.CodeOK
		}
		if res.OverallCode != wantOverall || res.Statuses[0].Code != rlsmsg.CodeOverLimit || res.Statuses[1].Code != rlsmsg.CodeOK {
			t.Errorf("shadow %v: a over, b with room: %v %+v, want %v (a over, b OK)", shadow, res.OverallCode, res.Statuses, wantOverall)
		}
		if got := res.Statuses[1].LimitRemaining; got != 3 {
			t.Errorf("shadow %v: b's remaining %d after its second hit, want 3", shadow, got)
		}
		if got := count(t, c, "{d|tenant|b}R60:fixed_window:1:6:tenant1:b"); got != 2 {
			t.Errorf("shadow %v: Redis holds %d hits for tenant b, want 2 (charged under its own tag, once)", shadow, got)
		}
		if got := count(t, c, "{d|tenant|a}R60:fixed_window:1:6:tenant1:a"); got != 2 {
			t.Errorf("shadow %v: Redis holds %d hits for tenant a, want 2 (its rejected hit counted, as envoyproxy/ratelimit counts it)", shadow, got)
		}
	}
}

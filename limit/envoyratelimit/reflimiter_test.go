package envoyratelimit

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestRefNearLimit restates the reference's TestNearLimit and the
// GetResponseDescriptorStatus tests of test/limiter: near_limit counts the
// admitted hits above NEAR_LIMIT_RATIO of the limit (floor), a hits_addend
// counting the part above it; within_limit the admitted hits; over_limit
// and shadow_mode the rejected ones. A request that crosses the limit
// has its hits split between near_limit (up to the limit) and over_limit,
// as the reference splits them: its counter counts them as the
// reference's does (limit/envoyratelimit's package doc).
func TestRefNearLimit(t *testing.T) {
	cfg := mustLoad(t, `domain: d
descriptors:
  - key: k4
    rate_limit: {unit: hour, requests_per_unit: 15}
  - key: k5
    rate_limit: {unit: second, requests_per_unit: 20}
  - key: k6
    rate_limit: {unit: second, requests_per_unit: 8}
  - key: k7
    rate_limit: {unit: second, requests_per_unit: 20}
  - key: k8
    rate_limit: {unit: second, requests_per_unit: 20}
  - key: k10
    rate_limit: {unit: second, requests_per_unit: 10}
  - key: shadow
    shadow_mode: true
    rate_limit: {unit: second, requests_per_unit: 5}
`)
	got := map[string]RuleCounts{}
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), NearLimitRatio: 0.8, Observe: func(s Stat, c RuleCounts) {
		g := got[s.Key]
		g.TotalHits += c.TotalHits
		g.OverLimit += c.OverLimit
		g.NearLimit += c.NearLimit
		g.WithinLimit += c.WithinLimit
		g.ShadowMode += c.ShadowMode
		got[s.Key] = g
	}})
	if err != nil {
		t.Fatal(err)
	}
	send := func(key string, hits uint64) Code {
		t.Helper()
		d := desc(key, "v")
		d.HitsAddend = u64(hits)
		r := req(d)
		res, err := evaluate(ev, cfg, t0, &r)
		if err != nil {
			t.Fatal(err)
		}
		return res.Statuses[0].Code
	}
	// k4, 15 an hour, near from 12: hits 1..11, then 12 and 13 (near), 14,
	// 15 (near), 16 over.
	for range 16 {
		send("k4", 1)
	}
	send("k5", 3) // 3 of 20: within
	send("k6", 5) // to 5 of 8 (near from 6)
	send("k6", 2) // to 7: one hit near
	send("k7", 16)
	send("k7", 3) // from 16 to 19, all near (from 16)
	send("k8", 19)
	if c := send("k8", 3); c != CodeOverLimit { // 19 to 22: rejected, 1 near, 2 over
		t.Errorf("k8 crossing the limit = %v, want OVER_LIMIT", c)
	}
	send("k10", 10)
	send("k10", 3) // already full: all over
	for range 6 {
		send("shadow", 1)
	}
	want := map[string]RuleCounts{
		"d.k4":     {TotalHits: 16, WithinLimit: 15, NearLimit: 3, OverLimit: 1},
		"d.k5":     {TotalHits: 3, WithinLimit: 3},
		"d.k6":     {TotalHits: 7, WithinLimit: 7, NearLimit: 1},
		"d.k7":     {TotalHits: 19, WithinLimit: 19, NearLimit: 3},
		"d.k8":     {TotalHits: 22, WithinLimit: 19, NearLimit: 4, OverLimit: 2},
		"d.k10":    {TotalHits: 13, WithinLimit: 10, NearLimit: 2, OverLimit: 3},
		"d.shadow": {TotalHits: 6, WithinLimit: 5, NearLimit: 1, OverLimit: 1, ShadowMode: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statistics (-want +got):\n%s", diff)
	}
}

// TestRefNearLimitThresholdSinglePrecision: the near_limit threshold is
// floor(limit x NEAR_LIMIT_RATIO) computed in single precision, as the
// reference reads the ratio: 0.29 of 100 is 29 (28.999999999999996 in
// double precision would make it 28).
func TestRefNearLimitThresholdSinglePrecision(t *testing.T) {
	cfg := mustLoad(t, "domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 100}\n")
	var near uint64
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), NearLimitRatio: 0.29, Observe: func(_ Stat, c RuleCounts) {
		near += c.NearLimit
	}})
	if err != nil {
		t.Fatal(err)
	}
	d := desc("k", "v")
	d.HitsAddend = u64(29)
	r := req(d)
	if _, err := evaluate(ev, cfg, t0, &r); err != nil {
		t.Fatal(err)
	}
	if near != 0 {
		t.Errorf("29 hits of 100 at ratio 0.29: near_limit %d, want 0 (the threshold is 29)", near)
	}
	d.HitsAddend = u64(1)
	r = req(d)
	if _, err := evaluate(ev, cfg, t0, &r); err != nil {
		t.Fatal(err)
	}
	if near != 1 {
		t.Errorf("the 30th hit: near_limit %d, want 1", near)
	}
}

// TestRefOverLimitWithStopCacheKeyIncrement restates the reference's
// TestOverLimitWithStopCacheKeyIncrementWhenOverlimitConfig: two
// descriptors counted together; when one goes over, only its counter
// counts the request (past its limit), the other does not move, and the
// statistics are the reference's.
func TestRefOverLimitWithStopCacheKeyIncrement(t *testing.T) {
	cfg := mustLoad(t, `domain: d
descriptors:
  - key: key4
    rate_limit: {unit: hour, requests_per_unit: 15}
  - key: key5
    rate_limit: {unit: hour, requests_per_unit: 14}
`)
	got := map[string]RuleCounts{}
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), Observe: func(s Stat, c RuleCounts) {
		g := got[s.Key]
		g.TotalHits += c.TotalHits
		g.OverLimit += c.OverLimit
		g.NearLimit += c.NearLimit
		g.WithinLimit += c.WithinLimit
		got[s.Key] = g
	}})
	if err != nil {
		t.Fatal(err)
	}
	send := func(hits4, hits5 uint64) []Status {
		t.Helper()
		d4, d5 := desc("key4", "value4"), desc("key5", "value5")
		d4.HitsAddend, d5.HitsAddend = u64(hits4), u64(hits5)
		r := req(d4, d5)
		res, err := evaluate(ev, cfg, t0, &r)
		if err != nil {
			t.Fatal(err)
		}
		return res.Statuses
	}
	send(10, 10) // the reference's test starts with both counters at 10
	clear(got)
	remaining := func(sts []Status) []any {
		return []any{sts[0].Code, sts[0].LimitRemaining, sts[1].Code, sts[1].LimitRemaining}
	}
	steps := []struct {
		hits uint64
		want []any
	}{
		{1, []any{CodeOK, uint32(4), CodeOK, uint32(3)}},
		{2, []any{CodeOK, uint32(2), CodeOK, uint32(1)}},
		// key5 goes from 13 to 15 of 14: counted; key4 stays at 13.
		{2, []any{CodeOK, uint32(2), CodeOverLimit, uint32(0)}},
	}
	for i, st := range steps {
		if diff := cmp.Diff(st.want, remaining(send(st.hits, st.hits))); diff != "" {
			t.Errorf("step %d: statuses (-want +got):\n%s", i, diff)
		}
	}
	want := map[string]RuleCounts{
		"d.key4": {TotalHits: 5, WithinLimit: 5, NearLimit: 2},
		"d.key5": {TotalHits: 5, WithinLimit: 3, NearLimit: 3, OverLimit: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statistics (-want +got):\n%s", diff)
	}
	// key5 holds 15 of 14: over even for a check; key4 13 of 15.
	if diff := cmp.Diff([]any{CodeOK, uint32(2), CodeOverLimit, uint32(0)}, remaining(send(0, 0))); diff != "" {
		t.Errorf("checks after: statuses (-want +got):\n%s", diff)
	}
}

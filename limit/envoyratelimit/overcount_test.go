package envoyratelimit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/limit/counter"
)

const overConfig = `domain: d
descriptors:
  - key: a
    rate_limit: {unit: minute, requests_per_unit: 2}
  - key: b
    rate_limit: {unit: minute, requests_per_unit: 5}
  - key: s
    shadow_mode: true
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: q
    quota_mode: true
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: tb
    rate_limit: {unit: minute, requests_per_unit: 2, algorithm: token_bucket}
`

func hits(d Descriptor, n uint64) Descriptor { d.HitsAddend = &n; return d }

// overSteps are the answers of envoyproxy/ratelimit with
// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=true: the counters a rejected
// request is over count its hits, the others do not move.
var overSteps = []struct {
	name  string
	steps []step
}{
	{"the over counter counts the rejected hits, the other does not move", []step{
		{0, req(hits(desc("a", "x"), 2)), resp(OK, lim(OK, "", 2, UnitMinute, 0, 50*sec)), ""},
		{0, req(desc("a", "x"), desc("b", "x")), resp(OVER, lim(OVER, "", 2, UnitMinute, 0, 50*sec), lim(OK, "", 5, UnitMinute, 5, 50*sec)), ""},
		// a holds 3 of 2: a check is over; b holds none.
		{0, req(hits(desc("a", "x"), 0)), resp(OVER, lim(OVER, "", 2, UnitMinute, 0, 50*sec)), ""},
		{0, req(hits(desc("b", "x"), 0)), resp(OK, lim(OK, "", 5, UnitMinute, 5, 50*sec)), ""},
		{0, req(desc("b", "x")), resp(OK, lim(OK, "", 5, UnitMinute, 4, 50*sec)), ""},
		{60 * sec, req(hits(desc("a", "x"), 0)), resp(OK, lim(OK, "", 2, UnitMinute, 2, 50*sec)), ""},
	}},
	{"a check on the request, the cost when the response is done (Envoy Gateway)", []step{
		{0, req(hits(desc("a", "t"), 0)), resp(OK, lim(OK, "", 2, UnitMinute, 2, 50*sec)), ""},
		{0, req(desc("a", "t")), resp(OK, lim(OK, "", 2, UnitMinute, 1, 50*sec)), ""},
		{0, req(hits(desc("a", "t"), 0)), resp(OK, lim(OK, "", 2, UnitMinute, 1, 50*sec)), ""},
		{0, req(desc("a", "t")), resp(OK, lim(OK, "", 2, UnitMinute, 0, 50*sec)), ""},
		// At the limit: the check passes, its response goes over and counts.
		{0, req(hits(desc("a", "t"), 0)), resp(OK, lim(OK, "", 2, UnitMinute, 0, 50*sec)), ""},
		{0, req(desc("a", "t")), resp(OVER, lim(OVER, "", 2, UnitMinute, 0, 50*sec)), ""},
		{0, req(hits(desc("a", "t"), 0)), resp(OVER, lim(OVER, "", 2, UnitMinute, 0, 50*sec)), ""},
	}},
	{"a quota over while another has room: OK, and the over quota counts", []step{
		{0, req(desc("q", "x")), resp(OK, lim(OK, "", 1, UnitMinute, 0, 50*sec)), ""},
		{0, req(desc("q", "x"), desc("q", "y")), resp(OK, lim(OVER, "", 1, UnitMinute, 0, 50*sec), lim(OK, "", 1, UnitMinute, 0, 50*sec)), ""},
		{0, req(hits(desc("q", "x"), 0)), resp(OVER, lim(OVER, "", 1, UnitMinute, 0, 50*sec)), ""},
	}},
	{"other algorithms do not count a rejected hit", []step{
		{0, req(hits(desc("tb", "x"), 2)), resp(OK, lim(OK, "", 2, UnitMinute, 0, 60*sec)), ""},
		{0, req(desc("tb", "x")), resp(OVER, lim(OVER, "", 2, UnitMinute, 0, 60*sec)), ""},
		{0, req(hits(desc("tb", "x"), 0)), resp(OK, lim(OK, "", 2, UnitMinute, 0, 60*sec)), ""},
	}},
}

// TestEvaluateCountsOverHits runs overSteps on the memory store.
func TestEvaluateCountsOverHits(t *testing.T) {
	cfg := mustLoad(t, overConfig)
	for _, tc := range overSteps {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
			if err != nil {
				t.Fatal(err)
			}
			run(t, ev, cfg, tc.steps)
		})
	}
}

// TestEvaluateCountsOverShadow: a shadow_mode limit over counts its hits,
// and its request is let through, counted on every counter that had room.
func TestEvaluateCountsOverShadow(t *testing.T) {
	shadow := mustLoad(t, overConfig)
	// The same counters, without shadow_mode: their checks show the counts.
	plain := mustLoad(t, `domain: d
descriptors:
  - key: s
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: b
    rate_limit: {unit: minute, requests_per_unit: 5}
`)
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	run(t, ev, shadow, []step{
		{0, req(desc("s", "x")), resp(OK, lim(OK, "", 1, UnitMinute, 0, 50*sec)), ""},
		{0, req(desc("s", "x"), desc("b", "s")), resp(OK, lim(OK, "", 1, UnitMinute, 0, 50*sec), lim(OK, "", 5, UnitMinute, 4, 50*sec)), ""},
	})
	run(t, ev, plain, []step{
		{0, req(hits(desc("s", "x"), 0)), resp(OVER, lim(OVER, "", 1, UnitMinute, 0, 50*sec)), ""},
		{0, req(hits(desc("b", "s"), 0)), resp(OK, lim(OK, "", 5, UnitMinute, 4, 50*sec)), ""},
	})
}

// recordingStore records the batches it is given and fails those after
// the first failAfter.
type recordingStore struct {
	counter.Store
	batches   [][]counter.Update
	failAfter int
}

func (s *recordingStore) Update(ctx context.Context, now time.Time, u []counter.Update, d []counter.Decision) error {
	s.batches = append(s.batches, append([]counter.Update(nil), u...))
	if s.failAfter > 0 && len(s.batches) > s.failAfter {
		return errors.New("connection refused")
	}
	return s.Store.Update(ctx, now, u, d)
}

// TestEvaluateCountOverCall: the rejected hits are counted by one more
// batch, of the over counters only, with a capacity that cannot refuse
// them; its failure leaves the answer as it was and is reported.
func TestEvaluateCountOverCall(t *testing.T) {
	cfg := mustLoad(t, overConfig)
	st := &recordingStore{Store: counter.NewMemoryStore(counter.MemoryOptions{}), failAfter: 2}
	var errs []error
	ev, err := NewEvaluator(Options{Store: st, OnCountOverError: func(err error) { errs = append(errs, err) }})
	if err != nil {
		t.Fatal(err)
	}
	run(t, ev, cfg, []step{
		{0, req(hits(desc("a", "x"), 2)), resp(OK, lim(OK, "", 2, UnitMinute, 0, 50*sec)), ""},
		{0, req(desc("b", "x"), desc("a", "x")), resp(OVER, lim(OK, "", 5, UnitMinute, 5, 50*sec), lim(OVER, "", 2, UnitMinute, 0, 50*sec)), ""},
	})
	if len(st.batches) != 3 {
		t.Fatalf("%d store calls, want 3", len(st.batches))
	}
	second := st.batches[1]
	want := []counter.Update{{Key: second[1].Key, Policy: counter.Policy{Max: counter.MaxPolicyValue, Window: time.Minute}, Cost: 1}}
	if diff := cmp.Diff(want, st.batches[2]); diff != "" {
		t.Errorf("count-over batch (-want +got):\n%s", diff)
	}
	if len(errs) != 1 || errs[0].Error() != "connection refused" {
		t.Errorf("OnCountOverError got %v, want the store's error once", errs)
	}
}

// TestEvaluateCountOverReferenceKeys: with KeysReference the store counts
// as the reference does; no second batch.
func TestEvaluateCountOverReferenceKeys(t *testing.T) {
	cfg := mustLoad(t, overConfig)
	st := &recordingStore{Store: counter.NewMemoryStore(counter.MemoryOptions{})}
	ev, err := NewEvaluator(Options{Store: st, Keys: KeysReference})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		r := req(desc("a", "x"))
		if _, err := evaluate(ev, cfg, t0, &r); err != nil {
			t.Fatal(err)
		}
	}
	if len(st.batches) != 3 {
		t.Errorf("%d store calls for 3 requests, the third over, want 3", len(st.batches))
	}
}

// TestEvaluateCountOverStats: an over counter's hits are split between
// over_limit and near_limit as the reference splits them, the counter
// counting as the reference's does.
func TestEvaluateCountOverStats(t *testing.T) {
	cfg := mustLoad(t, `domain: d
descriptors:
  - key: k
    rate_limit: {unit: minute, requests_per_unit: 10}
`)
	var got []RuleCounts
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), Observe: func(_ Stat, c RuleCounts) { got = append(got, c) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []uint64{9, 3, 1} {
		r := req(hits(desc("k", "x"), n))
		if _, err := evaluate(ev, cfg, t0, &r); err != nil {
			t.Fatal(err)
		}
	}
	want := []RuleCounts{
		{TotalHits: 9, WithinLimit: 9, NearLimit: 1},
		// 9 → 12 of 10: 2 over, 1 near (from 9 to 10).
		{TotalHits: 3, OverLimit: 2, NearLimit: 1},
		{TotalHits: 1, OverLimit: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

package envoyratelimit

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// t0 is 10 s into a minute, an hour and a day.
var t0 = time.Unix(1_800_000_000-1_800_000_000%86400+10, 0)

const evalConfig = `domain: d
descriptors:
  - key: user
    rate_limit: {name: per-user, unit: minute, requests_per_unit: 2}
  - key: zero
    rate_limit: {unit: second, requests_per_unit: 0}
  - key: free
    rate_limit: {unlimited: true}
  - key: white
  - key: shadow
    shadow_mode: true
    rate_limit: {unit: hour, requests_per_unit: 1}
  - key: vip
    rate_limit:
      name: vip
      unit: minute
      requests_per_unit: 100
      replaces: [{name: per-user}]
  - key: freevip
    rate_limit:
      unlimited: true
      replaces: [{name: per-user}]
  - key: path
    value: "/api/*"
    share_threshold: true
    rate_limit: {unit: minute, requests_per_unit: 2}
    descriptors:
      - key: user
        rate_limit: {unit: minute, requests_per_unit: 3}
  - key: q1
    quota_mode: true
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: q2
    quota_mode: true
    rate_limit: {unit: minute, requests_per_unit: 5}
  - key: multi
    rate_limits:
      - {name: burst, unit: second, requests_per_unit: 3}
      - {name: hourly, unit: hour, requests_per_unit: 4}
  - key: twins
    rate_limits:
      - {name: per-minute, unit: minute, requests_per_unit: 2}
      - {name: per-60s, unit: second, unit_multiplier: 60, requests_per_unit: 5}
  - key: ten
    rate_limit: {unit: second, unit_multiplier: 10, requests_per_unit: 1}
  - key: week
    rate_limit: {unit: week, requests_per_unit: 1}
`

// step is one request of a sequence and its expected answer.
type step struct {
	at   time.Duration // after t0
	req  Request
	want *Response
	err  string
}

func desc(kv ...string) Descriptor {
	var d Descriptor
	for i := 0; i < len(kv); i += 2 {
		d.Entries = append(d.Entries, Entry{Key: kv[i], Value: kv[i+1]})
	}
	return d
}

func req(ds ...Descriptor) Request { return Request{Domain: "d", Descriptors: ds} }

func ok() Status { return Status{Code: CodeOK} }

func lim(code Code, name string, rpu uint32, unit Unit, remaining uint32, reset time.Duration) Status {
	return Status{Code: code, CurrentLimit: &CurrentLimit{Name: name, RequestsPerUnit: rpu, Unit: unit}, LimitRemaining: remaining, DurationUntilReset: reset, HasDurationUntilReset: true}
}

func resp(code Code, sts ...Status) *Response {
	return &Response{Response: rlsmsg.Response{OverallCode: code, Statuses: sts}}
}

// ignoreCounters leaves out of comparisons what the statuses tests do not
// spell out (TestEvaluateCounters checks it).
var ignoreCounters = cmpopts.IgnoreFields(Response{}, "Counters", "Configured", "Quota")

const (
	OK   = CodeOK
	OVER = CodeOverLimit
	sec  = time.Second
)

func run(t *testing.T, ev *Evaluator, cfg *Config, steps []step) {
	t.Helper()
	for i, s := range steps {
		got, err := evaluate(ev, cfg, t0.Add(s.at), &s.req)
		if s.err != "" {
			if err == nil || err.Error() != s.err {
				t.Fatalf("step %d: Evaluate(%+v) error = %v, want %q", i, s.req, err, s.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d: Evaluate(%+v): %v", i, s.req, err)
		}
		if diff := cmp.Diff(s.want, got, ignoreCounters); diff != "" {
			t.Fatalf("step %d: Evaluate(%+v) (-want +got):\n%s", i, s.req, diff)
		}
	}
}

func mustLoad(t *testing.T, src string) *Config {
	t.Helper()
	cfg, err := Load([]File{{Key: "config.t", Data: []byte(src)}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestEvaluate(t *testing.T) {
	cfg := mustLoad(t, evalConfig)
	withHits := func(d Descriptor, n uint64) Descriptor { d.HitsAddend = &n; return d }
	withOverride := func(d Descriptor, rpu uint32, u Unit) Descriptor {
		d.Limit = &Override{RequestsPerUnit: rpu, Unit: u}
		return d
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"fixed window, epoch aligned, remaining and reset", []step{
			{0, req(desc("user", "a")), resp(OK, lim(OK, "per-user", 2, UnitMinute, 1, 50*sec)), ""},
			{sec / 2, req(desc("user", "a")), resp(OK, lim(OK, "per-user", 2, UnitMinute, 0, 50*sec)), ""},
			{1 * sec, req(desc("user", "a")), resp(OVER, lim(OVER, "per-user", 2, UnitMinute, 0, 49*sec)), ""},
			{1 * sec, req(desc("user", "b")), resp(OK, lim(OK, "per-user", 2, UnitMinute, 1, 49*sec)), ""},
			{50 * sec, req(desc("user", "a")), resp(OK, lim(OK, "per-user", 2, UnitMinute, 1, 60*sec)), ""},
		}},
		{"requests_per_unit 0 is always over", []step{
			{0, req(desc("zero", "x")), resp(OVER, lim(OVER, "", 0, UnitSecond, 0, 1*sec)), ""},
		}},
		{"a descriptor without entries matches nothing", []step{
			{0, req(Descriptor{}), resp(OK, ok()), ""},
		}},
		{"unlimited, whitelist, unmatched", []step{
			{0, req(desc("free", "x"), desc("white", "y"), desc("nope", "z")), resp(OK, Status{Code: OK, LimitRemaining: math.MaxUint32}, ok(), ok()), ""},
		}},
		{"shadow_mode rule", []step{
			{0, req(desc("shadow", "x")), resp(OK, lim(OK, "", 1, UnitHour, 0, 3590*sec)), ""},
			{0, req(desc("shadow", "x")), resp(OK, lim(OK, "", 1, UnitHour, 0, 3590*sec)), ""},
		}},
		{"replaces drops the named limit", []step{
			{0, req(desc("user", "r"), desc("vip", "r")), resp(OK, ok(), lim(OK, "vip", 100, UnitMinute, 99, 50*sec)), ""},
			{0, req(desc("user", "r")), resp(OK, lim(OK, "per-user", 2, UnitMinute, 1, 50*sec)), ""},
		}},
		{"an over-limit descriptor reports none remaining and counts its rejected hits", []step{
			{0, Request{Domain: "d", HitsAddend: 5, Descriptors: []Descriptor{desc("user", "big")}}, resp(OVER, lim(OVER, "per-user", 2, UnitMinute, 0, 50*sec)), ""},
			// 5 of 2, as the reference counts: over until the window ends.
			{0, req(withHits(desc("user", "big"), 0)), resp(OVER, lim(OVER, "per-user", 2, UnitMinute, 0, 50*sec)), ""},
			{0, req(desc("user", "big")), resp(OVER, lim(OVER, "per-user", 2, UnitMinute, 0, 50*sec)), ""},
			{60 * sec, req(desc("user", "big")), resp(OK, lim(OK, "per-user", 2, UnitMinute, 1, 50*sec)), ""},
		}},
		{"two rate_limits with one window count apart", []step{
			{0, req(desc("twins", "t")), resp(OK, lim(OK, "per-minute", 2, UnitMinute, 1, 50*sec)), ""},
			{0, req(desc("twins", "t")), resp(OK, lim(OK, "per-minute", 2, UnitMinute, 0, 50*sec)), ""},
			{0, req(desc("twins", "t")), resp(OVER, lim(OVER, "per-minute", 2, UnitMinute, 0, 50*sec)), ""},
		}},
		{"an unlimited limit's replaces apply", []step{
			{0, req(desc("user", "u"), desc("freevip", "u")), resp(OK, ok(), Status{Code: OK, LimitRemaining: math.MaxUint32}), ""},
			{0, req(desc("user", "u"), desc("freevip", "u")), resp(OK, ok(), Status{Code: OK, LimitRemaining: math.MaxUint32}), ""},
			{0, req(desc("user", "u"), desc("freevip", "u")), resp(OK, ok(), Status{Code: OK, LimitRemaining: math.MaxUint32}), ""},
			{0, req(desc("user", "u")), resp(OK, lim(OK, "per-user", 2, UnitMinute, 1, 50*sec)), ""},
		}},
		{"all or nothing: a rejected request moves no counter", []step{
			{0, req(desc("user", "n")), resp(OK, lim(OK, "per-user", 2, UnitMinute, 1, 50*sec)), ""},
			{0, req(desc("user", "n"), desc("zero", "x")), resp(OVER, lim(OK, "per-user", 2, UnitMinute, 1, 50*sec), lim(OVER, "", 0, UnitSecond, 0, sec)), ""},
			{0, req(desc("user", "n")), resp(OK, lim(OK, "per-user", 2, UnitMinute, 0, 50*sec)), ""},
		}},
		{"hits_addend: request, descriptor, and 0 checks", []step{
			{0, Request{Domain: "d", HitsAddend: 2, Descriptors: []Descriptor{desc("user", "h")}}, resp(OK, lim(OK, "per-user", 2, UnitMinute, 0, 50*sec)), ""},
			// A check on a counter at its limit is OK, as in the reference:
			// only going over is over.
			{0, req(withHits(desc("user", "h"), 0)), resp(OK, lim(OK, "per-user", 2, UnitMinute, 0, 50*sec)), ""},
			{0, req(desc("user", "h")), resp(OVER, lim(OVER, "per-user", 2, UnitMinute, 0, 50*sec)), ""},
			{0, req(withHits(desc("user", "h2"), 0)), resp(OK, lim(OK, "per-user", 2, UnitMinute, 2, 50*sec)), ""},
			{0, Request{Domain: "d", HitsAddend: 5, Descriptors: []Descriptor{withHits(desc("user", "h3"), 1)}}, resp(OK, lim(OK, "per-user", 2, UnitMinute, 1, 50*sec)), ""},
		}},
		{"override replaces any match, even unmatched and whitelist", []step{
			{0, req(withOverride(desc("white", "o"), 1, UnitSecond)), resp(OK, lim(OK, "", 1, UnitSecond, 0, sec)), ""},
			{0, req(withOverride(desc("white", "o"), 1, UnitSecond)), resp(OVER, lim(OVER, "", 1, UnitSecond, 0, sec)), ""},
			{0, req(withOverride(desc("free", "o"), 5, UnitMinute)), resp(OK, lim(OK, "", 5, UnitMinute, 4, 50*sec)), ""},
			{0, req(withOverride(desc("nothing", "o"), 5, UnitDay)), resp(OK, lim(OK, "", 5, UnitDay, 4, 86390*sec)), ""},
		}},
		{"override ignored in an unknown domain", []step{
			{0, Request{Domain: "other", Descriptors: []Descriptor{withOverride(desc("a", "b"), 0, UnitSecond)}}, resp(OK, ok()), ""},
		}},
		{"override with unit UNKNOWN is an error", []step{
			{0, req(withOverride(desc("a", "b"), 1, UnitUnknown)), nil, "invalid request: descriptors[0].limit.unit: UNKNOWN is not a unit: want SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR"},
			{0, req(withOverride(desc("a", "b"), 1, Unit(99))), nil, "invalid request: descriptors[0].limit.unit: Unit(99) is not a unit: want SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR"},
		}},
		{"bad requests", []step{
			{0, Request{Descriptors: []Descriptor{desc("a", "b")}}, nil, "invalid request: domain: rate limit domain must not be empty"},
			{0, Request{Domain: "d"}, nil, "invalid request: descriptors: rate limit descriptor list must not be empty"},
		}},
		{"share_threshold: matching values share one counter", []step{
			{0, req(desc("path", "/api/a")), resp(OK, lim(OK, "", 2, UnitMinute, 1, 50*sec)), ""},
			{0, req(desc("path", "/api/b")), resp(OK, lim(OK, "", 2, UnitMinute, 0, 50*sec)), ""},
			{0, req(desc("path", "/api/c")), resp(OVER, lim(OVER, "", 2, UnitMinute, 0, 50*sec)), ""},
			{0, req(desc("path", "/api/a", "user", "x")), resp(OK, lim(OK, "", 3, UnitMinute, 2, 50*sec)), ""},
			{0, req(desc("path", "/api/b", "user", "x")), resp(OK, lim(OK, "", 3, UnitMinute, 1, 50*sec)), ""},
			{0, req(desc("path", "/api/b", "user", "y")), resp(OK, lim(OK, "", 3, UnitMinute, 2, 50*sec)), ""},
		}},
		{"quota_mode: over only when every quota is over", []step{
			{0, req(desc("q1", "x"), desc("q2", "x")), resp(OK, lim(OK, "", 1, UnitMinute, 0, 50*sec), lim(OK, "", 5, UnitMinute, 4, 50*sec)), ""},
			{0, req(desc("q1", "x"), desc("q2", "x")), resp(OK, lim(OVER, "", 1, UnitMinute, 0, 50*sec), lim(OK, "", 5, UnitMinute, 3, 50*sec)), ""},
		}},
		{"several rate_limits: the most restrictive reported", []step{
			{0, req(desc("multi", "m")), resp(OK, lim(OK, "burst", 3, UnitSecond, 2, sec)), ""},
			{0, req(desc("multi", "m")), resp(OK, lim(OK, "burst", 3, UnitSecond, 1, sec)), ""},
			{sec, req(desc("multi", "m")), resp(OK, lim(OK, "hourly", 4, UnitHour, 1, 3589*sec)), ""},
			{2 * sec, req(desc("multi", "m")), resp(OK, lim(OK, "hourly", 4, UnitHour, 0, 3588*sec)), ""},
			{3 * sec, req(desc("multi", "m")), resp(OVER, lim(OVER, "hourly", 4, UnitHour, 0, 3587*sec)), ""},
		}},
		{"unit_multiplier: a 10 second window", []step{
			{0, req(desc("ten", "t")), resp(OK, Status{Code: OK, CurrentLimit: &CurrentLimit{RequestsPerUnit: 1, Unit: rlsmsg.UnitSecond, UnitMultiplier: 10}, DurationUntilReset: 10 * sec, HasDurationUntilReset: true}), ""},
			{9 * sec, req(desc("ten", "t")), resp(OVER, Status{Code: OVER, CurrentLimit: &CurrentLimit{RequestsPerUnit: 1, Unit: rlsmsg.UnitSecond, UnitMultiplier: 10}, DurationUntilReset: sec, HasDurationUntilReset: true}), ""},
			{10 * sec, req(desc("ten", "t")), resp(OK, Status{Code: OK, CurrentLimit: &CurrentLimit{RequestsPerUnit: 1, Unit: rlsmsg.UnitSecond, UnitMultiplier: 10}, DurationUntilReset: 10 * sec, HasDurationUntilReset: true}), ""},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
			if err != nil {
				t.Fatal(err)
			}
			run(t, ev, cfg, tc.steps)
		})
	}
}

func TestEvaluateGlobalShadowMode(t *testing.T) {
	cfg := mustLoad(t, evalConfig)
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), ShadowMode: true})
	if err != nil {
		t.Fatal(err)
	}
	run(t, ev, cfg, []step{
		{0, req(desc("zero", "x"), desc("user", "s")), &Response{Response: rlsmsg.Response{OverallCode: OK, Statuses: []Status{lim(OVER, "", 0, UnitSecond, 0, sec), lim(OK, "per-user", 2, UnitMinute, 1, 50*sec)}}, ShadowedOverLimit: true}, ""},
		// The request was let through, so the counter that had room counted it.
		{0, req(desc("user", "s")), resp(OK, lim(OK, "per-user", 2, UnitMinute, 0, 50*sec)), ""},
	})
}

func TestEvaluateNoConfig(t *testing.T) {
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	r := req(desc("a", "b"))
	got, err := evaluate(ev, nil, t0, &r)
	if err != nil || got.Configured || got.OverallCode != CodeOK || len(got.Statuses) != 1 || got.Statuses[0].CurrentLimit != nil {
		t.Errorf("Evaluate(no config) = %+v, %v, want OK for an unconfigured domain", got, err)
	}
}

type failingStore struct{}

func (failingStore) Update(context.Context, time.Time, []counter.Update, []counter.Decision) error {
	return errors.New("connection refused")
}

func TestEvaluateStoreError(t *testing.T) {
	ev, err := NewEvaluator(Options{Store: failingStore{}})
	if err != nil {
		t.Fatal(err)
	}
	r := req(desc("user", "a"))
	_, err = evaluate(ev, mustLoad(t, evalConfig), t0, &r)
	var se *limit.StoreError
	if !errors.As(err, &se) || err.Error() != "counter store: connection refused" {
		t.Errorf("Evaluate() = %v, want a StoreError", err)
	}
	// Requests that need no counter do not reach the store.
	r = req(desc("free", "a"), desc("white", "b"))
	if _, err := evaluate(ev, mustLoad(t, evalConfig), t0, &r); err != nil {
		t.Errorf("Evaluate(unlimited, whitelist) = %v, want no store call", err)
	}
}

func TestEvaluateStats(t *testing.T) {
	cfg := mustLoad(t, `domain: d
descriptors:
  - key: k
    rate_limit: {unit: minute, requests_per_unit: 10}
  - key: s
    shadow_mode: true
    rate_limit: {unit: minute, requests_per_unit: 0}
  - key: w
    value: "a*"
    rate_limit: {unit: minute, requests_per_unit: 10}
  - key: det
    detailed_metric: true
    rate_limit: {unit: minute, requests_per_unit: 10}
  - key: vm
    value_to_metric: true
    rate_limit: {unit: minute, requests_per_unit: 10}
`)
	got := map[Stat]RuleCounts{}
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), Observe: func(key Stat, c RuleCounts) {
		g := got[key]
		g.TotalHits += c.TotalHits
		g.OverLimit += c.OverLimit
		g.NearLimit += c.NearLimit
		g.WithinLimit += c.WithinLimit
		g.ShadowMode += c.ShadowMode
		got[key] = g
	}})
	if err != nil {
		t.Fatal(err)
	}
	for range 11 {
		r := req(desc("k", "x"))
		if _, err := evaluate(ev, cfg, t0, &r); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []Descriptor{desc("s", "x"), desc("w", "abc"), desc("det", "v1"), desc("vm", "v2"), withLimit(desc("o", "v3"), 5)} {
		r := req(d)
		if _, err := evaluate(ev, cfg, t0, &r); err != nil {
			t.Fatal(err)
		}
	}
	stat := func(key string, kind StatKind) Stat { return Stat{Domain: "d", Key: key, Kind: kind} }
	want := map[Stat]RuleCounts{
		// 10 within, of which hits 9 and 10 are above 0.8*10; the 11th is over.
		stat("d.k", StatConfigured):    {TotalHits: 11, WithinLimit: 10, NearLimit: 2, OverLimit: 1},
		stat("d.s", StatConfigured):    {TotalHits: 1, OverLimit: 1, ShadowMode: 1},
		stat("d.w_a*", StatConfigured): {TotalHits: 1, WithinLimit: 1},
		stat("d.det_v1", StatDetailed): {TotalHits: 1, WithinLimit: 1},
		stat("d.vm_v2", StatDetailed):  {TotalHits: 1, WithinLimit: 1},
		stat("d.o_v3", StatOverride):   {TotalHits: 1, WithinLimit: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

// TestEvaluateCounters: every counter of a request is listed for metrics,
// named by its configuration, never by a request value.
func TestEvaluateCounters(t *testing.T) {
	cfg := mustLoad(t, `domain: d
descriptors:
  - key: user
    rate_limit: {name: per-user, unit: minute, requests_per_unit: 2}
  - key: det
    detailed_metric: true
    rate_limit: {unit: minute, requests_per_unit: 10}
`)
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	r := req(desc("user", "alice"), desc("det", "secret-value"), withLimit(desc("o", "x"), 5))
	got, err := evaluate(ev, cfg, t0, &r)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Configured {
		t.Error("Configured = false for a configured domain")
	}
	var names []string
	for _, c := range got.Counters {
		names = append(names, c.Name)
		if c.Cost != 1 || !c.Decision.Allowed {
			t.Errorf("counter %+v: want 1 hit, allowed", c)
		}
	}
	if diff := cmp.Diff([]string{"per-user", "det", ""}, names); diff != "" {
		t.Errorf("counter names (-want +got):\n%s", diff)
	}
}

func withLimit(d Descriptor, rpu uint32) Descriptor {
	d.Limit = &Override{RequestsPerUnit: rpu, Unit: rlsmsg.UnitMinute}
	return d
}

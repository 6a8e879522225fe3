package limitador

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// t0 is a whole day (UTC), so windows of a second, a minute, an hour and a
// day start at it.
var t0 = time.Unix(1_699_920_000, 0)

const s1 = time.Second

var toystore = []Limit{
	{Namespace: "toystore", Name: "get-per-user", MaxValue: 2, Seconds: 60, Conditions: []string{"method == 'GET'"}, Variables: []string{"user"}},
	{Namespace: "toystore", Name: "all", MaxValue: 5, Seconds: 60},
	{Namespace: "toystore", Name: "admin", MaxValue: 1, Seconds: 3600, Conditions: []string{"descriptors[0]['path'].startsWith('/admin')"}},
	{Namespace: "other", Name: "other", MaxValue: 1, Seconds: 1},
}

func newEvaluator(t *testing.T, limits []Limit) *Evaluator {
	t.Helper()
	e, err := NewEvaluator(limits, counter.NewMemoryStore(counter.MemoryOptions{}))
	if err != nil {
		t.Fatalf("NewEvaluator: %v", err)
	}
	return e
}

func entries(kv ...string) []rlsmsg.Entry {
	var out []rlsmsg.Entry
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, rlsmsg.Entry{Key: kv[i], Value: kv[i+1]})
	}
	return out
}

func u64(v uint64) *uint64 { return &v }

func evaluate(t *testing.T, e *Evaluator, at time.Duration, req rlsmsg.Request) *limit.Result {
	t.Helper()
	resp := new(limit.Result)
	if err := e.Evaluate(context.Background(), t0.Add(at), &req, resp); err != nil {
		t.Fatalf("Evaluate(%+v) = %v", req, err)
	}
	return resp
}

func limitOf(name string, max uint32, u rlsmsg.Unit) *rlsmsg.RateLimit {
	return &rlsmsg.RateLimit{Name: name, RequestsPerUnit: max, Unit: u}
}

// TestEvaluator walks the toystore limits through requests of several
// descriptors: each limit is evaluated once per request, legacy keys read
// the descriptors merged (a later entry winning) and descriptors[0] the
// first one; each descriptor reports the limits that read it.
func TestEvaluator(t *testing.T) {
	e := newEvaluator(t, toystore)
	req := rlsmsg.Request{Domain: "toystore", Descriptors: []rlsmsg.Descriptor{
		{Entries: entries("user", "bob", "path", "/admin/toys")},
		{Entries: entries("method", "GET")},
		{Entries: entries("user", "alice")},
	}}
	perUser := limitOf("get-per-user", 2, rlsmsg.UnitMinute)
	admin := limitOf("admin", 1, rlsmsg.UnitHour)
	steps := []struct {
		at   time.Duration
		want limit.Result
	}{
		// get-per-user reads method (the second descriptor) and user (alice,
		// the third's, which wins over the first's), all nothing (it goes to
		// the first), admin the first's path: three counters, one hit each.
		{0, limit.Result{Response: rlsmsg.Response{OverallCode: rlsmsg.CodeOK, Statuses: []rlsmsg.Status{
			{Code: rlsmsg.CodeOK, CurrentLimit: admin, LimitRemaining: 0, DurationUntilReset: 3600 * s1},
			{Code: rlsmsg.CodeOK, CurrentLimit: perUser, LimitRemaining: 1, DurationUntilReset: 60 * s1},
			{Code: rlsmsg.CodeOK, CurrentLimit: perUser, LimitRemaining: 1, DurationUntilReset: 60 * s1},
		}}}},
		// admin is used up: the request is over, and nothing is consumed. An
		// admitted descriptor reports its counters without this request; an
		// over one as they stood within the request. Windows start at their
		// counters' first hits.
		{10 * s1, limit.Result{Response: rlsmsg.Response{OverallCode: rlsmsg.CodeOverLimit, Statuses: []rlsmsg.Status{
			{Code: rlsmsg.CodeOverLimit, CurrentLimit: admin, LimitRemaining: 0, DurationUntilReset: 3590 * s1},
			{Code: rlsmsg.CodeOK, CurrentLimit: perUser, LimitRemaining: 1, DurationUntilReset: 50 * s1},
			{Code: rlsmsg.CodeOK, CurrentLimit: perUser, LimitRemaining: 1, DurationUntilReset: 50 * s1},
		}}}},
	}
	for i, st := range steps {
		got := evaluate(t, e, st.at, req)
		if diff := cmp.Diff(&st.want, got, ignoreCounters); diff != "" {
			t.Errorf("step %d: Evaluate mismatch (-want +got):\n%s", i, diff)
		}
	}
	// Without the admin path: bob's first GET starts a counter of its own,
	// read from both descriptors; all, with 4 left, goes to the first.
	got := evaluate(t, e, 20*s1, rlsmsg.Request{Domain: "toystore", Descriptors: []rlsmsg.Descriptor{
		{Entries: entries("user", "bob")},
		{Entries: entries("method", "GET")},
	}})
	want := &limit.Result{Response: rlsmsg.Response{OverallCode: rlsmsg.CodeOK, Statuses: []rlsmsg.Status{
		{Code: rlsmsg.CodeOK, CurrentLimit: perUser, LimitRemaining: 1, DurationUntilReset: 60 * s1},
		{Code: rlsmsg.CodeOK, CurrentLimit: perUser, LimitRemaining: 1, DurationUntilReset: 60 * s1},
	}}}
	if diff := cmp.Diff(want, got, ignoreCounters); diff != "" {
		t.Errorf("Evaluate mismatch (-want +got):\n%s", diff)
	}
	if c := got.Counters[1]; c.Limit.Name != "all" || c.Decision.Remaining != 3 || c.Descriptor != 0 {
		t.Errorf("Evaluate: counter %+v, want all with 3 left on descriptor 0", c)
	}
}

// ignoreCounters leaves Response.Counters to TestEvaluatorCounters.
// ignoreCounters leaves out of a comparison what the tests of statuses do
// not spell out: the counters, whether the domain is configured, and
// HasDurationUntilReset (set exactly when CurrentLimit is, which
// TestDurationPresence checks).
var ignoreCounters = cmp.Options{
	cmpopts.IgnoreFields(limit.Result{}, "Counters", "Configured"),
	cmpopts.IgnoreFields(rlsmsg.Status{}, "HasDurationUntilReset"),
}

// TestEvaluatorCounters checks the counters a response lists: one per limit
// applied, descriptor by descriptor, with the hits and the store's decision;
// on a rejected request the admitted counters are checks without this
// request.
func TestEvaluatorCounters(t *testing.T) {
	e := newEvaluator(t, toystore)
	req := rlsmsg.Request{Domain: "toystore", HitsAddend: 2, Descriptors: []rlsmsg.Descriptor{
		{Entries: entries("method", "GET", "user", "bob")},
		{Entries: entries("user", "x"), Limit: &rlsmsg.Override{RequestsPerUnit: 7, Unit: rlsmsg.UnitMinute}},
	}}
	type counted struct {
		Descriptor int
		Name       string
		Max        uint32
		Override   bool
		Cost       uint64
		Allowed    bool
		Used       float64
	}
	summarize := func(cs []limit.Counted) []counted {
		var out []counted
		for _, c := range cs {
			out = append(out, counted{c.Descriptor, c.Limit.Name, c.Limit.RequestsPerUnit, c.Override, c.Cost, c.Decision.Allowed, c.Decision.Used})
		}
		return out
	}
	steps := []struct {
		at   time.Duration
		want []counted
	}{
		{0, []counted{
			{0, "get-per-user", 2, false, 2, true, 2},
			{0, "all", 5, false, 2, true, 2},
			{1, "", 7, true, 2, true, 2},
		}},
		// get-per-user is used up: the request is over, the others are
		// checks of their counters without it.
		{s1, []counted{
			{0, "get-per-user", 2, false, 2, false, 4},
			{0, "all", 5, false, 2, true, 2},
			{1, "", 7, true, 2, true, 2},
		}},
	}
	for i, st := range steps {
		got := evaluate(t, e, st.at, req)
		if diff := cmp.Diff(st.want, summarize(got.Counters)); diff != "" {
			t.Errorf("step %d: Evaluate counters mismatch (-want +got):\n%s", i, diff)
		}
	}
	// A domain without limits has no counters.
	if got := evaluate(t, e, 0, rlsmsg.Request{Domain: "unknown", Descriptors: []rlsmsg.Descriptor{{Entries: entries("a", "b")}}}); len(got.Counters) != 0 {
		t.Errorf("Evaluate(unknown domain).Counters = %v, want none", got.Counters)
	}
}

func TestEvaluatorNoLimits(t *testing.T) {
	e := newEvaluator(t, toystore)
	want := &limit.Result{Response: rlsmsg.Response{OverallCode: rlsmsg.CodeOK, Statuses: []rlsmsg.Status{{Code: rlsmsg.CodeOK}, {Code: rlsmsg.CodeOK}}}}
	for _, domain := range []string{"unknown", "other"} {
		got := evaluate(t, e, 0, rlsmsg.Request{Domain: domain, Descriptors: []rlsmsg.Descriptor{{Entries: entries("a", "b")}, {}}})
		if domain == "other" { // the "other" limit applies once, on the first descriptor
			want = &limit.Result{Response: rlsmsg.Response{OverallCode: rlsmsg.CodeOK, Statuses: []rlsmsg.Status{
				{Code: rlsmsg.CodeOK, CurrentLimit: limitOf("other", 1, rlsmsg.UnitSecond), LimitRemaining: 0, DurationUntilReset: s1},
				{Code: rlsmsg.CodeOK},
			}}}
		}
		if diff := cmp.Diff(want, got, ignoreCounters); diff != "" {
			t.Errorf("Evaluate(domain %q) mismatch (-want +got):\n%s", domain, diff)
		}
	}
	var invalid *limit.InvalidRequestError
	if _, err := e.ShouldRateLimit(context.Background(), &rlsmsg.Request{Descriptors: []rlsmsg.Descriptor{{}}}); !errors.As(err, &invalid) ||
		err.Error() != "invalid request: domain: empty" {
		t.Errorf("ShouldRateLimit(empty domain) = %v, want an InvalidRequestError naming the domain", err)
	}
}

func TestEvaluatorHitsAddend(t *testing.T) {
	limits := []Limit{{Namespace: "d", Name: "n", MaxValue: 10, Seconds: 60, Variables: []string{"k"}}}
	e := newEvaluator(t, limits)
	lim := limitOf("n", 10, rlsmsg.UnitMinute)
	status := func(code rlsmsg.Code, remaining uint32) rlsmsg.Status {
		return rlsmsg.Status{Code: code, CurrentLimit: lim, LimitRemaining: remaining, DurationUntilReset: 60 * s1}
	}
	steps := []struct {
		name string
		req  rlsmsg.Request
		want []rlsmsg.Status
	}{
		{"request-level 0 means 1", rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{{Entries: entries("k", "a")}}},
			[]rlsmsg.Status{status(rlsmsg.CodeOK, 9)}},
		{"request-level 3", rlsmsg.Request{Domain: "d", HitsAddend: 3, Descriptors: []rlsmsg.Descriptor{{Entries: entries("k", "a")}}},
			[]rlsmsg.Status{status(rlsmsg.CodeOK, 6)}},
		{"descriptor-level replaces request-level", rlsmsg.Request{Domain: "d", HitsAddend: 3, Descriptors: []rlsmsg.Descriptor{
			{Entries: entries("k", "a"), HitsAddend: u64(5)}}},
			[]rlsmsg.Status{status(rlsmsg.CodeOK, 1)}},
		{"explicit 0 checks without consuming", rlsmsg.Request{Domain: "d", HitsAddend: 3, Descriptors: []rlsmsg.Descriptor{
			{Entries: entries("k", "a"), HitsAddend: u64(0)}}},
			[]rlsmsg.Status{status(rlsmsg.CodeOK, 1)}},
		{"too many", rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{{Entries: entries("k", "a"), HitsAddend: u64(2)}}},
			[]rlsmsg.Status{status(rlsmsg.CodeOverLimit, 1)}},
		{"last hit", rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{{Entries: entries("k", "a")}}},
			[]rlsmsg.Status{status(rlsmsg.CodeOK, 0)}},
		// Limitador's storages admit a delta when value + delta <= max.
		{"a check on a full counter is within the limit", rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{{Entries: entries("k", "a"), HitsAddend: u64(0)}}},
			[]rlsmsg.Status{status(rlsmsg.CodeOK, 0)}},
	}
	for _, st := range steps {
		got := evaluate(t, e, 0, st.req)
		if diff := cmp.Diff(st.want, got.Statuses, ignoreCounters); diff != "" {
			t.Errorf("%s: statuses mismatch (-want +got):\n%s", st.name, diff)
		}
	}
}

func TestEvaluatorOverride(t *testing.T) {
	limits := []Limit{{Namespace: "d", Name: "configured", MaxValue: 100, Seconds: 60, Variables: []string{"user"}}}
	e := newEvaluator(t, limits)
	override := func(n uint32, u rlsmsg.Unit) *rlsmsg.Override { return &rlsmsg.Override{RequestsPerUnit: n, Unit: u} }
	steps := []struct {
		name string
		d    rlsmsg.Descriptor
		want rlsmsg.Status
	}{
		{"override replaces the configured limit", rlsmsg.Descriptor{Entries: entries("user", "bob"), Limit: override(1, rlsmsg.UnitHour)},
			rlsmsg.Status{Code: rlsmsg.CodeOK, CurrentLimit: limitOf("", 1, rlsmsg.UnitHour), LimitRemaining: 0, DurationUntilReset: 3600 * s1}},
		{"and is over on the next hit", rlsmsg.Descriptor{Entries: entries("user", "bob"), Limit: override(1, rlsmsg.UnitHour)},
			rlsmsg.Status{Code: rlsmsg.CodeOverLimit, CurrentLimit: limitOf("", 1, rlsmsg.UnitHour), LimitRemaining: 0, DurationUntilReset: 3600 * s1}},
		{"the configured counter was not touched", rlsmsg.Descriptor{Entries: entries("user", "bob")},
			rlsmsg.Status{Code: rlsmsg.CodeOK, CurrentLimit: limitOf("configured", 100, rlsmsg.UnitMinute), LimitRemaining: 99, DurationUntilReset: 60 * s1}},
		{"override applies without a configured limit", rlsmsg.Descriptor{Entries: entries("ip", "10.0.0.1"), Limit: override(5, rlsmsg.UnitSecond)},
			rlsmsg.Status{Code: rlsmsg.CodeOK, CurrentLimit: limitOf("", 5, rlsmsg.UnitSecond), LimitRemaining: 4, DurationUntilReset: s1}},
		{"another window is another counter", rlsmsg.Descriptor{Entries: entries("user", "bob"), Limit: override(2, rlsmsg.UnitDay)},
			rlsmsg.Status{Code: rlsmsg.CodeOK, CurrentLimit: limitOf("", 2, rlsmsg.UnitDay), LimitRemaining: 1, DurationUntilReset: 86400 * s1}},
	}
	for _, st := range steps {
		got := evaluate(t, e, 0, rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{st.d}})
		if diff := cmp.Diff([]rlsmsg.Status{st.want}, got.Statuses, ignoreCounters); diff != "" {
			t.Errorf("%s: statuses mismatch (-want +got):\n%s", st.name, diff)
		}
	}
	// An override with an unknown unit is refused, as every format of
	// rlpkit's server refuses it: applying the configured limit instead
	// would hide the proxy's misconfiguration.
	for _, u := range []rlsmsg.Unit{rlsmsg.UnitUnknown, 99} {
		var invalid *limit.InvalidRequestError
		err := e.Evaluate(context.Background(), time.Unix(0, 0), &rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{{Entries: entries("user", "bob"), Limit: override(1, u)}}}, new(limit.Result))
		if !errors.As(err, &invalid) || !strings.Contains(err.Error(), "descriptors[0].limit.unit: "+u.String()+" is not a unit") {
			t.Errorf("override with unit %v: %v, want an InvalidRequestError naming descriptors[0].limit.unit", u, err)
		}
	}
}

func TestEvaluatorUnits(t *testing.T) {
	tests := []struct {
		seconds uint32
		want    rlsmsg.Unit
		mult    uint32
	}{
		{1, rlsmsg.UnitSecond, 0}, {60, rlsmsg.UnitMinute, 0}, {3600, rlsmsg.UnitHour, 0}, {86400, rlsmsg.UnitDay, 0},
		{604800, rlsmsg.UnitWeek, 0}, {2592000, rlsmsg.UnitMonth, 0}, {31536000, rlsmsg.UnitYear, 0},
		// Other windows: the longest unit that divides them, with a multiplier.
		{10, rlsmsg.UnitSecond, 10}, {90, rlsmsg.UnitSecond, 90}, {120, rlsmsg.UnitMinute, 2}, {7200, rlsmsg.UnitHour, 2},
		{2 * 86400, rlsmsg.UnitDay, 2}, {14 * 86400, rlsmsg.UnitWeek, 2},
	}
	for _, tc := range tests {
		e := newEvaluator(t, []Limit{{Namespace: "d", MaxValue: 3, Seconds: tc.seconds}})
		got := evaluate(t, e, 0, rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{{}}})
		if cl := got.Statuses[0].CurrentLimit; cl.Unit != tc.want || cl.UnitMultiplier != tc.mult {
			t.Errorf("seconds %d: unit %v multiplier %d, want %v multiplier %d", tc.seconds, cl.Unit, cl.UnitMultiplier, tc.want, tc.mult)
		}
	}
}

func TestEvaluatorKeysAreUnambiguous(t *testing.T) {
	// Values that would collide if the key simply joined them.
	e := newEvaluator(t, []Limit{{Namespace: "d", MaxValue: 1, Seconds: 60, Variables: []string{"a", "b"}}})
	for _, d := range []rlsmsg.Descriptor{
		{Entries: entries("a", "x", "b", "y:z")},
		{Entries: entries("a", "x:y", "b", "z")},
		{Entries: entries("a", "x", "b", "1:y")},
		{Entries: entries("a", "x1:", "b", "y")},
	} {
		got := evaluate(t, e, 0, rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{d}})
		if got.OverallCode != rlsmsg.CodeOK {
			t.Errorf("descriptor %v shares a counter with an earlier one", d.Entries)
		}
	}
}

type failingStore struct{ err error }

func (s failingStore) Update(context.Context, time.Time, []counter.Update, []counter.Decision) error {
	return s.err
}

func TestEvaluatorStoreError(t *testing.T) {
	boom := errors.New("connection refused")
	e, err := NewEvaluator(toystore, failingStore{boom})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.ShouldRateLimit(context.Background(), &rlsmsg.Request{Domain: "toystore", Descriptors: []rlsmsg.Descriptor{{}}})
	var se *limit.StoreError
	if !errors.Is(err, boom) || !errors.As(err, &se) || se.Err != boom || err.Error() != "counter store: connection refused" {
		t.Errorf("ShouldRateLimit with a failing store = %v, want the store's error in a *limit.StoreError", err)
	}
	// Evaluate lists the counters the request was to update.
	var resp limit.Result
	req := &rlsmsg.Request{Domain: "toystore", Descriptors: []rlsmsg.Descriptor{{Entries: entries("method", "POST")}}}
	if err := e.Evaluate(context.Background(), time.Unix(0, 0), req, &resp); !errors.As(err, &se) {
		t.Fatalf("Evaluate with a failing store = %v, want a *limit.StoreError", err)
	}
	if len(resp.Counters) != 1 || resp.Counters[0].Limit.Name != "all" || resp.Counters[0].Decision != (counter.Decision{}) {
		t.Errorf("Evaluate with a failing store: Counters = %+v, want the \"all\" counter with a zero decision", resp.Counters)
	}
	// No counter applies: the store is not asked.
	if _, err := e.ShouldRateLimit(context.Background(), &rlsmsg.Request{Domain: "unknown", Descriptors: []rlsmsg.Descriptor{{}}}); err != nil {
		t.Errorf("ShouldRateLimit without counters = %v, want no error", err)
	}
}

func TestNewEvaluatorErrors(t *testing.T) {
	_, err := NewEvaluator([]Limit{{Namespace: "", Seconds: 1}, {Namespace: "a", Seconds: 0}}, counter.NewMemoryStore(counter.MemoryOptions{}))
	want := "limit: [0].namespace: must not be empty\nlimit: [1].seconds: must be greater than 0"
	if err == nil || err.Error() != want {
		t.Errorf("NewEvaluator = %v, want %q", err, want)
	}
	if _, err := NewEvaluator(nil, nil); err == nil {
		t.Error("NewEvaluator(nil store) = nil error, want an error")
	}
}

// TestEvaluatorExactUnderConcurrency: 8 goroutines x 10,000 requests against
// a fixed window of max 1,000 admit exactly 1,000.
func TestEvaluatorExactUnderConcurrency(t *testing.T) {
	e := newEvaluator(t, []Limit{
		{Namespace: "d", MaxValue: 1000, Seconds: 60, Conditions: []string{"method == 'GET'"}},
		{Namespace: "d", MaxValue: 100_000, Seconds: 60, Variables: []string{"user"}},
	})
	admitted := hammer(8, 10_000, func(g, i int) bool {
		req := rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{{Entries: entries("method", "GET", "user", string(rune('a'+g)))}}}
		var resp limit.Result
		if err := e.Evaluate(context.Background(), t0.Add(time.Duration(i)*time.Microsecond), &req, &resp); err != nil {
			panic(err)
		}
		return resp.OverallCode == rlsmsg.CodeOK
	})
	if admitted != 1000 {
		t.Errorf("admitted %d, want exactly 1000", admitted)
	}
}

// hammer runs f from g goroutines n times each and counts the trues.
func hammer(g, n int, f func(g, i int) bool) int {
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for gi := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				if f(gi, i) {
					admitted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return int(admitted.Load())
}

// TestDurationPresence: a status carries a duration until reset exactly
// when a limit applies to it.
func TestDurationPresence(t *testing.T) {
	e, err := NewEvaluator([]Limit{{Namespace: "d", MaxValue: 5, Seconds: 60, Conditions: []string{"k == a"}}}, counter.NewMemoryStore(counter.MemoryOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	got := evaluate(t, e, 0, rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{{Entries: entries("k", "a")}, {Entries: entries("other", "b")}}})
	if st := got.Statuses[0]; st.CurrentLimit == nil || !st.HasDurationUntilReset || st.DurationUntilReset != 60*time.Second {
		t.Errorf("status 0 = %+v, want a limit and 60s until reset", st)
	}
	if st := got.Statuses[1]; st.CurrentLimit != nil || st.HasDurationUntilReset {
		t.Errorf("status 1 = %+v, want no limit and no duration", st)
	}
	if !got.Configured {
		t.Error("Configured = false for a domain with limits")
	}
}

package limitador

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// TestEvaluatorOncePerRequest checks that every limit is evaluated once per
// request, as limitador does, against the request's descriptors, and that
// each descriptor reports the limits attributed to it: those that read its
// entries, and those that read none on the first descriptor.
func TestEvaluatorOncePerRequest(t *testing.T) {
	three := []rlsmsg.Descriptor{
		{Entries: entries("method", "GET", "user", "bob")},
		{Entries: entries("path", "/admin/toys")},
		{Entries: entries("method", "POST", "x", "y")},
	}
	minute := func(name string, max uint32, remaining uint32) rlsmsg.Status {
		return rlsmsg.Status{Code: rlsmsg.CodeOK, CurrentLimit: limitOf(name, max, rlsmsg.UnitMinute), LimitRemaining: remaining, DurationUntilReset: 60 * s1}
	}
	ok := rlsmsg.Status{Code: rlsmsg.CodeOK}
	tests := []struct {
		name  string
		limit Limit
		descs []rlsmsg.Descriptor
		want  []rlsmsg.Status
	}{
		{
			name:  "a limit without conditions costs one hit, on the first descriptor",
			limit: Limit{Name: "all", MaxValue: 10, Seconds: 60},
			descs: three,
			want:  []rlsmsg.Status{minute("all", 10, 9), ok, ok},
		},
		{
			name:  "descriptors[1] resolves",
			limit: Limit{Name: "admin", MaxValue: 10, Seconds: 60, Conditions: []string{"descriptors[1]['path'].startsWith('/admin')"}},
			descs: three,
			want:  []rlsmsg.Status{ok, minute("admin", 10, 9), ok},
		},
		{
			name:  "a match in the second descriptor does not count as descriptors[0]",
			limit: Limit{Name: "admin", MaxValue: 10, Seconds: 60, Conditions: []string{"descriptors[0]['path'].startsWith('/admin')"}},
			descs: three,
			want:  []rlsmsg.Status{ok, ok, ok},
		},
		{
			name:  "legacy keys read all descriptors merged, a later entry winning",
			limit: Limit{Name: "gets", MaxValue: 10, Seconds: 60, Conditions: []string{"method == 'GET'"}},
			descs: three,
			want:  []rlsmsg.Status{ok, ok, ok},
		},
		{
			name:  "a legacy limit goes to the descriptors it read",
			limit: Limit{Name: "posts", MaxValue: 10, Seconds: 60, Conditions: []string{"method == 'POST'"}, Variables: []string{"user"}},
			descs: three,
			want:  []rlsmsg.Status{minute("posts", 10, 9), ok, minute("posts", 10, 9)},
		},
		{
			name:  "a CEL limit goes to the descriptors it read",
			limit: Limit{Name: "xy", MaxValue: 10, Seconds: 60, Conditions: []string{"descriptors[2].x == 'y'"}, Variables: []string{"descriptors[1]['path']"}},
			descs: three,
			want:  []rlsmsg.Status{ok, minute("xy", 10, 9), minute("xy", 10, 9)},
		},
		{
			name:  "an index past the last descriptor is false",
			limit: Limit{Name: "n", MaxValue: 10, Seconds: 60, Conditions: []string{"descriptors[3]['x'] == 'y'"}},
			descs: three,
			want:  []rlsmsg.Status{ok, ok, ok},
		},
		{
			name:  "a missing key makes a condition false",
			limit: Limit{Name: "n", MaxValue: 10, Seconds: 60, Conditions: []string{"descriptors[0]['missing'] != 'x'"}},
			descs: three,
			want:  []rlsmsg.Status{ok, ok, ok},
		},
		{
			name:  "a variable reading a missing key skips the limit",
			limit: Limit{Name: "n", MaxValue: 10, Seconds: 60, Variables: []string{"descriptors[1]['user']"}},
			descs: three,
			want:  []rlsmsg.Status{ok, ok, ok},
		},
		{
			name:  "a legacy variable missing from every descriptor skips the limit",
			limit: Limit{Name: "n", MaxValue: 10, Seconds: 60, Variables: []string{"tenant"}},
			descs: three,
			want:  []rlsmsg.Status{ok, ok, ok},
		},
		{
			name:  "keys with dots are read with brackets",
			limit: Limit{Name: "dots", MaxValue: 10, Seconds: 60, Conditions: []string{`descriptors[0]["req.method"] == 'GET'`}},
			descs: []rlsmsg.Descriptor{{Entries: entries("req.method", "GET")}},
			want:  []rlsmsg.Status{minute("dots", 10, 9)},
		},
		{
			name:  "a field of an entry's value never matches",
			limit: Limit{Name: "dots", MaxValue: 10, Seconds: 60, Conditions: []string{`descriptors[0].req.method == 'GET'`}},
			descs: []rlsmsg.Descriptor{{Entries: entries("req.method", "GET", "req", "x")}},
			want:  []rlsmsg.Status{ok},
		},
		{
			name:  "limit.name",
			limit: Limit{Name: "named", MaxValue: 10, Seconds: 60, Conditions: []string{"limit.name == 'named'"}},
			descs: three,
			want:  []rlsmsg.Status{minute("named", 10, 9), ok, ok},
		},
		{
			name:  "limit.id",
			limit: Limit{Name: "n", ID: "abc", MaxValue: 10, Seconds: 60, Conditions: []string{"limit.id == 'abc'", "limit.name == 'n'"}},
			descs: three,
			want:  []rlsmsg.Status{minute("n", 10, 9), ok, ok},
		},
		{
			name:  "an unset limit.id is null",
			limit: Limit{Name: "n", MaxValue: 10, Seconds: 60, Conditions: []string{"limit.id == null"}},
			descs: three,
			want:  []rlsmsg.Status{minute("n", 10, 9), ok, ok},
		},
		{
			name:  "another limit.name",
			limit: Limit{Name: "n", MaxValue: 10, Seconds: 60, Conditions: []string{"limit.name == 'other'"}},
			descs: three,
			want:  []rlsmsg.Status{ok, ok, ok},
		},
		{
			// exists stops at the second descriptor: the third is not read.
			name:  "a macro goes to the descriptors it looked at",
			limit: Limit{Name: "n", MaxValue: 10, Seconds: 60, Conditions: []string{"size(descriptors) == 3 && descriptors.exists(d, d.path == '/admin/toys')"}},
			descs: three,
			want:  []rlsmsg.Status{minute("n", 10, 9), minute("n", 10, 9), ok},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.limit.Namespace = "d"
			e := newEvaluator(t, []Limit{tc.limit})
			got := evaluate(t, e, 0, rlsmsg.Request{Domain: "d", Descriptors: tc.descs})
			if diff := cmp.Diff(tc.want, got.Statuses, ignoreCounters); diff != "" {
				t.Errorf("Evaluate(%v) statuses mismatch (-want +got):\n%s", tc.descs, diff)
			}
		})
	}
}

// TestEvaluatorVariables checks CEL variables: any expression evaluating
// to a string, a number or a bool keys the counter by its value.
func TestEvaluatorVariables(t *testing.T) {
	limits := []Limit{{Namespace: "d", Name: "n", MaxValue: 2, Seconds: 60,
		Variables: []string{"descriptors[1]['user']", "size(descriptors)", "descriptors[0]['a'] + '/' + descriptors[0]['b']"}}}
	e := newEvaluator(t, limits)
	req := func(user string) rlsmsg.Request {
		return rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{{Entries: entries("a", "1", "b", "2")}, {Entries: entries("user", user)}}}
	}
	lim := limitOf("n", 2, rlsmsg.UnitMinute)
	steps := []struct {
		req  rlsmsg.Request
		want []rlsmsg.Status
	}{
		{req("bob"), []rlsmsg.Status{
			{Code: rlsmsg.CodeOK, CurrentLimit: lim, LimitRemaining: 1, DurationUntilReset: 60 * s1},
			{Code: rlsmsg.CodeOK, CurrentLimit: lim, LimitRemaining: 1, DurationUntilReset: 60 * s1},
		}},
		{req("alice"), []rlsmsg.Status{ // another counter
			{Code: rlsmsg.CodeOK, CurrentLimit: lim, LimitRemaining: 1, DurationUntilReset: 60 * s1},
			{Code: rlsmsg.CodeOK, CurrentLimit: lim, LimitRemaining: 1, DurationUntilReset: 60 * s1},
		}},
		{req("bob"), []rlsmsg.Status{
			{Code: rlsmsg.CodeOK, CurrentLimit: lim, LimitRemaining: 0, DurationUntilReset: 60 * s1},
			{Code: rlsmsg.CodeOK, CurrentLimit: lim, LimitRemaining: 0, DurationUntilReset: 60 * s1},
		}},
		{req("bob"), []rlsmsg.Status{
			{Code: rlsmsg.CodeOverLimit, CurrentLimit: lim, LimitRemaining: 0, DurationUntilReset: 60 * s1},
			{Code: rlsmsg.CodeOverLimit, CurrentLimit: lim, LimitRemaining: 0, DurationUntilReset: 60 * s1},
		}},
	}
	for i, st := range steps {
		got := evaluate(t, e, 0, st.req)
		if diff := cmp.Diff(st.want, got.Statuses, ignoreCounters); diff != "" {
			t.Errorf("step %d: Evaluate statuses mismatch (-want +got):\n%s", i, diff)
		}
	}
}

// TestEvaluatorFirstHitWindow checks that a limit's fixed window starts at
// its counter's first hit, as limitador's does, unless EpochWindows.
func TestEvaluatorFirstHitWindow(t *testing.T) {
	for _, epoch := range []bool{false, true} {
		e := newEvaluator(t, []Limit{{Namespace: "d", Name: "n", MaxValue: 1, Seconds: 60, EpochWindows: epoch}})
		req := rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{{Entries: entries("k", "v")}}}
		lim := limitOf("n", 1, rlsmsg.UnitMinute)
		first := evaluate(t, e, 40*s1, req)
		second := evaluate(t, e, 70*s1, req)
		want := []rlsmsg.Status{{Code: rlsmsg.CodeOK, CurrentLimit: lim, DurationUntilReset: 60 * s1}, {Code: rlsmsg.CodeOverLimit, CurrentLimit: lim, DurationUntilReset: 30 * s1}}
		if epoch {
			want = []rlsmsg.Status{{Code: rlsmsg.CodeOK, CurrentLimit: lim, DurationUntilReset: 20 * s1}, {Code: rlsmsg.CodeOK, CurrentLimit: lim, DurationUntilReset: 50 * s1}}
		}
		got := []rlsmsg.Status{first.Statuses[0], second.Statuses[0]}
		if diff := cmp.Diff(want, got, ignoreCounters); diff != "" {
			t.Errorf("EpochWindows %v: Evaluate at 40s and 70s mismatch (-want +got):\n%s", epoch, diff)
		}
	}
}

// TestEvaluatorRequestCost checks the hits of a limit evaluated once per
// request: the request's hits_addend (0 means 1), or the own hits_addend
// of the first descriptor it is attributed to.
func TestEvaluatorRequestCost(t *testing.T) {
	tests := []struct {
		name string
		req  rlsmsg.Request
		want uint32 // remaining of 10
	}{
		{"hits_addend 0 counts as 1", rlsmsg.Request{HitsAddend: 0, Descriptors: []rlsmsg.Descriptor{{Entries: entries("k", "a")}, {Entries: entries("j", "b")}}}, 9},
		{"hits_addend 3", rlsmsg.Request{HitsAddend: 3, Descriptors: []rlsmsg.Descriptor{{Entries: entries("k", "a")}, {Entries: entries("j", "b")}}}, 7},
		{"the descriptor read sets the cost", rlsmsg.Request{HitsAddend: 3, Descriptors: []rlsmsg.Descriptor{{Entries: entries("j", "b")}, {Entries: entries("k", "a"), HitsAddend: u64(5)}}}, 5},
		{"another descriptor's cost is not the limit's", rlsmsg.Request{HitsAddend: 3, Descriptors: []rlsmsg.Descriptor{{Entries: entries("j", "b"), HitsAddend: u64(5)}, {Entries: entries("k", "a")}}}, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEvaluator(t, []Limit{{Namespace: "d", Name: "n", MaxValue: 10, Seconds: 60, Variables: []string{"k"}}})
			tc.req.Domain = "d"
			got := evaluate(t, e, 0, tc.req)
			remaining := uint32(0)
			for _, st := range got.Statuses {
				if st.CurrentLimit != nil {
					remaining = st.LimitRemaining
				}
			}
			if remaining != tc.want || len(got.Counters) != 1 {
				t.Errorf("Evaluate(%+v): remaining %d of 10 on %d counters, want %d on 1", tc.req, remaining, len(got.Counters), tc.want)
			}
		})
	}
}

package limitador

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// TestResultRequestClone: what a descriptor.Result holds, cloned, is the
// request the evaluator reads, entries, overrides and costs included.
func TestResultRequestClone(t *testing.T) {
	hits := func(n uint64) *uint64 { return &n }
	tests := []struct {
		name string
		res  *descriptor.Result
		want rlsmsg.Request
	}{
		{"no policy matched", &descriptor.Result{PolicyIndex: -1, Request: rlsmsg.Request{HitsAddend: 3}}, rlsmsg.Request{HitsAddend: 3}},
		{"policy without descriptors", &descriptor.Result{Request: rlsmsg.Request{Domain: "d"}}, rlsmsg.Request{Domain: "d"}},
		{"entries in order",
			&descriptor.Result{Request: rlsmsg.Request{Domain: "gw/ns#route", Descriptors: []rlsmsg.Descriptor{
				{Entries: []rlsmsg.Entry{{Key: "admin", Value: "yes"}, {Key: "user", Value: "alice"}}},
				{Entries: []rlsmsg.Entry{{Key: "remote_address", Value: "192.0.2.1"}}},
			}}},
			rlsmsg.Request{Domain: "gw/ns#route", Descriptors: []rlsmsg.Descriptor{
				{Entries: []rlsmsg.Entry{{Key: "admin", Value: "yes"}, {Key: "user", Value: "alice"}}},
				{Entries: []rlsmsg.Entry{{Key: "remote_address", Value: "192.0.2.1"}}},
			}}},
		{"overrides, including WEEK, and per-descriptor hits_addend",
			&descriptor.Result{Request: rlsmsg.Request{Domain: "d", HitsAddend: 4, Descriptors: []rlsmsg.Descriptor{
				{Entries: []rlsmsg.Entry{{Key: "a", Value: "1"}}, Limit: &rlsmsg.Override{RequestsPerUnit: 10, Unit: rlsmsg.UnitMinute}},
				{Entries: []rlsmsg.Entry{{Key: "b", Value: "2"}}, HitsAddend: hits(0)},
				{Entries: []rlsmsg.Entry{{Key: "c", Value: "3"}}, Limit: &rlsmsg.Override{RequestsPerUnit: 7, Unit: rlsmsg.UnitWeek}, HitsAddend: hits(5)},
				{Entries: []rlsmsg.Entry{{Key: "d", Value: "4"}}},
			}}},
			rlsmsg.Request{Domain: "d", HitsAddend: 4, Descriptors: []rlsmsg.Descriptor{
				{Entries: []rlsmsg.Entry{{Key: "a", Value: "1"}}, Limit: &rlsmsg.Override{RequestsPerUnit: 10, Unit: rlsmsg.UnitMinute}},
				{Entries: []rlsmsg.Entry{{Key: "b", Value: "2"}}, HitsAddend: hits(0)},
				{Entries: []rlsmsg.Entry{{Key: "c", Value: "3"}}, Limit: &rlsmsg.Override{RequestsPerUnit: 7, Unit: rlsmsg.UnitWeek}, HitsAddend: hits(5)},
				{Entries: []rlsmsg.Entry{{Key: "d", Value: "4"}}},
			}}},
		{"a descriptor without entries",
			&descriptor.Result{Request: rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{{}, {Entries: []rlsmsg.Entry{{Key: "k", Value: "v"}}}}}},
			rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{{}, {Entries: []rlsmsg.Entry{{Key: "k", Value: "v"}}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.res.Request.Clone()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("rlsmsg.Request.Clone() of %+v mismatch (-want +got):\n%s", tc.res, diff)
			}
		})
	}
}

// TestResultRequestCloneOwnsItsMemory reuses the Result for another
// request, as a filter does with GenerateInto: the Request cloned before
// must not move.
func TestResultRequestCloneOwnsItsMemory(t *testing.T) {
	e := toystoreEngine(t)
	var res descriptor.Result
	e.GenerateInto(adminRequest("alice", 5, 2), &res)
	req := res.Request.Clone()
	want := res.Request.Clone()
	e.GenerateInto(adminRequest("bob", 9, 1), &res)
	if diff := cmp.Diff(want, req); diff != "" {
		t.Errorf("rlsmsg.Request changed when its Result was reused (-want +got):\n%s", diff)
	}
}

// toystoreEngine compiles a PluginConfig with two configurations: admin
// calls (POST /admin/*) and, for every request, the user from a header with
// a limit override and a cost read from dynamic metadata.
func toystoreEngine(t *testing.T) *descriptor.Engine {
	t.Helper()
	fromMetadata := func(key string) *descriptor.DynamicMetadataSource {
		return &descriptor.DynamicMetadataSource{MetadataKey: descriptor.MetadataKey{Key: "envoy.filters.http.ext_authz", Path: []descriptor.PathSegment{{Key: key}}}}
	}
	e, err := descriptor.Compile(&descriptor.PluginConfig{RateLimitPolicies: []descriptor.Policy{{
		Name: "toystore", RateLimitDomain: "toystore", UpstreamCluster: "rls", Hostnames: []string{"*.toystore.com"},
		GatewayActions: []descriptor.GatewayAction{
			{Rules: []descriptor.Rule{{Paths: []string{"/admin/*"}, Methods: []string{"POST"}}},
				Configurations: []descriptor.Configuration{{Actions: []descriptor.Action{{GenericKey: &descriptor.GenericKey{DescriptorKey: "admin", DescriptorValue: "yes"}}}}}},
			{Configurations: []descriptor.Configuration{{
				Actions:    []descriptor.Action{{RequestHeaders: &descriptor.RequestHeaders{HeaderName: "x-user", DescriptorKey: "user"}}},
				Limit:      &descriptor.LimitOverride{DynamicMetadata: fromMetadata("limit")},
				HitsAddend: &descriptor.HitsAddend{DynamicMetadata: fromMetadata("cost")},
			}}},
		},
	}}})
	if err != nil {
		t.Fatalf("descriptor.Compile: %v", err)
	}
	return e
}

// adminRequest is POST /admin/toy by user with a metadata override of
// perMinute hits a minute and a metadata cost.
func adminRequest(user string, perMinute, cost float64) *descriptor.Request {
	return &descriptor.Request{
		Method: "POST", Host: "api.toystore.com", Path: "/admin/toy",
		Headers: descriptor.HeaderMap{"x-user": {user}},
		DynamicMetadata: descriptor.Metadata{"envoy.filters.http.ext_authz": map[string]any{
			"limit": map[string]any{"requests_per_unit": perMinute, "unit": "MINUTE"},
			"cost":  cost,
		}},
	}
}

// TestDescriptorToEvaluator runs the whole path a filter and a rate-limit
// service take: descriptor generation, the bridge, evaluation.
func TestDescriptorToEvaluator(t *testing.T) {
	engine := toystoreEngine(t)
	ev := newEvaluator(t, []Limit{
		{Namespace: "toystore", Name: "admin", MaxValue: 2, Seconds: 60, Conditions: []string{"admin == 'yes'"}},
	})
	admin := limitOf("admin", 2, rlsmsg.UnitMinute)
	override := limitOf("", 5, rlsmsg.UnitMinute)
	type status struct {
		Code      rlsmsg.Code
		Limit     *rlsmsg.RateLimit
		Remaining uint32
	}
	tests := []struct {
		name string
		want []status
		code rlsmsg.Code
	}{
		// The override (5 a minute) replaces any configured limit for the
		// user's descriptor, which costs 2 hits from metadata.
		{"first", []status{{rlsmsg.CodeOK, admin, 1}, {rlsmsg.CodeOK, override, 3}}, rlsmsg.CodeOK},
		{"second", []status{{rlsmsg.CodeOK, admin, 0}, {rlsmsg.CodeOK, override, 1}}, rlsmsg.CodeOK},
		// The admin limit is over, so nothing is counted: the user's
		// counter still has 1 left, and 2 hits do not fit in it.
		{"third", []status{{rlsmsg.CodeOverLimit, admin, 0}, {rlsmsg.CodeOverLimit, override, 1}}, rlsmsg.CodeOverLimit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := engine.Generate(adminRequest("alice", 5, 2))
			if !res.ShouldCall() {
				t.Fatalf("Generate(POST /admin/toy) = no descriptors, want two")
			}
			req := res.Request.Clone()
			var resp limit.Result
			if err := ev.Evaluate(context.Background(), t0, &req, &resp); err != nil {
				t.Fatalf("Evaluate(%+v) = %v", req, err)
			}
			var got []status
			for _, s := range resp.Statuses {
				got = append(got, status{s.Code, s.CurrentLimit, s.LimitRemaining})
			}
			if resp.OverallCode != tc.code {
				t.Errorf("Evaluate(%+v).Code = %v, want %v", req, resp.OverallCode, tc.code)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Evaluate(%+v) statuses mismatch (-want +got):\n%s", req, diff)
			}
		})
	}
}

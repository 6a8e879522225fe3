package limitador

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// TestLimitadorExamples replays the examples of limitador's "How it works" (the legacy
// form of limitador 1.x and the CEL form of 2.x) and of the limits kuadrant-operator
// generates: limits, a request sent several times, and the expected codes (OVER_LIMIT is
// Envoy's 429 Too Many Requests).
func TestLimitadorExamples(t *testing.T) {
	howItWorks := []rlsmsg.Descriptor{{Entries: entries("KEY_A", "VALUE_A", "OTHER_KEY", "OTHER_VALUE")}}
	limit := func(conds, vars []string) []Limit {
		return []Limit{{Namespace: "example.org", MaxValue: 1, Seconds: 60, Conditions: conds, Variables: vars}}
	}
	const ok, over = rlsmsg.CodeOK, rlsmsg.CodeOverLimit
	tests := []struct {
		name   string
		limits []Limit
		domain string
		descs  []rlsmsg.Descriptor
		want   []rlsmsg.Code // one per request, in order
	}{
		{"1.x: the condition matches though not all entries do", limit([]string{"KEY_A == 'VALUE_A'"}, nil), "example.org", howItWorks, []rlsmsg.Code{ok, over}},
		{"1.x: the condition's key does not exist", limit([]string{"KEY_B == 'VALUE_B'"}, nil), "example.org", howItWorks, []rlsmsg.Code{ok, ok}},
		{"1.x: not all the conditions match", limit([]string{"KEY_A == 'VALUE_A'", "OTHER_KEY == 'WRONG_VALUE'"}, nil), "example.org", howItWorks, []rlsmsg.Code{ok, ok}},
		{"1.x: the variable does not exist", limit(nil, []string{"MY_VAR"}), "example.org", howItWorks, []rlsmsg.Code{ok, ok}},
		{"1.x: only the conditions match", limit([]string{"KEY_A == 'VALUE_A'"}, []string{"MY_VAR"}), "example.org", howItWorks, []rlsmsg.Code{ok, ok}},
		{"1.x: the variable exists", limit(nil, []string{"OTHER_KEY"}), "example.org", howItWorks, []rlsmsg.Code{ok, over}},
		{"2.x: the condition matches though not all entries do", limit([]string{"descriptors[0].KEY_A == 'VALUE_A'"}, nil), "example.org", howItWorks, []rlsmsg.Code{ok, over}},
		{"2.x: the condition's key does not exist", limit([]string{"descriptors[0].KEY_B == 'VALUE_B'"}, nil), "example.org", howItWorks, []rlsmsg.Code{ok, ok}},
		{"2.x: not all the conditions match", limit([]string{"descriptors[0].KEY_A == 'VALUE_A'", "descriptors[0].OTHER_KEY == 'WRONG_VALUE'"}, nil), "example.org", howItWorks, []rlsmsg.Code{ok, ok}},
		{"2.x: the variable does not exist", limit(nil, []string{"descriptors[0].MY_VAR"}), "example.org", howItWorks, []rlsmsg.Code{ok, ok}},
		{"2.x: only the conditions match", limit([]string{"descriptors[0].KEY_A == 'VALUE_A'"}, []string{"descriptors[0].MY_VAR"}), "example.org", howItWorks, []rlsmsg.Code{ok, ok}},
		{"another namespace", limit([]string{"KEY_A == 'VALUE_A'"}, nil), "example.com", howItWorks, []rlsmsg.Code{ok, ok}},
		{
			// kuadrant-operator's worked example: global 100 per minute, per-ip 5 per 10 s on
			// POST; the wasm-shim sends one descriptor holding both limits' data.
			name: "kuadrant: per-ip is the sixth POST's limit",
			limits: []Limit{
				{Name: "global", Namespace: "toystore/toystore", MaxValue: 100, Seconds: 60, Conditions: []string{`descriptors[0]["limit.global__53f76b2d"] == "1"`}},
				{Name: "per-ip", Namespace: "toystore/toystore", MaxValue: 5, Seconds: 10, Conditions: []string{`descriptors[0]["limit.per_ip__815c57de"] == "1"`}, Variables: []string{`descriptors[0]["source.remote_address"]`}},
			},
			domain: "toystore/toystore",
			descs:  []rlsmsg.Descriptor{{Entries: entries("limit.global__53f76b2d", "1", "limit.per_ip__815c57de", "1", "source.remote_address", "10.0.0.1")}},
			want:   []rlsmsg.Code{ok, ok, ok, ok, ok, over, over},
		},
		{
			// The same limits as kuadrant-operator wrote them for limitador 1.x.
			name: "kuadrant, legacy form: per-ip is the sixth POST's limit",
			limits: []Limit{
				{Name: "global", Namespace: "toystore/toystore", MaxValue: 100, Seconds: 60, Conditions: []string{`limit.global__53f76b2d == "1"`}},
				{Name: "per-ip", Namespace: "toystore/toystore", MaxValue: 5, Seconds: 10, Conditions: []string{`limit.per_ip__815c57de == "1"`}, Variables: []string{"source.remote_address"}},
			},
			domain: "toystore/toystore",
			descs:  []rlsmsg.Descriptor{{Entries: entries("limit.global__53f76b2d", "1", "limit.per_ip__815c57de", "1", "source.remote_address", "10.0.0.1")}},
			want:   []rlsmsg.Code{ok, ok, ok, ok, ok, over, over},
		},
		{
			name: "kuadrant: a GET carries only the global limit",
			limits: []Limit{
				{Name: "global", Namespace: "toystore/toystore", MaxValue: 2, Seconds: 60, Conditions: []string{`descriptors[0]["limit.global__53f76b2d"] == "1"`}},
				{Name: "per-ip", Namespace: "toystore/toystore", MaxValue: 1, Seconds: 10, Conditions: []string{`descriptors[0]["limit.per_ip__815c57de"] == "1"`}, Variables: []string{`descriptors[0]["source.remote_address"]`}},
			},
			domain: "toystore/toystore",
			descs:  []rlsmsg.Descriptor{{Entries: entries("limit.global__53f76b2d", "1")}},
			want:   []rlsmsg.Code{ok, ok, over},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEvaluator(t, tc.limits)
			var got []rlsmsg.Code
			for range tc.want {
				got = append(got, evaluate(t, e, 0, rlsmsg.Request{Domain: tc.domain, Descriptors: slices.Clone(tc.descs)}).OverallCode)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Evaluate(%s, %v) codes mismatch (-want +got):\n%s", tc.domain, tc.descs, diff)
			}
		})
	}
}

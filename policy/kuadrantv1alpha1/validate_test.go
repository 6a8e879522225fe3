package kuadrantv1alpha1

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestValidateCRDMessages: each rule of the CRD is reported with the CRD's message, and a
// valid policy of each shape has no problem.
func TestValidateCRDMessages(t *testing.T) {
	const head = "apiVersion: kuadrant.io/v1alpha1\nkind: TokenRateLimitPolicy\nmetadata: {name: p, namespace: ns}\nspec:\n"
	const route = "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}\n"
	const limit = "{tokens: {rates: [{limit: 100, window: 1m}]}}"
	tests := []struct {
		name, spec string
		want       []string // each a part of one error; none: valid
	}{
		{"bare limits", route + "  limits: " + limit + "\n", nil},
		{"defaults merge", route + "  defaults: {strategy: merge, limits: " + limit + "}\n", nil},
		{"overrides on a Gateway", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: http}\n  overrides: {limits: " + limit + "}\n", nil},
		{"when beside defaults is accepted as the CRD accepts it", route + "  when: [{predicate: \"request.method == 'POST'\"}]\n  defaults: {limits: " + limit + "}\n", nil},
		{"GRPCRoute", "  targetRef: {group: gateway.networking.k8s.io, kind: GRPCRoute, name: r}\n  limits: " + limit + "\n",
			[]string{`spec.targetRef.kind: Invalid value: "GRPCRoute": Invalid targetRef.kind. The only supported values are 'HTTPRoute' and 'Gateway'`}},
		{"group", "  targetRef: {group: networking.istio.io, kind: HTTPRoute, name: r}\n  limits: " + limit + "\n",
			[]string{`spec.targetRef.group: Invalid value: "networking.istio.io": Invalid targetRef.group. The only supported value is 'gateway.networking.k8s.io'`}},
		{"limits and defaults", route + "  limits: " + limit + "\n  defaults: {limits: " + limit + "}\n",
			[]string{`spec: Invalid value: "object": Implicit and explicit defaults are mutually exclusive`}},
		{"defaults and overrides", route + "  defaults: {limits: " + limit + "}\n  overrides: {limits: " + limit + "}\n",
			[]string{`spec: Invalid value: "object": Overrides and explicit defaults are mutually exclusive`}},
		{"limits and overrides", route + "  limits: " + limit + "\n  overrides: {limits: " + limit + "}\n",
			[]string{`spec: Invalid value: "object": Overrides and implicit defaults are mutually exclusive`}},
		{"no limits", route, []string{`spec: Invalid value: "object": At least one spec.limits must be defined`}},
		{"empty limits", route + "  limits: {}\n", []string{`spec: Invalid value: "object": At least one spec.limits must be defined`}},
		{"overrides without limits", route + "  overrides: {strategy: merge}\n", []string{`spec: Invalid value: "object": At least one spec.overrides.limits must be defined`}},
		{"defaults without limits", route + "  defaults: {limits: {}}\n", []string{`spec: Invalid value: "object": At least one spec.defaults.limits must be defined`}},
		{"strategy", route + "  defaults: {strategy: newest, limits: " + limit + "}\n", []string{`spec.defaults.strategy: Unsupported value: "newest"`}},
		{"window", route + "  limits: {tokens: {rates: [{limit: 1, window: 1d}]}}\n",
			[]string{`spec.limits[tokens].rates[0].window: Invalid value: "1d"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p TokenRateLimitPolicy
			if err := yaml.UnmarshalStrict([]byte(head+tc.spec), &p); err != nil {
				t.Fatal(err)
			}
			errs := ValidateTokenRateLimitPolicy(&p)
			if len(errs) != len(tc.want) {
				t.Fatalf("ValidateTokenRateLimitPolicy = %v, want %d error(s): %q", errs, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if got := errs[i].Error(); !strings.Contains(got, w) {
					t.Errorf("error %d = %q, want it to hold %q", i, got, w)
				}
			}
		})
	}
}

// TestRateLimitSpec: the body of a TokenRateLimitPolicy reads as a RateLimitPolicy's, the
// block in effect with its strategy.
func TestRateLimitSpec(t *testing.T) {
	var p TokenRateLimitPolicy
	src := "spec:\n  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  overrides: {strategy: merge, when: [{predicate: 'true'}], limits: {a: {rates: [{limit: 5, window: 10s}]}}}\n"
	if err := yaml.UnmarshalStrict([]byte(src), &p); err != nil {
		t.Fatal(err)
	}
	proper, strategy, override := p.Spec.Proper()
	if strategy != "merge" || !override || len(proper.When) != 1 || proper.Limits["a"].Rates[0].Limit != 5 {
		t.Errorf("Proper() = %+v, %q, %v; want the overrides block, merge, true", proper, strategy, override)
	}
	rs := p.Spec.RateLimitSpec()
	if rs.TargetRef.Name != "gw" || rs.Overrides == nil || rs.Defaults != nil {
		t.Errorf("RateLimitSpec() = %+v", rs)
	}
}

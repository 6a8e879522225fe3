package merge

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/policy"
)

// degradeYAML is two Gateways, each with a route and a policy; the route of gw-b has a match
// that the rate-limit filter cannot express unless validation catches it.
const degradeYAML = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw-a, namespace: infra}
spec:
  gatewayClassName: example
  listeners: [{name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw-b, namespace: infra}
spec:
  gatewayClassName: example
  listeners: [{name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: a, namespace: app}
spec:
  parentRefs: [{name: gw-a, namespace: infra}]
  hostnames: [a.example.com]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: b, namespace: app}
spec:
  parentRefs: [{name: gw-b, namespace: infra}]
  hostnames: [b.example.com]
  rules: [{matches: [{headers: [{type: RegularExpression, name: x-b, value: "("}]}]}]
---
apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {name: a, namespace: app}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: a}
  default:
    gatewayActions: [{configurations: [{actions: [{remote_address: {}}]}]}]
    rateLimits: [{conditions: [], variables: [remote_address], max_value: 5, seconds: 1}]
---
apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {name: b, namespace: app}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: b}
  default:
    gatewayActions: [{configurations: [{actions: [{remote_address: {}}]}]}]
    rateLimits: [{conditions: [], variables: [remote_address], max_value: 5, seconds: 1}]
`

// TestInvalidRouteMatchIsAValidationProblem: a route match the filter cannot express makes
// the route invalid, instead of failing the compilation of its Gateway.
func TestInvalidRouteMatchIsAValidationProblem(t *testing.T) {
	set, _ := policy.Decode("input.yaml", []byte(degradeYAML))
	res, err := Compile(set, Options{})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	got := map[string]int{}
	for _, gw := range res.Gateways {
		got[gw.Gateway] = len(gw.PluginConfig.RateLimitPolicies)
	}
	if diff := cmp.Diff(map[string]int{"infra/gw-a": 1, "infra/gw-b": 0}, got); diff != "" {
		t.Errorf("compiled policies per Gateway (-want +got):\n%s", diff)
	}
	if c := accepted(res, "app/b"); c.Reason != string(policy.ReasonTargetNotFound) || !strings.Contains(c.Message, "HTTPRoute app/b is invalid") {
		t.Errorf("app/b Accepted = %s %q, want TargetNotFound naming the invalid route", c.Reason, c.Message)
	}
}

func accepted(res *Result, name string) metav1.Condition {
	for _, p := range res.Policies {
		if p.Name == name {
			return p.Conditions[0]
		}
	}
	return metav1.Condition{}
}

// codeSet returns a Set built in code, as a controller may build it from a cluster: nothing
// validates it, so policy app/bad is as invalid as an admission webhook would have let it be.
func codeSet(bad policy.RateLimitPolicyConfig) *policy.Set {
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "gw"}}
	gw.Spec.GatewayClassName = "example"
	from := gatewayv1.NamespacesFromAll
	gw.Spec.Listeners = []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType,
		AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: &from}}}}
	ns := gatewayv1.Namespace("infra")
	route := func(name string) *gatewayv1.HTTPRoute {
		r := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: name}}
		r.Spec.ParentRefs = []gatewayv1.ParentReference{{Name: "gw", Namespace: &ns}}
		r.Spec.Hostnames = []gatewayv1.Hostname{gatewayv1.Hostname(name + ".example.com")}
		return r
	}
	pol := func(name string, cfg policy.RateLimitPolicyConfig) *policy.RateLimitPolicy {
		p := &policy.RateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: name}}
		p.Spec.TargetRef.Group, p.Spec.TargetRef.Kind, p.Spec.TargetRef.Name = policy.TargetGroup, "HTTPRoute", gatewayv1.ObjectName(name)
		p.Spec.Default = &cfg
		return p
	}
	good := policy.RateLimitPolicyConfig{
		GatewayActions: []descriptor.GatewayAction{{Configurations: []descriptor.Configuration{{Actions: []descriptor.Action{{RemoteAddress: &descriptor.RemoteAddress{}}}}}}},
		RateLimits:     []policy.RateLimitSpec{{Variables: []string{"remote_address"}, MaxValue: 5, Seconds: 1}},
	}
	return &policy.Set{
		Gateways:   []*gatewayv1.Gateway{gw},
		HTTPRoutes: []*gatewayv1.HTTPRoute{route("good"), route("bad")},
		Policies:   []*policy.RateLimitPolicy{pol("good", good), pol("bad", bad)},
	}
}

// TestInvalidPolicyDegrades: what Compile's own checks of the compiled PluginConfig and limits
// find wrong makes the responsible policy Invalid, naming the problem and what to do; every
// other policy still compiles.
func TestInvalidPolicyDegrades(t *testing.T) {
	tests := []struct {
		name string
		bad  policy.RateLimitPolicyConfig
		opts Options
		want []string // substrings of app/bad's Accepted message
	}{
		{
			name: "gateway action",
			bad:  policy.RateLimitPolicyConfig{GatewayActions: []descriptor.GatewayAction{{Configurations: []descriptor.Configuration{{Actions: []descriptor.Action{{GenericKey: &descriptor.GenericKey{}}}}}}}},
			want: []string{"spec.default.gatewayActions[0].configurations[0].actions[0].generic_key.descriptor_value: required", "HTTPRoute app/bad", "Gateway infra/gw"},
		},
		{
			name: "rate limit",
			bad:  policy.RateLimitPolicyConfig{RateLimits: []policy.RateLimitSpec{{Conditions: []string{"a =="}, MaxValue: 1, Seconds: 0}}},
			want: []string{"spec.default.rateLimits[0].seconds: must be greater than 0", "spec.default.rateLimits[0].conditions[0]: "},
		},
		{
			name: "limits a custom strategy made identical",
			bad:  policy.RateLimitPolicyConfig{RateLimits: []policy.RateLimitSpec{{MaxValue: 1, Seconds: 1}, {MaxValue: 2, Seconds: 1}}},
			opts: Options{Limits: func(sections []Section) ([]EffectiveLimit, []Replaced) {
				var out []EffectiveLimit
				for _, s := range sections {
					for i, l := range s.Config.RateLimits {
						out = append(out, EffectiveLimit{Limit: l, Origin: origin(s, i)})
					}
				}
				return out, nil
			}},
			want: []string{"spec.default.rateLimits[1]: same identity as spec.default.rateLimits[0]"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Compile(codeSet(tc.bad), tc.opts)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if len(res.Gateways) != 1 {
				t.Fatalf("Compile: %d Gateways, want 1", len(res.Gateways))
			}
			gw := res.Gateways[0]
			var names []string
			for _, p := range gw.PluginConfig.RateLimitPolicies {
				names = append(names, p.Name)
			}
			if diff := cmp.Diff([]string{"app/good"}, names); diff != "" {
				t.Errorf("compiled policies (-want +got):\n%s", diff)
			}
			if err := descriptor.Validate(&gw.PluginConfig); err != nil {
				t.Errorf("compiled PluginConfig is invalid: %v", err)
			}
			c := accepted(res, "app/bad")
			if c.Status != metav1.ConditionFalse || c.Reason != string(policy.ReasonInvalid) {
				t.Errorf("app/bad Accepted = %s %s, want False Invalid", c.Status, c.Reason)
			}
			for _, w := range tc.want {
				if !strings.Contains(c.Message, w) {
					t.Errorf("app/bad Accepted message = %q, want it to contain %q", c.Message, w)
				}
			}
			if c := accepted(res, "app/good"); c.Reason != string(policy.ReasonAccepted) {
				t.Errorf("app/good Accepted = %s %q, want Accepted", c.Reason, c.Message)
			}
		})
	}
}

// TestRejectedPolicyMakesWayForTheNextOldest: when the policy used for a target is rejected,
// the next oldest policy of the target is used, as if the rejected one had failed
// validation.
func TestRejectedPolicyMakesWayForTheNextOldest(t *testing.T) {
	set := codeSet(policy.RateLimitPolicyConfig{RateLimits: []policy.RateLimitSpec{{MaxValue: 1, Seconds: 0}}})
	newer := set.Policies[0].DeepCopy()
	newer.Name = "newer"
	newer.Spec.TargetRef.Name = "bad"
	newer.CreationTimestamp = metav1.Unix(1, 0)
	set.Policies = append(set.Policies, newer)
	res, err := Compile(set, Options{})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	got := map[string]string{}
	for _, p := range res.Policies {
		got[p.Name] = p.Conditions[0].Reason
	}
	want := map[string]string{"app/good": "Accepted", "app/bad": "Invalid", "app/newer": "Accepted"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Accepted reasons (-want +got):\n%s", diff)
	}
	var names []string
	for _, p := range res.Gateways[0].PluginConfig.RateLimitPolicies {
		names = append(names, p.Name)
	}
	if diff := cmp.Diff([]string{"app/bad", "app/good"}, names); diff != "" {
		t.Errorf("compiled policies (-want +got):\n%s", diff)
	}
}

package merge

import (
	"context"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// equivalentActionsYAML is a Gateway, a route and two policies whose gateway actions are one
// action spelled two ways; the route's limit admits 2 requests a minute.
const equivalentActionsYAML = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: example
  listeners: [{name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: toystore, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  hostnames: [api.toystore.com]
---
apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {name: gw, namespace: infra}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  default:
    gatewayActions:
    - rules: []
      configurations:
      - actions:
        - {generic_key: {descriptor_key: generic_key, descriptor_value: toys}}
        - {header_value_match: {descriptor_value: admin, expect_match: true, headers: [{name: X-Admin, exact_match: "yes"}]}}
---
apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {name: toystore, namespace: app}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: toystore}
  default:
    gatewayActions:
    - configurations:
      - actions:
        - {generic_key: {descriptor_value: toys}}
        - {header_value_match: {descriptor_key: header_match, descriptor_value: admin, headers: [{name: x-admin, exact_match: "yes"}]}}
    rateLimits:
    - {conditions: ["generic_key == toys", "header_match == admin"], variables: [], max_value: 2, seconds: 60}
`

// headers is a descriptor.Headers over lower-case names.
type headers map[string]string

func (h headers) Get(name string) (string, bool) { v, ok := h[name]; return v, ok }

// TestEquivalentActionsCountOnce compiles equivalent actions of two policies, generates the
// descriptors of a request with the compiled PluginConfig and evaluates them against the
// compiled limits: the action is kept once, so a limit of 2 admits 2 requests, not 1.
func TestEquivalentActionsCountOnce(t *testing.T) {
	set, err := policy.Decode("input.yaml", []byte(equivalentActionsYAML))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compile(set, Options{})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if len(res.Gateways) != 1 || len(res.Gateways[0].PluginConfig.RateLimitPolicies) != 1 {
		t.Fatalf("Compile: %d Gateways, want 1 with one policy", len(res.Gateways))
	}
	gw := res.Gateways[0]
	if n := len(gw.PluginConfig.RateLimitPolicies[0].GatewayActions); n != 1 {
		t.Errorf("compiled gateway actions = %d, want 1 (the two policies' actions are equivalent)", n)
	}
	engine, err := descriptor.Compile(&gw.PluginConfig)
	if err != nil {
		t.Fatalf("descriptor.Compile: %v", err)
	}
	eval, err := limitador.NewEvaluator(gw.Limits, counter.NewMemoryStore(counter.MemoryOptions{}))
	if err != nil {
		t.Fatalf("limitador.NewEvaluator: %v", err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	req := descriptor.Request{Method: "GET", Host: "api.toystore.com", Path: "/toys", Headers: headers{"x-admin": "yes"}, RemoteAddress: "10.0.0.1"}
	want := []rlsmsg.Code{rlsmsg.CodeOK, rlsmsg.CodeOK, rlsmsg.CodeOverLimit}
	for i, w := range want {
		gen := engine.Generate(&req)
		if n := len(gen.Descriptors); n != 1 {
			t.Errorf("request %d: %d descriptors, want 1: %+v", i, n, gen.Descriptors)
		}
		lr := rlsmsg.Request{Domain: gen.Domain, HitsAddend: gen.HitsAddend}
		for _, d := range gen.Descriptors {
			var ld rlsmsg.Descriptor
			for _, e := range d.Entries {
				ld.Entries = append(ld.Entries, rlsmsg.Entry{Key: e.Key, Value: e.Value})
			}
			lr.Descriptors = append(lr.Descriptors, ld)
		}
		var resp limit.Result
		if err := eval.Evaluate(context.Background(), now, &lr, &resp); err != nil {
			t.Fatalf("request %d: Evaluate: %v", i, err)
		}
		if resp.OverallCode != w {
			t.Errorf("request %d: Evaluate(%+v) code = %v, want %v", i, lr, resp.OverallCode, w)
		}
	}
}

// TestEquivalentActionIsInEffect: a policy whose action is left out because an equivalent one
// of a higher section is kept has that action in effect, so a policy whose only rate limit is
// replaced is PartiallyEnforced, not Overridden.
func TestEquivalentActionIsInEffect(t *testing.T) {
	const input = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: example
  listeners: [{name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: toystore, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: infra}]
---
apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {name: gw, namespace: infra}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  override:
    gatewayActions: [{rules: [], configurations: [{actions: [{generic_key: {descriptor_key: generic_key, descriptor_value: toys}}]}]}]
    rateLimits: [{conditions: ["generic_key == 'toys'"], variables: [], max_value: 2, seconds: 60}]
---
apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {name: toystore, namespace: app}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: toystore}
  default:
    gatewayActions: [{configurations: [{actions: [{generic_key: {descriptor_value: toys}}]}]}]
    rateLimits: [{conditions: ["generic_key == toys"], variables: [], max_value: 100, seconds: 60}]
`
	set, err := policy.Decode("input.yaml", []byte(input))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compile(set, Options{})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	for _, p := range res.Policies {
		if p.Name != "app/toystore" {
			continue
		}
		if c := p.Conditions[1]; c.Reason != string(policy.ReasonPartiallyEnforced) {
			t.Errorf("app/toystore Enforced = %s %q, want PartiallyEnforced", c.Reason, c.Message)
		}
	}
}

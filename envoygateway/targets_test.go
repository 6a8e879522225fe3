package envoygateway

import (
	"encoding/json"
	"strings"
	"testing"
)

// A policy whose targetRef names a Gateway or HTTPRoute that is not among the inputs is
// TargetNotFound with the likely misspelling, like the Kuadrant APIs; one naming a route
// that is there but attaches to no Gateway of the inputs gets no status.
func TestTargetNotFound(t *testing.T) {
	res := compileFile(t, []byte(`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: infra}
spec:
  gatewayClassName: eg
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: storefront, namespace: shop}
spec:
  parentRefs: [{name: edge, namespace: infra}]
  rules: [{matches: [{path: {type: PathPrefix, value: /}}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: orphan, namespace: shop}
spec:
  parentRefs: [{name: elsewhere, namespace: infra}]
  rules: [{matches: [{path: {type: PathPrefix, value: /}}]}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: typo-route, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: storefrnt}]
  rateLimit: {local: {rules: [{limit: {requests: 1, unit: Second}}]}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: typo-gateway, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: egde}]
  rateLimit: {local: {rules: [{limit: {requests: 1, unit: Second}}]}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: two-typos, namespace: shop}
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: storefrnt}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: storefront}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: storefronts}
  rateLimit: {local: {rules: [{limit: {requests: 1, unit: Second}}]}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: orphan, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: orphan}]
  rateLimit: {local: {rules: [{limit: {requests: 1, unit: Second}}]}}
`))
	want := map[string]string{
		"shop/typo-route":    "HTTPRoute shop/storefrnt not found (did you mean shop/storefront?).",
		"infra/typo-gateway": "Gateway infra/egde not found (did you mean infra/edge?).",
		"shop/two-typos":     "HTTPRoute shop/storefrnt not found (did you mean shop/storefront?). HTTPRoute shop/storefronts not found (did you mean shop/storefront?).",
	}
	got := map[string]string{}
	for _, st := range res.Output().Statuses {
		if st.Policy == "shop/two-typos" && st.Ancestor != "" {
			continue // its target that exists is accepted or conflicted on its Gateway
		}
		if st.Accepted != "False" || st.Reason != ReasonTargetNotFound || st.Ancestor != "" {
			t.Errorf("status %+v: want Accepted False, TargetNotFound, no ancestor", st)
			continue
		}
		got[st.Policy] = st.Message
	}
	for p, msg := range want {
		if got[p] != msg {
			t.Errorf("%s: message %q, want %q", p, got[p], msg)
		}
	}
	if len(got) != len(want) {
		t.Errorf("statuses %+v: want only %v", res.Statuses, want)
	}
}

// An HTTPRoute attached to two Gateways, each with its own policy, is printed once per
// Gateway, each entry with its Gateway's domains and local rate limit.
func TestRoutePerGateway(t *testing.T) {
	res := compileFile(t, []byte(`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: a, namespace: infra}
spec:
  gatewayClassName: eg
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: b, namespace: infra}
spec:
  gatewayClassName: eg
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shared, namespace: shop}
spec:
  parentRefs: [{name: a, namespace: infra}, {name: b, namespace: infra}]
  hostnames: [shop.example]
  rules: [{matches: [{path: {type: PathPrefix, value: /}}]}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: a, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: a}]
  rateLimit:
    global: {rules: [{limit: {requests: 10, unit: Minute}}]}
    local: {rules: [{clientSelectors: [{headers: [{name: x-a, type: Distinct}]}], limit: {requests: 1, unit: Second}}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: b, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: b}]
  rateLimit:
    global: {rules: [{limit: {requests: 20, unit: Minute}}]}
    local: {rules: [{clientSelectors: [{headers: [{name: x-b, type: Distinct}]}], limit: {requests: 2, unit: Second}}]}
`))
	if len(res.Routes) != 2 {
		t.Fatalf("routes %+v: want one per Gateway", res.Routes)
	}
	for _, rt := range res.Routes {
		other := map[string]string{"infra/a": "infra/b", "infra/b": "infra/a"}[rt.Gateway]
		if other == "" {
			t.Fatalf("route %s on Gateway %q: want infra/a or infra/b", rt.Name, rt.Gateway)
		}
		if len(rt.RateLimits) != 1 || rt.RateLimits[rt.Gateway+"/http"] == nil {
			t.Errorf("route %s on %s: domains %v, want only %s/http", rt.Name, rt.Gateway, keys(rt.RateLimits), rt.Gateway)
		}
		local := string(mustJSON(t, rt.LocalRateLimit))
		header := map[string]string{"infra/a": "x-a", "infra/b": "x-b"}[rt.Gateway]
		if !strings.Contains(local, header) || strings.Contains(local, map[string]string{"x-a": "x-b", "x-b": "x-a"}[header]) {
			t.Errorf("route %s on %s: local rate limit %s, want its Gateway's header %s only", rt.Name, rt.Gateway, local, header)
		}
	}
}

func keys(m map[string][]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

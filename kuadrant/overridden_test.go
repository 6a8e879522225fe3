package kuadrant

import (
	"testing"

	"github.com/rlpkit/rlpkit/policy"
)

// TestOverriddenByTwo: a Gateway default overridden on each of its two routes by the
// route's own policy names both, space-separated and sorted, as the operator prints its
// list of overriding policies ("[a b]", Go's formatting of a slice). The cart route has
// no rules: it has the one rule the CRD defaults them to, as in a cluster.
func TestOverriddenByTwo(t *testing.T) {
	const input = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: ingress}
spec:
  gatewayClassName: istio
  listeners:
  - {name: web, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: catalog, namespace: shop}
spec:
  parentRefs: [{name: edge, namespace: ingress}]
  hostnames: [catalog.shop.example]
  rules: [{matches: [{path: {type: PathPrefix, value: /}}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: shop}
spec:
  parentRefs: [{name: edge, namespace: ingress}]
  hostnames: [cart.shop.example]
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: edge-default, namespace: ingress}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: edge}
  defaults:
    limits:
      trickle: {rates: [{limit: 1, window: 10s}]}
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: for-cart, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  limits:
    cart: {rates: [{limit: 5, window: 10s}]}
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: for-catalog, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: catalog}
  limits:
    catalog: {rates: [{limit: 5, window: 10s}]}
`
	set, err := policy.Decode("input.yaml", []byte(input))
	if err != nil {
		t.Fatal(err)
	}
	res := Compile(set, Options{})
	const want = "RateLimitPolicy is overridden by [shop/for-cart shop/for-catalog]"
	if reason, msg := enforced(t, res, "ingress/edge-default"); reason != ReasonOverridden || msg != want {
		t.Errorf("Gateway default: Enforced %s %q, want %s %q", reason, msg, ReasonOverridden, want)
	}
}

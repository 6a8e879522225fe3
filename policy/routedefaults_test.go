package policy

import (
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestHTTPRouteWithoutRules: an HTTPRoute read without spec.rules has the one rule the CRD
// defaults it to (every path), and one with rules keeps them as written.
func TestHTTPRouteWithoutRules(t *testing.T) {
	set, err := Decode("routes.yaml", []byte(`
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: bare, namespace: shop}
spec:
  parentRefs: [{name: edge}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: written, namespace: shop}
spec:
  parentRefs: [{name: edge}]
  rules: [{matches: [{path: {type: Exact, value: /cart}}]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.HTTPRoutes) != 2 {
		t.Fatalf("%d routes, want 2", len(set.HTTPRoutes))
	}
	bare := set.HTTPRoutes[0].Spec.Rules
	if len(bare) != 1 || len(bare[0].Matches) != 1 || bare[0].Matches[0].Path == nil ||
		*bare[0].Matches[0].Path.Type != gatewayv1.PathMatchPathPrefix || *bare[0].Matches[0].Path.Value != "/" {
		t.Errorf("route without rules: %+v, want one rule matching PathPrefix /", bare)
	}
	written := set.HTTPRoutes[1].Spec.Rules
	if len(written) != 1 || *written[0].Matches[0].Path.Type != gatewayv1.PathMatchExact {
		t.Errorf("route with rules: %+v, want them as written", written)
	}
}

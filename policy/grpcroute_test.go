package policy

import (
	"strings"
	"testing"
)

// GRPCRoutes are read into the Set, and a method match the Gateway API's schema rejects is
// an error naming the file, line and field.
func TestDecodeGRPCRoute(t *testing.T) {
	const route = `apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: %s, namespace: apps}
spec:
  parentRefs: [{name: gw}]
  hostnames: [grpc.example.com]
  rules:
  - matches:
    - method: %s
      headers: [{name: x-user, value: alice}]
`
	good := strings.NewReplacer("%s", "g").Replace(route[:strings.Index(route, "%s\n      headers")]) + "{service: pkg.Service, method: Get}\n      headers: [{name: x-user, value: alice}]\n"
	set, err := Decode("g.yaml", []byte(good))
	if err != nil || len(set.GRPCRoutes) != 1 {
		t.Fatalf("Decode = %d GRPCRoutes, %v; want one and no error", len(set.GRPCRoutes), err)
	}
	r := set.GRPCRoutes[0]
	if r.Namespace != "apps" || *r.Spec.Rules[0].Matches[0].Method.Service != "pkg.Service" || r.Spec.Rules[0].Matches[0].Headers[0].Value != "alice" {
		t.Errorf("GRPCRoute = %+v, want apps/g matching pkg.Service/Get and x-user: alice", r)
	}
	for _, tc := range []struct{ method, want string }{
		{"{type: Exact}", "g.yaml:9: GRPCRoute apps/b: spec.rules[0].matches[0].method: Invalid value: \"object\": One or both of 'service' or 'method' must be specified"},
		{"{service: pkg.Service, method: Get/All}", `g.yaml:9: GRPCRoute apps/b: spec.rules[0].matches[0].method.method: Invalid value: "Get/All": method must only contain valid characters (matching ^[A-Za-z_][A-Za-z_0-9]*$)`},
		{"{type: RegularExpression, service: 'pkg.(Service'}", "g.yaml:9: GRPCRoute apps/b: spec.rules[0].matches[0].method.service: Invalid value: \"pkg.(Service\": not a valid regular expression"},
	} {
		bad := strings.Replace(strings.Replace(route, "%s", "b", 1), "%s", tc.method, 1)
		set, err := Decode("g.yaml", []byte(bad))
		if err == nil || !strings.Contains(err.Error(), tc.want) || len(set.GRPCRoutes) != 1 {
			t.Errorf("Decode(method %s) = %d GRPCRoutes, %v; want it kept and an error containing %q", tc.method, len(set.GRPCRoutes), err, tc.want)
		}
	}
}

package kuadrant

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// scaledTopology is gateways Gateways with routes HTTPRoutes spread over them, a policy on
// every route (a global and a per-client limit, one on POST) and merge defaults on every
// Gateway.
func scaledTopology(b *testing.B, gateways, routes int) *policy.Set {
	b.Helper()
	var s strings.Builder
	for g := range gateways {
		fmt.Fprintf(&s, "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw%d, namespace: infra}\nspec:\n  gatewayClassName: istio\n  listeners:\n  - {name: http, port: 80, protocol: HTTP, hostname: \"*.gw%d.example.com\", allowedRoutes: {namespaces: {from: All}}}\n", g, g)
		fmt.Fprintf(&s, "---\napiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {name: gw%d, namespace: infra}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw%d}\n  defaults:\n    strategy: merge\n    limits:\n      gateway: {rates: [{limit: 1000, window: 1m}]}\n", g, g)
	}
	for r := range routes {
		g := r % gateways
		fmt.Fprintf(&s, "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r%d, namespace: app}\nspec:\n  parentRefs: [{name: gw%d, namespace: infra}]\n  hostnames: [r%d.gw%d.example.com]\n  rules:\n  - matches: [{path: {type: PathPrefix, value: /api}, method: GET}, {path: {type: Exact, value: /login}}]\n", r, g, r, g)
		fmt.Fprintf(&s, "---\napiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {name: r%d, namespace: app}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r%d}\n  limits:\n    global: {rates: [{limit: 100, window: 1m}]}\n    per-ip:\n      rates: [{limit: 5, window: 10s}]\n      counters: [{expression: source.remote_address}]\n      when: [{predicate: \"request.method == 'POST'\"}]\n", r, r)
	}
	set, err := policy.Decode("scaled.yaml", []byte(s.String()))
	if err != nil {
		b.Fatal(err)
	}
	return set
}

// BenchmarkCompile compiles 100 Gateways, 10,000 HTTPRoutes and 10,100 kuadrant.io/v1
// policies.
func BenchmarkCompile(b *testing.B) {
	for _, routes := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("routes=%d", routes), func(b *testing.B) {
			set := scaledTopology(b, 100, routes)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				res := Compile(set, Options{})
				if len(res.Gateways) != 100 {
					b.Fatalf("%d Gateways compiled", len(res.Gateways))
				}
			}
		})
	}
}

// BenchmarkEvaluate evaluates one request (hostname lookup, route predicates, two
// conditionalData blocks with CEL predicates and data) against a Gateway's configuration of
// 100 routes.
func BenchmarkEvaluate(b *testing.B) {
	set := scaledTopology(b, 1, 100)
	res := Compile(set, Options{})
	ev, err := wasmshim.New(&res.Gateways[0].Wasm)
	if err != nil {
		b.Fatal(err)
	}
	req := &wasmshim.Request{Method: "POST", Host: "r42.gw0.example.com", Path: "/login", SourceAddress: "10.0.0.1:5000", Headers: map[string][]string{"user-agent": {"curl"}}}
	if out := ev.Evaluate(req); len(out.Calls) != 1 || len(out.Calls[0].Entries) != 4 {
		b.Fatalf("Evaluate = %+v, want one call with four entries\n%s", out.Calls, out.Explain())
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ev.Evaluate(req)
	}
}

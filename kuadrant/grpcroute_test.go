package kuadrant

import (
	"strings"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// grpcTopology has a GRPCRoute with one rule per kind of method match, each rule limited
// by a policy on it (sectionName) whose limit is named after the rule.
const grpcTopology = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: istio
  listeners:
  - {name: http, port: 80, protocol: HTTP, hostname: "*.example", allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: api, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  hostnames: [api.example]
  rules:
  - name: exact
    matches: [{method: {service: pkg.v1.Store, method: Get}}]
  - name: service
    matches: [{method: {service: pkg.v1.Store}, headers: [{name: X-Tier, value: gold}]}]
  - name: method
    matches: [{method: {method: Watch}}]
  - name: regex
    matches: [{method: {type: RegularExpression, service: 'pkg\.v2\..*', method: 'List[A-Z].*'}}]
  - name: regex-service
    matches: [{method: {type: RegularExpression, service: 'pkg\.v3\.[A-Z]+'}}]
  - name: rest
`

func grpcRulePolicy(rule string) string {
	return `
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: ` + rule + `, namespace: app}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: GRPCRoute, name: api, sectionName: ` + rule + `}
  limits:
    ` + rule + `: {rates: [{limit: 1, window: 1m}]}
`
}

// TestGRPCCallsReachTheirRule compiles a policy per GRPCRoute rule and evaluates gRPC
// calls (HTTP/2 POSTs to /service/method) through the wasm-shim configuration: each call
// reaches the rule its method matches, the most specific first, as Envoy routes it.
func TestGRPCCallsReachTheirRule(t *testing.T) {
	src := grpcTopology
	for _, r := range []string{"exact", "service", "method", "regex", "regex-service", "rest"} {
		src += grpcRulePolicy(r)
	}
	set, err := policy.Decode("grpc.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res := Compile(set, Options{})
	for _, p := range res.Policies {
		if c := p.Conditions[len(p.Conditions)-1]; c.Reason != ReasonEnforced {
			t.Errorf("%s: %s %s", p.Name, c.Reason, c.Message)
		}
	}
	ev, err := wasmshim.New(&res.Gateways[0].Wasm)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, method string
		headers      map[string][]string
		want         string
	}{
		{"exact", "pkg.v1.Store/Get", nil, "exact"},
		{"exact beats the service's", "pkg.v1.Store/Get", map[string][]string{"x-tier": {"gold"}}, "exact"},
		{"service with its header", "pkg.v1.Store/Put", map[string][]string{"x-tier": {"gold"}}, "service"},
		{"service without the header", "pkg.v1.Store/Put", nil, "rest"},
		{"method of any service", "other.Feed/Watch", nil, "method"},
		{"method is whole", "other.Feed/WatchAll", nil, "rest"},
		{"regex service and method", "pkg.v2.Catalog/ListItems", nil, "regex"},
		{"regex method anchored", "pkg.v2.Catalog/Listing", nil, "rest"},
		{"regex dot is escaped", "pkgXv2.Catalog/ListItems", nil, "rest"},
		{"regex service alone", "pkg.v3.ABC/Anything", nil, "regex-service"},
		{"regex service anchored", "pkg.v3.ABCd/Anything", nil, "rest"},
		{"reflection", "grpc.reflection.v1.ServerReflection/ServerReflectionInfo", nil, "rest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := &policyapi.Request{Host: "api.example", Headers: map[string][]string{}}
			for k, v := range tc.headers {
				req.Headers[k] = v
			}
			if err := req.SetGRPC(tc.method); err != nil {
				t.Fatal(err)
			}
			w := req.WasmShim()
			got := ""
			r := ev.Evaluate(&w)
			for _, c := range r.Calls {
				for _, e := range c.Entries {
					got = strings.TrimPrefix(e.Key, "limit.")
					got, _, _ = strings.Cut(got, "__")
				}
			}
			if want := strings.ReplaceAll(tc.want, "-", "_"); got != want {
				t.Errorf("call %s = limit %q, want %q\n%s", tc.method, got, want, strings.Join(r.Trace, "\n"))
			}
		})
	}
}

func TestGRPCMethodPredicate(t *testing.T) {
	p := func(s string) *string { return &s }
	for _, tc := range []struct {
		name          string
		svc, method   *string
		regex         bool
		want, sortPat string
	}{
		{"exact both", p("a.B"), p("C"), false, "request.url_path == '/a.B/C'", "Exact /a.B/C"},
		{"exact service", p("a.B"), nil, false, "request.url_path.startsWith('/a.B/')", "PathPrefix /a.B"},
		{"exact method", nil, p("C"), false, "request.url_path.matches('^/[^/]+/C$')", "PathPrefix /C"},
		{"regex both", p(`a\.B`), p("C.*"), true, `request.url_path.matches('^/a\\.B/C.*$')`, `RegularExpression ^/a\.B/C.*$`},
		{"regex service", p("a.*"), nil, true, "request.url_path.matches('^/a.*/.*$')", "RegularExpression ^/a.*"},
		{"regex method", nil, p("C"), true, "request.url_path.matches('^/[^/]+/C$')", "RegularExpression ^/C"},
		{"empty", p(""), p(""), false, "", " "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mm := methodMatch(tc.svc, tc.method, tc.regex)
			if got := grpcMethodPredicate(mm); got != tc.want {
				t.Errorf("grpcMethodPredicate = %q, want %q", got, tc.want)
			}
			if tc.want != "" {
				if err := wasmshim.OperatorCheck(tc.want, false); err != nil {
					t.Errorf("OperatorCheck(%q) = %v", tc.want, err)
				}
			}
			pt, pv := grpcSortPath(mm)
			if got := string(pt) + " " + pv; got != tc.sortPat {
				t.Errorf("grpcSortPath = %q, want %q", got, tc.sortPat)
			}
		})
	}
}

func methodMatch(svc, method *string, regex bool) *gatewayv1.GRPCMethodMatch {
	mm := &gatewayv1.GRPCMethodMatch{Service: svc, Method: method}
	if regex {
		t := gatewayv1.GRPCMethodMatchRegularExpression
		mm.Type = &t
	}
	return mm
}

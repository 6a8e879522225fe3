package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// problems decodes doc (one YAML document) and returns its problems, one string each, without
// the source prefix.
func problems(t *testing.T, doc string) []string {
	t.Helper()
	_, err := Decode("in.yaml", []byte(doc))
	if err == nil {
		return nil
	}
	var out []string
	for _, e := range err.(Errors) {
		e.Source = Source{}
		out = append(out, strings.TrimPrefix(e.Error(), ": "))
	}
	return out
}

const rlpHead = `apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {name: p, namespace: ns}
`

func TestValidateRateLimitPolicy(t *testing.T) {
	const obj = "RateLimitPolicy ns/p: "
	tests := []struct {
		name string
		spec string
		want []string
	}{
		{name: "minimal valid", spec: `{targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}}`},
		{
			name: "target reference",
			spec: `{targetRef: {group: networking.k8s.io, kind: Ingress}}`,
			want: []string{
				obj + `spec.targetRef.group: Unsupported value: "networking.k8s.io": supported values: "gateway.networking.k8s.io"`,
				obj + `spec.targetRef.kind: Unsupported value: "Ingress": supported values: "Gateway", "HTTPRoute"`,
				obj + "spec.targetRef.name: Required value",
			},
		},
		{
			name: "rate limits",
			spec: `
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}
  override:
    rateLimits:
    - {conditions: ["a == b"], variables: [user], max_value: -1, seconds: 0}
    - {conditions: ["a =="], variables: [""], max_value: 1, seconds: 60}
    - {conditions: ["a == b", "a == b"], variables: [user], max_value: 5, seconds: 0}
    - {conditions: [], variables: [], max_value: 0, seconds: 1}
    - {conditions: ["x == y"], variables: [], max_value: 4294967296, seconds: 4294967296}`,
			want: []string{
				obj + "spec.override.rateLimits[0].max_value: Invalid value: -1: must be greater than or equal to 0",
				obj + "spec.override.rateLimits[0].seconds: Invalid value: 0: must be greater than 0",
				obj + `spec.override.rateLimits[1].conditions[0]: Invalid value: "a ==": `,
				obj + `spec.override.rateLimits[1].variables[0]: Invalid value: "": must not be empty`,
				obj + "spec.override.rateLimits[2].seconds: Invalid value: 0: must be greater than 0",
				obj + "spec.override.rateLimits[2]: Duplicate value: same conditions, variables and seconds as spec.override.rateLimits[0]: one of them would never apply",
				obj + "spec.override.rateLimits[4].max_value: Invalid value: 4294967296: must be at most 4294967295",
				obj + "spec.override.rateLimits[4].seconds: Invalid value: 4294967296: must be at most 4294967295",
			},
		},
		{
			name: "one limit spelled differently twice in a section",
			spec: `
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}
  default:
    rateLimits:
    - {conditions: ["k == v"], variables: ["descriptors[0].user"], max_value: 1, seconds: 60}
    - {conditions: ["k == 'v'"], variables: ["descriptors[0]['user']"], max_value: 2, seconds: 60}
    - {conditions: ["k=='v'", "k == v"], variables: [user], max_value: 3, seconds: 60}
    - {conditions: ["k == v"], variables: [user], max_value: 4, seconds: 61}`,
			want: []string{
				obj + "spec.default.rateLimits[1]: Duplicate value: same conditions, variables and seconds as spec.default.rateLimits[0]: one of them would never apply",
				obj + "spec.default.rateLimits[2]: Duplicate value: same conditions, variables and seconds as spec.default.rateLimits[0]: one of them would never apply",
			},
		},
		{
			name: "variables the rate-limit service cannot read",
			spec: `
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}
  default:
    rateLimits:
    - {conditions: [], variables: ["descriptors[1].user", "descriptors[0]", "descriptors[0]['user']"], max_value: 1, seconds: 60}`,
			want: []string{
				// descriptors[1].user is a CEL variable limitador 2.x reads.
				obj + `spec.default.rateLimits[0].variables[1]: Invalid value: "descriptors[0]": variable "descriptors[0]": must evaluate to a string, a number or a bool, not map(string, string)`,
			},
		},
		{
			name: "gateway actions as the descriptor package validates them",
			spec: `
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}
  default:
    gatewayActions:
    - rules: [{paths: [admin], methods: ["G T"], hosts: ["*.ok.com", "a*.com"]}]
      configurations:
      - actions: [{generic_key: {}}, {generic_key: {descriptor_value: v}, remote_address: {}}]`,
			want: []string{
				obj + `spec.default.gatewayActions[0].rules[0].paths[0]: Invalid value: invalid path "admin": must start with "/"`,
				obj + "spec.default.gatewayActions[0].rules[0].methods[0]: Invalid value: invalid HTTP method \"G T\": must be a token (letters, digits and !#$%&'*+-.^_`|~)",
				obj + `spec.default.gatewayActions[0].rules[0].hosts[1]: Invalid value: invalid pattern "a*.com": `,
				obj + "spec.default.gatewayActions[0].configurations[0].actions[0].generic_key.descriptor_value: Required value",
				obj + "spec.default.gatewayActions[0].configurations[0].actions[1]: Invalid value: exactly one action type must be set (generic_key, request_headers, remote_address, metadata, header_value_match, remote_address_match, query_parameter_value_match, query_parameters)",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := problems(t, rlpHead+"spec: "+tc.spec+"\n")
			compareProblems(t, tc.want, got)
		})
	}
}

// compareProblems compares problem lists; a wanted line ending in ": " matches any detail
// after it (the detail of a dependency's message).
func compareProblems(t *testing.T, want, got []string) {
	t.Helper()
	for i := range got {
		if i < len(want) && strings.HasSuffix(want[i], ": ") && strings.HasPrefix(got[i], want[i]) {
			got[i] = want[i]
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestValidateGateway(t *testing.T) {
	const obj = "Gateway ns/gw: "
	tests := []struct {
		name string
		spec string
		want []string
	}{
		{name: "valid", spec: `{gatewayClassName: c, listeners: [{name: http, port: 80, protocol: HTTP, hostname: "*.example.com"}]}`},
		{name: "no class, no listeners", spec: `{listeners: []}`, want: []string{
			obj + "spec.gatewayClassName: Required value",
			obj + "spec.listeners: Required value: a Gateway needs at least one listener",
		}},
		{
			name: "listeners",
			spec: `
  gatewayClassName: c
  listeners:
  - {name: a, port: 80, protocol: HTTP, hostname: "Example.com"}
  - {name: a, port: 0, protocol: "", hostname: "10.0.0.1"}
  - name: b
    port: 443
    protocol: HTTPS
    allowedRoutes:
      namespaces: {from: Selector}
      kinds: [{group: gateway.networking.k8s.io}]
  - name: c
    port: 80
    protocol: HTTP
    allowedRoutes:
      namespaces: {from: Elsewhere}
  - name: d
    port: 80
    protocol: HTTP
    allowedRoutes:
      namespaces: {from: Selector, selector: {matchExpressions: [{key: team, operator: Maybe}]}}`,
			want: []string{
				obj + `spec.listeners[0].hostname: Invalid value: "Example.com": must be a lower-case DNS name, optionally prefixed with "*." (as in "*.example.com")`,
				obj + `spec.listeners[1].name: Duplicate value: "a": also the name of spec.listeners[0]`,
				obj + `spec.listeners[1].hostname: Invalid value: "10.0.0.1": must be a hostname, not an IP address`,
				obj + "spec.listeners[1].port: Invalid value: 0: must be between 1 and 65535",
				obj + "spec.listeners[1].protocol: Required value",
				obj + "spec.listeners[2].allowedRoutes.namespaces.selector: Required value: from: Selector needs a selector",
				obj + "spec.listeners[2].allowedRoutes.kinds[0].kind: Required value",
				obj + `spec.listeners[3].allowedRoutes.namespaces.from: Unsupported value: "Elsewhere": supported values: "All", "Same", "Selector"`,
				obj + `spec.listeners[4].allowedRoutes.namespaces.selector: Invalid value: `,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: ns}\nspec: " + tc.spec + "\n"
			compareProblems(t, tc.want, problems(t, doc))
		})
	}
}

func TestValidateHTTPRoute(t *testing.T) {
	const obj = "HTTPRoute ns/r: "
	tests := []struct {
		name string
		spec string
		want []string
	}{
		{name: "valid", spec: `{parentRefs: [{name: gw}], hostnames: ["*.example.com"], rules: [{matches: [{path: {type: Exact, value: /x}}]}]}`},
		{name: "no parentRefs", spec: `{hostnames: [a.example.com]}`, want: []string{obj + "spec.parentRefs: Required value: an HTTPRoute needs at least one parentRef"}},
		{
			name: "fields",
			spec: `{parentRefs: [{name: "", port: 0}], hostnames: ["*", "a_b.com"], rules: [{matches: [{path: {type: PathPrefix, value: admin}}, {path: {type: RegularExpression, value: "("}}]}]}`,
			want: []string{
				obj + "spec.parentRefs[0].name: Required value",
				obj + "spec.parentRefs[0].port: Invalid value: 0: must be between 1 and 65535",
				obj + `spec.hostnames[0]: Invalid value: "*": must be a lower-case DNS name, optionally prefixed with "*." (as in "*.example.com")`,
				obj + `spec.hostnames[1]: Invalid value: "a_b.com": must be a lower-case DNS name, optionally prefixed with "*." (as in "*.example.com")`,
				obj + `spec.rules[0].matches[0].path.value: Invalid value: "admin": must start with "/"`,
				obj + `spec.rules[0].matches[1].path.value: Invalid value: "(": `,
			},
		},
		{
			name: "matches the rate-limit filter cannot express",
			spec: `{parentRefs: [{name: gw}], rules: [{matches: [{path: {type: PathPrefix, value: "/a?b"}, method: get, headers: [{name: "X A", value: v}, {type: RegularExpression, name: x-b, value: "("}]}]}]}`,
			want: []string{
				obj + `spec.rules[0].matches[0].path.value: Invalid value: "/a?b": must not contain a query ("?") or fragment ("#"): match query parameters with queryParams`,
				obj + `spec.rules[0].matches[0].method: Unsupported value: "get": supported values: "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"`,
				obj + "spec.rules[0].matches[0].headers[0].name: Invalid value: \"X A\": must be a header name (letters, digits and !#$%&'*+-.^_`|~)",
				obj + `spec.rules[0].matches[0].headers[1].value: Invalid value: "(": `,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: ns}\nspec: " + tc.spec + "\n"
			compareProblems(t, tc.want, problems(t, doc))
		})
	}
}

func TestPatchKey(t *testing.T) {
	tests := []struct {
		name string
		a, b RateLimitSpec
		same bool
	}{
		{"conditions are a set", RateLimitSpec{Conditions: []string{"a == 1", "b == 2"}, Seconds: 60}, RateLimitSpec{Conditions: []string{" b == 2", "a == 1", "a == 1"}, Seconds: 60}, true},
		{"variables are a set", RateLimitSpec{Variables: []string{"x", "y"}, Seconds: 1}, RateLimitSpec{Variables: []string{"y", "x"}, Seconds: 1, MaxValue: 9}, true},
		{"seconds differ", RateLimitSpec{Seconds: 1}, RateLimitSpec{Seconds: 2}, false},
		{"condition is not a variable", RateLimitSpec{Conditions: []string{"x"}, Seconds: 1}, RateLimitSpec{Variables: []string{"x"}, Seconds: 1}, false},
		{"no ambiguity in joining", RateLimitSpec{Conditions: []string{"a", "b"}, Seconds: 1}, RateLimitSpec{Conditions: []string{`a", "b`}, Seconds: 1}, false},
		{"one condition spelled two ways", RateLimitSpec{Conditions: []string{"k == v"}, Seconds: 1}, RateLimitSpec{Conditions: []string{"k == 'v'"}, Seconds: 1}, true},
		{"one condition with and without spaces", RateLimitSpec{Conditions: []string{`k=="v"`}, Seconds: 1}, RateLimitSpec{Conditions: []string{"k == v"}, Seconds: 1}, true},
		{"equality is not inequality", RateLimitSpec{Conditions: []string{"k == v"}, Seconds: 1}, RateLimitSpec{Conditions: []string{"k != v"}, Seconds: 1}, false},
		{"one variable spelled three ways", RateLimitSpec{Variables: []string{"descriptors[0].user"}, Seconds: 1}, RateLimitSpec{Variables: []string{"descriptors[0]['user']", "user"}, Seconds: 1}, true},
		{"negative seconds stay apart", RateLimitSpec{Seconds: -1}, RateLimitSpec{Seconds: 1}, false},
	}
	for _, tc := range tests {
		if got := tc.a.PatchKey() == tc.b.PatchKey(); got != tc.same {
			t.Errorf("%s: PatchKey(%v) == PatchKey(%v) is %v, want %v", tc.name, tc.a, tc.b, got, tc.same)
		}
	}
}

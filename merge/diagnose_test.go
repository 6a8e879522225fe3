package merge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
)

// A Gateway with one listener per case of attachment. Every document is on one line, so a
// warning names line 1 + 2*index of its object.
const (
	diagGateway = `{apiVersion: gateway.networking.k8s.io/v1, kind: Gateway, metadata: {name: mygateway, namespace: gateway-system}, spec: {gatewayClassName: c, listeners: [` +
		`{name: http, port: 80, protocol: HTTP, hostname: "*.toystore.com", allowedRoutes: {namespaces: {from: All}}}, ` +
		`{name: same, port: 8080, protocol: HTTP}, ` +
		`{name: prod, port: 8081, protocol: HTTP, allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {env: prod}}}}}, ` +
		`{name: grpc, port: 8082, protocol: HTTP, allowedRoutes: {namespaces: {from: All}, kinds: [{kind: GRPCRoute}]}}, ` +
		`{name: tcp, port: 9000, protocol: TCP, allowedRoutes: {namespaces: {from: All}}}]}}`
	diagPolicy = `{apiVersion: apim.kuadrant.io/v1alpha1, kind: RateLimitPolicy, metadata: {name: %s, namespace: %s}, spec: {targetRef: {group: gateway.networking.k8s.io, kind: %s, name: %s}, default: {rateLimits: [{max_value: 1, seconds: 1}]}}}`
)

// diagRoute returns an HTTPRoute document of namespace default.
func diagRoute(name, spec string) string {
	return `{apiVersion: gateway.networking.k8s.io/v1, kind: HTTPRoute, metadata: {name: ` + name + `, namespace: default}, spec: ` + spec + `}`
}

// diagPolicyDoc returns a RateLimitPolicy document targeting kind/target.
func diagPolicyDoc(ns, name, kind, target string) string {
	return fmt.Sprintf(diagPolicy, name, ns, kind, target)
}

func TestDiagnose(t *testing.T) {
	toystore := diagRoute("toystore", `{parentRefs: [{name: mygateway, namespace: gateway-system}], hostnames: ["api.toystore.com"]}`)
	tests := []struct {
		name string
		docs []string
		want []string
	}{{
		name: "attached route and its policies: no warning",
		docs: []string{diagGateway, toystore, diagPolicyDoc("default", "rlp", "HTTPRoute", "toystore"), diagPolicyDoc("gateway-system", "gw-rlp", "Gateway", "mygateway")},
	}, {
		name: "targetRef misspelt",
		docs: []string{diagGateway, toystore, diagPolicyDoc("default", "toystore-rlp", "HTTPRoute", "toystor")},
		want: []string{"in.yaml:5: RateLimitPolicy default/toystore-rlp: spec.targetRef: HTTPRoute default/toystor not found (did you mean default/toystore?)"},
	}, {
		name: "targetRef names a Gateway of another namespace",
		docs: []string{diagGateway, toystore, diagPolicyDoc("default", "gw-rlp", "Gateway", "mygateway")},
		want: []string{"in.yaml:5: RateLimitPolicy default/gw-rlp: spec.targetRef: Gateway default/mygateway not found (did you mean gateway-system/mygateway?); a policy targets only objects of its own namespace default: create it in the namespace of its target"},
	}, {
		name: "targetRef far from everything lists what there is",
		docs: []string{diagGateway, toystore, diagPolicyDoc("default", "p", "HTTPRoute", "completely-different")},
		want: []string{"in.yaml:5: RateLimitPolicy default/p: spec.targetRef: HTTPRoute default/completely-different not found; HTTPRoutes in the inputs: default/toystore"},
	}, {
		name: "target invalid",
		docs: []string{diagGateway, diagRoute("bad", `{parentRefs: [{name: mygateway, namespace: gateway-system}], hostnames: ["bad_host"]}`), diagPolicyDoc("default", "p", "HTTPRoute", "bad")},
		want: []string{"in.yaml:5: RateLimitPolicy default/p: spec.targetRef: HTTPRoute default/bad is invalid, so the policy applies to no request until its errors are fixed (rlpkit validate lists them)"},
	}, {
		name: "conflicting policy",
		docs: []string{diagGateway, toystore, diagPolicyDoc("default", "a", "HTTPRoute", "toystore"), diagPolicyDoc("default", "b", "HTTPRoute", "toystore")},
		want: []string{"in.yaml:7: RateLimitPolicy default/b: spec.targetRef: not used: default/a also targets HTTPRoute default/toystore and is older; only the oldest policy of a target is used; merge the two policies or delete one"},
	}, {
		name: "Gateway policy without routes",
		docs: []string{diagGateway, diagPolicyDoc("gateway-system", "gw-rlp", "Gateway", "mygateway")},
		want: []string{"in.yaml:3: RateLimitPolicy gateway-system/gw-rlp: spec.targetRef: no HTTPRoute is attached to Gateway gateway-system/mygateway, so the policy applies to no request; attach an HTTPRoute to it (spec.parentRefs)"},
	}, {
		name: "policies without a Gateway",
		docs: []string{toystore, diagPolicyDoc("default", "toystore-rlp", "HTTPRoute", "toystore"), diagPolicyDoc("default", "more", "HTTPRoute", "toystore")},
		want: []string{
			"no valid Gateway in the inputs, so nothing is compiled and RateLimitPolicies default/more, default/toystore-rlp apply to no request; add the manifest of Gateway gateway-system/mygateway (named by the HTTPRoutes' parentRefs) to the inputs",
			"in.yaml:1: HTTPRoute default/toystore: spec.parentRefs[0].name: Gateway gateway-system/mygateway not found; there is no valid Gateway in the inputs",
			"in.yaml:3: RateLimitPolicy default/toystore-rlp: spec.targetRef: not used: default/more also targets HTTPRoute default/toystore and is older; only the oldest policy of a target is used; merge the two policies or delete one",
			"in.yaml:5: RateLimitPolicy default/more: spec.targetRef: HTTPRoute default/toystore is not attached to any Gateway, so the policy applies to no request; see the warnings of the route",
		},
	}, {
		name: "route of a mesh: left alone",
		docs: []string{diagGateway, diagRoute("r", `{parentRefs: [{group: "", kind: Service, name: svc}]}`)},
	}, {
		name: "parentRef misspelt",
		docs: []string{diagGateway, diagRoute("r", `{parentRefs: [{name: mygatway, namespace: gateway-system}]}`)},
		want: []string{"in.yaml:3: HTTPRoute default/r: spec.parentRefs[0].name: Gateway gateway-system/mygatway not found (did you mean gateway-system/mygateway?)"},
	}, {
		name: "parentRef without the Gateway's namespace",
		docs: []string{diagGateway, diagRoute("r", `{parentRefs: [{name: mygateway}]}`)},
		want: []string{"in.yaml:3: HTTPRoute default/r: spec.parentRefs[0].name: Gateway default/mygateway not found (did you mean gateway-system/mygateway?); a parentRef without namespace names a Gateway of the route's namespace default: set spec.parentRefs[0].namespace"},
	}, {
		name: "parentRef names an invalid Gateway",
		docs: []string{`{apiVersion: gateway.networking.k8s.io/v1, kind: Gateway, metadata: {name: gw, namespace: default}, spec: {gatewayClassName: c, listeners: [{name: http, port: 80, protocol: HTTP, hostname: "bad_host"}]}}`, diagRoute("r", `{parentRefs: [{name: gw}]}`)},
		want: []string{"in.yaml:3: HTTPRoute default/r: spec.parentRefs[0].name: Gateway default/gw is invalid, so the route attaches to it only once its errors are fixed (rlpkit validate lists them)"},
	}, {
		name: "sectionName names no listener",
		docs: []string{diagGateway, diagRoute("r", `{parentRefs: [{name: mygateway, namespace: gateway-system, sectionName: https}]}`)},
		want: []string{"in.yaml:3: HTTPRoute default/r: spec.parentRefs[0].sectionName: not attached to Gateway gateway-system/mygateway: it has no listener named https; set sectionName to one of http, same, prod, grpc, tcp"},
	}, {
		name: "port matches no listener",
		docs: []string{diagGateway, diagRoute("r", `{parentRefs: [{name: mygateway, namespace: gateway-system, port: 443}]}`)},
		want: []string{"in.yaml:3: HTTPRoute default/r: spec.parentRefs[0].port: not attached to Gateway gateway-system/mygateway: no listener listens on port 443; set port to one of 80, 8080, 8081, 8082, 9000 or leave it out"},
	}, {
		name: "port is not the named listener's",
		docs: []string{diagGateway, diagRoute("r", `{parentRefs: [{name: mygateway, namespace: gateway-system, sectionName: http, port: 443}]}`)},
		want: []string{"in.yaml:3: HTTPRoute default/r: spec.parentRefs[0].port: not attached to Gateway gateway-system/mygateway: listener http listens on port 80, not 443; set port to 80 or leave it out"},
	}, {
		name: "listener protocol not HTTP",
		docs: []string{diagGateway, diagRoute("r", `{parentRefs: [{name: mygateway, namespace: gateway-system, sectionName: tcp}]}`)},
		want: []string{"in.yaml:3: HTTPRoute default/r: spec.parentRefs[0]: not attached to Gateway gateway-system/mygateway: listener tcp speaks TCP, not HTTP or HTTPS; name an HTTP or HTTPS listener (sectionName, port)"},
	}, {
		name: "allowedRoutes Same excludes the namespace",
		docs: []string{diagGateway, diagRoute("r", `{parentRefs: [{name: mygateway, namespace: gateway-system, sectionName: same}]}`)},
		want: []string{"in.yaml:3: HTTPRoute default/r: spec.parentRefs[0]: not attached to Gateway gateway-system/mygateway: listener same admits routes of namespace gateway-system only (allowedRoutes.namespaces.from: Same); " + hintNamespace},
	}, {
		name: "allowedRoutes Selector excludes the namespace",
		docs: []string{diagGateway, `{apiVersion: v1, kind: Namespace, metadata: {name: default, labels: {env: dev}}}`, diagRoute("r", `{parentRefs: [{name: mygateway, namespace: gateway-system, port: 8081}]}`)},
		want: []string{"in.yaml:5: HTTPRoute default/r: spec.parentRefs[0]: not attached to Gateway gateway-system/mygateway: listener prod admits namespaces matching env=prod; namespace default has labels env=dev,kubernetes.io/metadata.name=default; " + hintNamespace},
	}, {
		name: "allowedRoutes kinds exclude HTTPRoute",
		docs: []string{diagGateway, diagRoute("r", `{parentRefs: [{name: mygateway, namespace: gateway-system, sectionName: grpc}]}`)},
		want: []string{"in.yaml:3: HTTPRoute default/r: spec.parentRefs[0]: not attached to Gateway gateway-system/mygateway: listener grpc admits kinds GRPCRoute, not HTTPRoute (allowedRoutes.kinds); add HTTPRoute to the listener's allowedRoutes.kinds"},
	}, {
		name: "hostnames intersect no listener",
		docs: []string{diagGateway, diagRoute("toystore", `{parentRefs: [{name: mygateway, namespace: gateway-system, sectionName: http}], hostnames: ["*.toystore.org"]}`)},
		want: []string{"in.yaml:3: HTTPRoute default/toystore: spec.hostnames: not attached to Gateway gateway-system/mygateway: hostnames *.toystore.org do not intersect listener http (*.toystore.com); give the route a hostname the listener serves (spec.hostnames)"},
	}, {
		name: "every listener refuses: one warning with every reason",
		docs: []string{diagGateway, diagRoute("r", `{parentRefs: [{name: mygateway, namespace: gateway-system}], hostnames: ["www.example.org"]}`)},
		want: []string{"in.yaml:3: HTTPRoute default/r: spec.parentRefs[0]: not attached to Gateway gateway-system/mygateway: " +
			"hostnames www.example.org do not intersect listener http (*.toystore.com); " +
			"listener same admits routes of namespace gateway-system only (allowedRoutes.namespaces.from: Same); " +
			"listener prod admits namespaces matching env=prod; namespace default has labels kubernetes.io/metadata.name=default; " +
			"listener grpc admits kinds GRPCRoute, not HTTPRoute (allowedRoutes.kinds); " +
			"listener tcp speaks TCP, not HTTP or HTTPS; " +
			hintKinds + ", or " + hintNamespace + ", or " + hintHostnames + ", or " + hintProtocol},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			input := strings.Join(tc.docs, "\n---\n")
			set, _ := policy.Decode("in.yaml", []byte(input)) // some cases are about invalid objects
			var got []string
			for _, w := range Diagnose(set) {
				got = append(got, w.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Diagnose(%s) (-want +got):\n%s", tc.name, diff)
			}
		})
	}
}

func TestCandidates(t *testing.T) {
	gw := func(ns, name string) string {
		return fmt.Sprintf(`{apiVersion: gateway.networking.k8s.io/v1, kind: Gateway, metadata: {name: %s, namespace: %s}, spec: {gatewayClassName: c, listeners: [{name: http, port: 80, protocol: HTTP}]}}`, name, ns)
	}
	input := strings.Join([]string{
		gw("gateway-system", "mygateway"), gw("default", "other"), gw("default", "mygateway-2"),
		`{apiVersion: gateway.networking.k8s.io/v1, kind: Gateway, metadata: {name: mygateway, namespace: broken}, spec: {gatewayClassName: c, listeners: []}}`,
		diagRoute("toystore", `{parentRefs: [{name: mygateway}]}`),
	}, "\n---\n")
	set, _ := policy.Decode("in.yaml", []byte(input)) // Gateway broken/mygateway is invalid
	tests := []struct {
		kind, name string
		want       []string
	}{
		{policy.KindGateway, "mygateway", []string{"gateway-system/mygateway", "default/mygateway-2", "default/other"}},
		{policy.KindGateway, "default/mygateway", []string{"gateway-system/mygateway", "default/mygateway-2", "default/other"}},
		{policy.KindGateway, "default/othr", []string{"default/other", "gateway-system/mygateway", "default/mygateway-2"}},
		{policy.KindHTTPRoute, "default/toystor", []string{"default/toystore"}},
		{policy.KindRateLimitPolicy, "default/p", []string{}},
	}
	for _, tc := range tests {
		if got := policyapi.Candidates(set, tc.kind, tc.name); !cmp.Equal(got, tc.want) {
			t.Errorf("Candidates(%s, %s) = %q, want %q", tc.kind, tc.name, got, tc.want)
		}
	}
}

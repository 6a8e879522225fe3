package kuadrant

import (
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/policy"
)

// authTopology is one Gateway with routes cart and catalog under it.
const authTopology = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: gw}
spec:
  gatewayClassName: istio
  listeners:
  - {name: http, port: 80, protocol: HTTP, hostname: "*.shop.example", allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: gw}
spec:
  parentRefs: [{name: edge}]
  hostnames: [cart.shop.example]
  rules: [{matches: [{path: {type: PathPrefix, value: /cart}}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: catalog, namespace: gw}
spec:
  parentRefs: [{name: edge}]
  hostnames: [catalog.shop.example]
  rules: [{matches: [{path: {type: PathPrefix, value: /}}]}]
`

// authPolicyYAML returns an AuthPolicy in namespace gw with the given target and body.
func authPolicyYAML(name, target, body string) string {
	return "---\napiVersion: kuadrant.io/v1\nkind: AuthPolicy\nmetadata: {name: " + name + ", namespace: gw}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, " + target + "}\n" + body
}

const keyRules = "  rules: {authentication: {keys: {apiKey: {selector: {}}}}}\n"

// TestAuthStatuses: the Accepted and Enforced conditions of AuthPolicies as the operator
// writes them, once Authorino and the AuthConfigs are ready.
func TestAuthStatuses(t *testing.T) {
	tests := []struct {
		name     string
		policies string
		policy   string
		want     []string // reason: message of Accepted, then Enforced
		warning  string   // a substring of the policy's warning, "" for none
	}{
		{
			name:     "enforced",
			policies: authPolicyYAML("cart-auth", "kind: HTTPRoute, name: cart", keyRules),
			policy:   "gw/cart-auth",
			want:     []string{"Accepted: AuthPolicy has been accepted", "Enforced: AuthPolicy has been successfully enforced"},
		},
		{
			name:     "target not found, with the likely name",
			policies: authPolicyYAML("cart-auth", "kind: HTTPRoute, name: crat", keyRules),
			policy:   "gw/cart-auth",
			want:     []string{"TargetNotFound: AuthPolicy target crat was not found"},
			warning:  "(did you mean cart?); HTTPRoutes in namespace gw: cart, catalog",
		},
		{
			name:     "section not found",
			policies: authPolicyYAML("edge-auth", "kind: Gateway, name: edge, sectionName: https", keyRules),
			policy:   "gw/edge-auth",
			want:     []string{"TargetNotFound: AuthPolicy target edge#https was not found"},
			warning:  "listeners of Gateway gw/edge: http",
		},
		{
			name:     "no rules is invalid",
			policies: authPolicyYAML("cart-auth", "kind: HTTPRoute, name: cart", "  when: [{predicate: \"request.method == 'GET'\"}]\n"),
			policy:   "gw/cart-auth",
			want:     []string{"Invalid: AuthPolicy is invalid: spec.rules: Required value: at least one rule: an authentication, metadata, authorization, response or callbacks entry"},
		},
		{
			name: "atomic overrides of the Gateway replace the route's",
			policies: authPolicyYAML("edge-auth", "kind: Gateway, name: edge", "  overrides:\n    rules: {authorization: {deny: {opa: {rego: 'allow = false'}}}}\n") +
				authPolicyYAML("cart-auth", "kind: HTTPRoute, name: cart", keyRules),
			policy: "gw/cart-auth",
			want:   []string{"Accepted: AuthPolicy has been accepted", "Overridden: AuthPolicy is overridden by [gw/edge-auth]"},
		},
		{
			name: "Gateway defaults replaced on one route are partially enforced",
			policies: authPolicyYAML("edge-auth", "kind: Gateway, name: edge", "  defaults:\n    rules: {authorization: {deny: {opa: {rego: 'allow = false'}}}}\n") +
				authPolicyYAML("cart-auth", "kind: HTTPRoute, name: cart", keyRules),
			policy: "gw/edge-auth",
			want:   []string{"Accepted: AuthPolicy has been accepted", "Enforced: AuthPolicy has been partially enforced"},
		},
		{
			name:     "a when failing the operator's check",
			policies: authPolicyYAML("cart-auth", "kind: HTTPRoute, name: cart", keyRules+"  when: [{predicate: \"requst.method == 'GET'\"}]\n"),
			policy:   "gw/cart-auth",
			want:     []string{"Accepted: AuthPolicy has been accepted", "InvalidCelExpression: validation issues: [ERROR: <input>:1:1: undeclared reference to 'requst' (in container '')\n | requst.method == 'GET'\n | ^]"},
			warning:  "(failing on route gw/cart, a predicate of gw/cart-auth)",
		},
		{
			name:     "on a Gateway without routes",
			policies: strings.Replace(authPolicyYAML("edge-auth", "kind: Gateway, name: other", keyRules), "---\n", "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: other, namespace: gw}\nspec: {gatewayClassName: istio, listeners: [{name: http, port: 80, protocol: HTTP}]}\n---\n", 1),
			policy:   "gw/edge-auth",
			want:     []string{"Accepted: AuthPolicy has been accepted", "Unknown: AuthPolicy is not in the path to any existing routes"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, _ := policy.Decode("in.yaml", []byte(authTopology+tc.policies))
			res := Compile(set, Options{})
			var got []string
			for _, st := range res.AuthPolicies {
				if st.Name != tc.policy {
					continue
				}
				if st.Kind != policy.KindAuthPolicy {
					t.Errorf("Kind = %q, want %q", st.Kind, policy.KindAuthPolicy)
				}
				for _, c := range st.Conditions {
					got = append(got, c.Reason+": "+c.Message)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("conditions of %s = %q, want %q", tc.policy, got, tc.want)
			}
			var warned string
			for _, w := range (&Compiled{Result: res, set: set}).Warnings() {
				if w.Object == "AuthPolicy "+tc.policy {
					warned += w.Message
				}
			}
			if tc.warning != "" && !strings.Contains(warned, tc.warning) {
				t.Errorf("warnings of %s = %q, want one holding %q", tc.policy, warned, tc.warning)
			}
		})
	}
}

// TestAuthDeclaredOnlyByAcceptedPolicies: auth.* is declared on a path only where an
// accepted AuthPolicy is on it; an invalid one, or one whose target is not found, leaves
// a limit reading auth.* InvalidCelExpression, and the path gets no auth action.
func TestAuthDeclaredOnlyByAcceptedPolicies(t *testing.T) {
	rlp := "---\napiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {name: cart-rlp, namespace: gw}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}\n  limits:\n    members:\n      rates: [{limit: 5, window: 1m}]\n      when: [{predicate: \"auth.identity.tier == 'member'\"}]\n"
	for _, tc := range []struct {
		name, auth string
		want       string
	}{
		{"accepted", authPolicyYAML("cart-auth", "kind: HTTPRoute, name: cart", keyRules), ReasonEnforced},
		{"invalid", authPolicyYAML("cart-auth", "kind: HTTPRoute, name: cart", "  rules: {}\n"), ReasonInvalidCelExpression},
		{"target not found", authPolicyYAML("cart-auth", "kind: HTTPRoute, name: carts", keyRules), ReasonInvalidCelExpression},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, _ := policy.Decode("in.yaml", []byte(authTopology+tc.auth+rlp))
			res := Compile(set, Options{})
			if reason, _ := enforced(t, res, "gw/cart-rlp"); reason != tc.want {
				t.Errorf("RateLimitPolicy Enforced reason = %s, want %s", reason, tc.want)
			}
			authCalls := 0
			for _, as := range res.Gateways[0].Wasm.ActionSets {
				for _, a := range as.Actions {
					if a.Service == AuthServiceName {
						authCalls++
					}
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tc.want == ReasonEnforced]; authCalls != want {
				t.Errorf("auth actions = %d, want %d", authCalls, want)
			}
		})
	}
}

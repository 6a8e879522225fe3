package policy

import (
	"strings"
	"testing"
)

// TestDecodeAuthPolicy reads AuthPolicies into Set.AuthPolicies with their attachment and
// whether they hold rules, and reports a target kind the CRD refuses.
func TestDecodeAuthPolicy(t *testing.T) {
	const in = `apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata: {name: toystore-auth, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: toystore, sectionName: api}
  rules:
    authentication:
      api-key-users:
        apiKey: {selector: {matchLabels: {app: toystore}}}
    response:
      success:
        filters:
          identity:
            json:
              properties:
                userid: {selector: auth.identity.metadata.annotations.secret\.kuadrant\.io/user-id}
---
apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata: {name: gw-auth, namespace: gw}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: prod}
  defaults:
    strategy: merge
    when: [{predicate: "request.path != '/health'"}]
    rules: {authorization: {deny-all: {opa: {rego: "allow = false"}}}}
---
apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata: {name: bad}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Service, name: x}
`
	set, err := Decode("auth.yaml", []byte(in))
	if len(set.AuthPolicies) != 3 {
		t.Fatalf("AuthPolicies = %d, want 3 (err %v)", len(set.AuthPolicies), err)
	}
	a := set.AuthPolicies[0]
	if a.Spec.TargetRef.Kind != "HTTPRoute" || a.Spec.TargetRef.SectionName == nil || *a.Spec.TargetRef.SectionName != "api" || !a.HasRules() {
		t.Errorf("toystore-auth = %+v, want an HTTPRoute rule target with rules", a.Spec)
	}
	g := set.AuthPolicies[1]
	if g.Spec.Defaults == nil || g.Spec.Defaults.Strategy != "merge" || len(g.Spec.Defaults.When) != 1 || !g.HasRules() {
		t.Errorf("gw-auth = %+v, want merge defaults with a predicate and rules", g.Spec)
	}
	if err == nil || !strings.Contains(err.Error(), `auth.yaml:32: AuthPolicy default/bad: spec.targetRef.kind: Unsupported value: "Service"`) {
		t.Errorf("err = %v, want the Service target reported at its line", err)
	}
	if len(set.Notices) != 0 {
		t.Errorf("notices = %v, want none: AuthPolicy is read", set.Notices)
	}
}

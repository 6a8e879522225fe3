package policy

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// TestAddAuthPolicies: AuthPolicies added to a Set made by NewSet are validated as Decode
// validates them; one without a name, and one given twice, are left out.
func TestAddAuthPolicies(t *testing.T) {
	target := gatewayv1.LocalPolicyTargetReferenceWithSectionName{LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{Group: gatewayv1.GroupName, Kind: "HTTPRoute", Name: "r"}}
	valid := &kuadrantv1.AuthPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "keys"}, Spec: kuadrantv1.AuthPolicySpec{TargetRef: target,
		AuthPolicySpecProper: kuadrantv1.AuthPolicySpecProper{AuthScheme: map[string]any{"authentication": map[string]any{"k": map[string]any{"anonymous": map[string]any{}}}}}}}
	noRules := &kuadrantv1.AuthPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "empty"}, Spec: kuadrantv1.AuthPolicySpec{TargetRef: target}}
	again := &kuadrantv1.AuthPolicy{ObjectMeta: valid.ObjectMeta, Spec: noRules.Spec}
	unnamed := &kuadrantv1.AuthPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}, Spec: valid.Spec}

	s := NewSet(nil, nil, nil, nil)
	s.AddAuthPolicies([]*kuadrantv1.AuthPolicy{valid, noRules, again, unnamed})
	if len(s.AuthPolicies) != 2 || s.AuthPolicies[0] != valid || s.AuthPolicies[1] != noRules {
		t.Fatalf("AuthPolicies = %v, want ns/keys and ns/empty as given", s.AuthPolicies)
	}
	if errs := s.Problems(AuthPolicyKey(valid)); len(errs) != 0 {
		t.Errorf("problems of ns/keys = %v, want none", errs)
	}
	if errs := s.Problems(AuthPolicyKey(noRules)); len(errs) == 0 {
		t.Errorf("ns/empty (no rules) has no problem, want the CRD's")
	}
}

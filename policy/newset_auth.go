package policy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// AddAuthPolicies adds kuadrant.io/v1 AuthPolicies read elsewhere than from files to a Set
// made by NewSet, each validated as Decode validates it (package kuadrantv1), so that
// package kuadrant knows on which paths auth.* is set. The policies are used as given, not
// copied; one without a name, and one already in the Set, are left out.
func (s *Set) AddAuthPolicies(policies []*kuadrantv1.AuthPolicy) {
	for _, p := range policies {
		if s.addRead(AuthPolicyKey(p), func() field.ErrorList { return kuadrantv1.ValidateAuthPolicy(p) }) {
			s.AuthPolicies = append(s.AuthPolicies, p)
		}
	}
}

package policy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// KindAuthPolicy is the kind of a kuadrant.io/v1 AuthPolicy.
const KindAuthPolicy = kuadrantv1.AuthPolicyKind

// authPolicyVersionKind is the versionedKinds key of AuthPolicy: any other apiVersion of
// the kind is reported, not skipped.
var authPolicyVersionKind = kuadrantv1.GroupVersion.String() + " " + kuadrantv1.AuthPolicyKind

// authPolicyKind reads an AuthPolicy into Set.AuthPolicies, validated by package
// kuadrantv1 as far as rate limiting reads it.
var authPolicyKind = kindInfo{kuadrantv1.GroupVersion.String(), true, kuadrantv1.Group, decoder(func(p *kuadrantv1.AuthPolicy) (func(*Set), func() field.ErrorList) {
	return func(s *Set) { s.AuthPolicies = append(s.AuthPolicies, p) }, func() field.ErrorList { return kuadrantv1.ValidateAuthPolicy(p) }
})}

// AuthPolicyKey returns the key of a kuadrant.io/v1 AuthPolicy.
func AuthPolicyKey(p *kuadrantv1.AuthPolicy) ObjectKey {
	return ObjectKey{Kind: KindAuthPolicy, Group: kuadrantv1.Group, Namespace: p.Namespace, Name: p.Name}
}

package policy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rlpkit/rlpkit/policy/kuadrantv1alpha1"
)

// KindTokenRateLimitPolicy is the kind of a kuadrant.io/v1alpha1 TokenRateLimitPolicy.
const KindTokenRateLimitPolicy = kuadrantv1alpha1.Kind

// tokenPolicyVersionKind is the versionedKinds key of TokenRateLimitPolicy: any other
// apiVersion of the kind is reported, not skipped.
var tokenPolicyVersionKind = kuadrantv1alpha1.GroupVersion.String() + " " + kuadrantv1alpha1.Kind

// tokenPolicyKind reads a TokenRateLimitPolicy into Set.TokenPolicies, validated by package
// kuadrantv1alpha1.
var tokenPolicyKind = kindInfo{kuadrantv1alpha1.GroupVersion.String(), true, kuadrantv1alpha1.Group, decoder(func(p *kuadrantv1alpha1.TokenRateLimitPolicy) (func(*Set), func() field.ErrorList) {
	return func(s *Set) { s.TokenPolicies = append(s.TokenPolicies, p) }, func() field.ErrorList { return kuadrantv1alpha1.ValidateTokenRateLimitPolicy(p) }
})}

// TokenPolicyKey returns the key of a kuadrant.io/v1alpha1 TokenRateLimitPolicy.
func TokenPolicyKey(p *kuadrantv1alpha1.TokenRateLimitPolicy) ObjectKey {
	return ObjectKey{Kind: KindTokenRateLimitPolicy, Group: kuadrantv1alpha1.Group, Namespace: p.Namespace, Name: p.Name}
}

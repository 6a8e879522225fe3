package policy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// versionedKinds are kinds read by apiVersion and kind rather than by kind alone: the
// kuadrant.io/v1 RateLimitPolicy beside the apim.kuadrant.io/v1alpha1 one. Their objects'
// keys carry the group, so that two policies of one name in the two APIs are two objects.
var versionedKinds = map[string]kindInfo{
	kuadrantv1.GroupVersion.String() + " " + kuadrantv1.Kind: {kuadrantv1.GroupVersion.String(), true, kuadrantv1.Group, decoder(func(p *kuadrantv1.RateLimitPolicy) (func(*Set), func() field.ErrorList) {
		return func(s *Set) { s.PoliciesV1 = append(s.PoliciesV1, p) }, func() field.ErrorList { return kuadrantv1.ValidateRateLimitPolicy(p) }
	})},
	tokenPolicyVersionKind: tokenPolicyKind,
	authPolicyVersionKind:  authPolicyKind,
}

// PolicyV1Key returns the key of a kuadrant.io/v1 RateLimitPolicy.
func PolicyV1Key(p *kuadrantv1.RateLimitPolicy) ObjectKey {
	return ObjectKey{Kind: KindRateLimitPolicy, Group: kuadrantv1.Group, Namespace: p.Namespace, Name: p.Name}
}

package policy

import (
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rlpkit/rlpkit/policy/egv1alpha1"
)

// KindBackendTrafficPolicy is the kind of Envoy Gateway's BackendTrafficPolicy.
const KindBackendTrafficPolicy = egv1alpha1.Kind

func init() {
	versionedKinds[egv1alpha1.GroupVersion.String()+" "+egv1alpha1.Kind] = kindInfo{egv1alpha1.GroupVersion.String(), true, egv1alpha1.Group,
		decoder(func(p *egv1alpha1.BackendTrafficPolicy) (func(*Set), func() field.ErrorList) {
			return func(s *Set) { s.BackendTrafficPolicies = append(s.BackendTrafficPolicies, p) },
				func() field.ErrorList { return egv1alpha1.ValidateBackendTrafficPolicy(p) }
		})}
	for t, fields := range map[reflect.Type][]requiredField{
		reflect.TypeFor[egv1alpha1.GlobalRateLimit](): {{"rules", "the rules of the global rate limit"}},
		reflect.TypeFor[egv1alpha1.RateLimitRule]():   {{"limit", "the rule's limit: requests per unit"}},
		reflect.TypeFor[egv1alpha1.RateLimitValue](): {
			{"requests", "how many requests the unit admits; 0 admits none"},
			{"unit", "the limit's unit: Second, Minute, Hour, Day, Week, Month or Year"},
		},
		reflect.TypeFor[egv1alpha1.RateLimitCostSpecifier](): {{"from", "where the cost comes from: Number or Metadata"}},
		reflect.TypeFor[egv1alpha1.RateLimitCostMetadata](): {
			{"namespace", "the dynamic metadata namespace"}, {"key", "the key in that namespace"},
		},
		reflect.TypeFor[egv1alpha1.MethodMatch](): {{"value", "the HTTP method"}},
		reflect.TypeFor[egv1alpha1.SourceMatch](): {{"value", "the CIDR of the client addresses"}},
	} {
		requiredFields[t] = fields
	}
}

// BackendTrafficPolicyKey returns the key of an Envoy Gateway BackendTrafficPolicy.
func BackendTrafficPolicyKey(p *egv1alpha1.BackendTrafficPolicy) ObjectKey {
	return ObjectKey{Kind: KindBackendTrafficPolicy, Group: egv1alpha1.Group, Namespace: p.Namespace, Name: p.Name}
}

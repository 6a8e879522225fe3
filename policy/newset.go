package policy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1alpha1"
)

// NewSet returns a Set of objects read elsewhere than from files (a controller's informer
// caches), each validated on its own as Decode validates it, so that merging reports a
// RateLimitPolicy that fails validation as Invalid and leaves out a Gateway or HTTPRoute
// that fails it. The objects are used as given, not copied. Their Source is the zero
// Source: they were not read from a file. Objects without a name, and an object given
// twice, are left out (an API server holds neither).
func NewSet(gateways []*gatewayv1.Gateway, routes []*gatewayv1.HTTPRoute, policies []*RateLimitPolicy, namespaces []*Namespace) *Set {
	s := &Set{
		sources:  map[ObjectKey]Source{},
		problems: map[ObjectKey]field.ErrorList{},
	}
	for _, gw := range gateways {
		if s.addRead(ObjectKey{Kind: KindGateway, Namespace: gw.Namespace, Name: gw.Name}, func() field.ErrorList { return ValidateGateway(gw) }) {
			s.Gateways = append(s.Gateways, gw)
		}
	}
	for _, r := range routes {
		if s.addRead(ObjectKey{Kind: KindHTTPRoute, Namespace: r.Namespace, Name: r.Name}, func() field.ErrorList { return ValidateHTTPRoute(r) }) {
			s.HTTPRoutes = append(s.HTTPRoutes, r)
		}
	}
	for _, p := range policies {
		if s.addRead(PolicyKey(p), func() field.ErrorList { return ValidateRateLimitPolicy(p) }) {
			s.Policies = append(s.Policies, p)
		}
	}
	for _, ns := range namespaces {
		if s.addRead(ObjectKey{Kind: KindNamespace, Name: ns.Name}, func() field.ErrorList { return ValidateNamespace(ns) }) {
			s.Namespaces = append(s.Namespaces, ns)
		}
	}
	return s
}

// AddPolicies adds apim.kuadrant.io/v1alpha1 RateLimitPolicies read elsewhere than from
// files to a Set made by NewSet, as NewSet adds them. The policies are used as given, not
// copied; one without a name, and one already in the Set, are left out.
func (s *Set) AddPolicies(policies []*RateLimitPolicy) {
	for _, p := range policies {
		if s.addRead(PolicyKey(p), func() field.ErrorList { return ValidateRateLimitPolicy(p) }) {
			s.Policies = append(s.Policies, p)
		}
	}
}

// AddPoliciesV1 adds kuadrant.io/v1 RateLimitPolicies read elsewhere than from files to a
// Set made by NewSet, each validated as Decode validates it (package kuadrantv1), so that
// package kuadrant reports an invalid one. The policies are used as given, not copied; one
// without a name, and one already in the Set, are left out.
func (s *Set) AddPoliciesV1(policies []*kuadrantv1.RateLimitPolicy) {
	for _, p := range policies {
		if s.addRead(PolicyV1Key(p), func() field.ErrorList { return kuadrantv1.ValidateRateLimitPolicy(p) }) {
			s.PoliciesV1 = append(s.PoliciesV1, p)
		}
	}
}

// AddTokenPolicies adds kuadrant.io/v1alpha1 TokenRateLimitPolicies read elsewhere than
// from files to a Set made by NewSet, each validated as Decode validates it (package
// kuadrantv1alpha1), so that package kuadrant reports an invalid one. The policies are used
// as given, not copied; one without a name, and one already in the Set, are left out.
func (s *Set) AddTokenPolicies(policies []*kuadrantv1alpha1.TokenRateLimitPolicy) {
	for _, p := range policies {
		if s.addRead(TokenPolicyKey(p), func() field.ErrorList { return kuadrantv1alpha1.ValidateTokenRateLimitPolicy(p) }) {
			s.TokenPolicies = append(s.TokenPolicies, p)
		}
	}
}

// addRead records an object read elsewhere than from a file under key, with the problems
// validate finds, and says whether it is new: an object without a name, or already in the
// Set, is not.
func (s *Set) addRead(key ObjectKey, validate func() field.ErrorList) bool {
	if _, dup := s.sources[key]; dup || key.Name == "" {
		return false
	}
	s.sources[key] = Source{}
	if errs := validate(); len(errs) > 0 {
		s.problems[key] = errs
	}
	return true
}

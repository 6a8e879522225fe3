package policy

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// AddGRPCRoutes adds GRPCRoutes read elsewhere than from files to a Set made by NewSet,
// each validated as Decode validates it (ValidateGRPCRoute). The routes are used as given,
// not copied; one without a name, and one already in the Set, are left out.
func (s *Set) AddGRPCRoutes(routes []*gatewayv1.GRPCRoute) {
	for _, r := range routes {
		key := ObjectKey{Kind: KindGRPCRoute, Namespace: r.Namespace, Name: r.Name}
		if _, dup := s.sources[key]; dup || key.Name == "" {
			continue
		}
		s.sources[key] = Source{}
		if errs := ValidateGRPCRoute(r); len(errs) > 0 {
			s.problems[key] = errs
		}
		s.GRPCRoutes = append(s.GRPCRoutes, r)
	}
}

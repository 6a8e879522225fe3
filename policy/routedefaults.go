package policy

import (
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// defaultHTTPRouteRules gives an HTTPRoute without rules the one rule its CRD defaults
// spec.rules to, matching every path (PathPrefix "/"), as the API server stores it: the
// route read from a file is then the route a controller sees in a cluster.
func defaultHTTPRouteRules(r *gatewayv1.HTTPRoute) {
	if r.Spec.Rules != nil {
		return
	}
	r.Spec.Rules = []gatewayv1.HTTPRouteRule{{Matches: []gatewayv1.HTTPRouteMatch{{
		Path: &gatewayv1.HTTPPathMatch{Type: ptr.To(gatewayv1.PathMatchPathPrefix), Value: ptr.To("/")},
	}}}}
}

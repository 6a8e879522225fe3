package kuadrant

import (
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
)

// grpcMatches returns the matches of a GRPCRoute rule as kuadrant-operator writes them: a
// rule without matches matches every call (no predicate); each match gives its method's
// predicate on request.url_path (a gRPC call is an HTTP/2 POST to /<service>/<method>),
// then one per header. Each is sorted among the Gateway's action sets as the HTTP/2 path
// its method stands for (grpcSortPath).
func grpcMatches(ms []gatewayv1.GRPCRouteMatch) []match {
	if len(ms) == 0 {
		ms = []gatewayv1.GRPCRouteMatch{{}}
	}
	out := make([]match, 0, len(ms))
	for _, m := range ms {
		var preds []string
		if p := grpcMethodPredicate(m.Method); p != "" {
			preds = append(preds, p)
		}
		for _, h := range m.Headers {
			regex := h.Type != nil && *h.Type == gatewayv1.GRPCHeaderMatchRegularExpression
			preds = append(preds, headerPredicate(string(h.Name), h.Value, regex))
		}
		pt, pv := grpcSortPath(m.Method)
		out = append(out, match{pathType: pt, path: pv, headers: len(m.Headers), predicates: preds})
	}
	return out
}

// grpcMethodPredicate returns the predicate of a method match, "" when it names neither a
// service nor a method. Exact (the default): service and method, the path itself; service
// alone, the paths under "/<service>/"; method alone, any service's. RegularExpression:
// the expressions anchored in the path, an absent one matching any service or method.
func grpcMethodPredicate(mm *gatewayv1.GRPCMethodMatch) string {
	if mm == nil {
		return ""
	}
	svc, method := ptr.Deref(mm.Service, ""), ptr.Deref(mm.Method, "")
	regex := ptr.Deref(mm.Type, gatewayv1.GRPCMethodMatchExact) == gatewayv1.GRPCMethodMatchRegularExpression
	switch {
	case svc == "" && method == "":
		return ""
	case svc == "":
		return "request.url_path.matches(" + quote("^/[^/]+/"+method+"$") + ")"
	case regex && method != "":
		return "request.url_path.matches(" + quote("^/"+svc+"/"+method+"$") + ")"
	case regex:
		return "request.url_path.matches(" + quote("^/"+svc+"/.*$") + ")"
	case method != "":
		return "request.url_path == " + quote("/"+svc+"/"+method)
	}
	return "request.url_path.startsWith(" + quote("/"+svc+"/") + ")"
}

// grpcSortPath returns the HTTP/2 path match a method match stands for when the operator
// sorts action sets: Exact service and method, Exact "/svc/method"; Exact service or method
// alone, PathPrefix "/svc" or "/method"; RegularExpression, "^/svc/method$", "^/svc" or
// "^/method"; no method match, none ("", sorted after every path).
func grpcSortPath(mm *gatewayv1.GRPCMethodMatch) (gatewayv1.PathMatchType, string) {
	if mm == nil {
		return "", ""
	}
	svc, method := ptr.Deref(mm.Service, ""), ptr.Deref(mm.Method, "")
	if ptr.Deref(mm.Type, gatewayv1.GRPCMethodMatchExact) == gatewayv1.GRPCMethodMatchRegularExpression {
		switch {
		case svc != "" && method != "":
			return gatewayv1.PathMatchRegularExpression, "^/" + svc + "/" + method + "$"
		case svc != "":
			return gatewayv1.PathMatchRegularExpression, "^/" + svc
		case method != "":
			return gatewayv1.PathMatchRegularExpression, "^/" + method
		}
		return "", ""
	}
	switch {
	case svc != "" && method != "":
		return gatewayv1.PathMatchExact, "/" + svc + "/" + method
	case svc != "":
		return gatewayv1.PathMatchPathPrefix, "/" + svc
	case method != "":
		return gatewayv1.PathMatchPathPrefix, "/" + method
	}
	return "", ""
}

// grpcRouteIndex returns the GRPCRoutes of a set by namespace/name.
func grpcRouteIndex(set *policy.Set) map[string]*gatewayv1.GRPCRoute {
	out := make(map[string]*gatewayv1.GRPCRoute, len(set.GRPCRoutes))
	for _, r := range set.GRPCRoutes {
		out[r.Namespace+"/"+r.Name] = r
	}
	return out
}

// foundGRPC reports whether GRPCRoute key is among the inputs and, when section is set,
// has a rule of that name.
func (t targets) foundGRPC(key string, section *gatewayv1.SectionName) bool {
	r, ok := t.grpcRoutes[key]
	if !ok || section == nil {
		return ok
	}
	for i := range r.Spec.Rules {
		if GRPCRuleName(r, i) == string(*section) {
			return true
		}
	}
	return false
}

// grpcHint returns, for a GRPCRoute target name ("ns/name") not found, the GRPCRoutes of
// namespace ns and, when the route is there, its rules' names and "rules of GRPCRoute
// ns/name".
func grpcHint(set *policy.Set, ns, name string) (names, sections []string, owner string) {
	for _, r := range set.GRPCRoutes {
		if r.Namespace == ns {
			names = append(names, r.Name)
		}
		if r.Namespace+"/"+r.Name == name {
			owner = "rules of GRPCRoute " + name
			for i := range r.Spec.Rules {
				sections = append(sections, GRPCRuleName(r, i))
			}
		}
	}
	return names, sections, owner
}

// otherRouteKind says, for a route target ("ns/name") of kind not found, that a route of
// the other kind has that name: "; HTTPRoute ns/name is there (kind HTTPRoute?)".
func otherRouteKind(set *policy.Set, kind, name string) string {
	other := ""
	switch kind {
	case policy.KindHTTPRoute:
		if _, ok := grpcRouteIndex(set)[name]; ok {
			other = policy.KindGRPCRoute
		}
	case policy.KindGRPCRoute:
		for _, r := range set.HTTPRoutes {
			if r.Namespace+"/"+r.Name == name {
				other = policy.KindHTTPRoute
			}
		}
	}
	if other == "" {
		return ""
	}
	return "; " + other + " " + name + " is there (kind " + other + "?)"
}

package envoygateway

import (
	"regexp"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/topology"
)

// xroute is a route of an HTTP kind as the model reads it: an HTTPRoute or a GRPCRoute.
// It is a metav1.Object, for ordering and targetSelectors.
type xroute struct {
	metav1.Object
	// kind is policy.KindHTTPRoute or policy.KindGRPCRoute.
	kind       string
	parentRefs []gatewayv1.ParentReference
	hostnames  []string
	// ruleNames are the rules' names, "" for a rule without one.
	ruleNames []string
	http      *gatewayv1.HTTPRoute
	grpc      *gatewayv1.GRPCRoute
}

func httpXRoute(r *gatewayv1.HTTPRoute) *xroute {
	x := &xroute{Object: r, kind: policy.KindHTTPRoute, parentRefs: r.Spec.ParentRefs, hostnames: topology.RouteHostnames(r), http: r}
	for _, rule := range r.Spec.Rules {
		x.ruleNames = append(x.ruleNames, sectionName(rule.Name))
	}
	return x
}

func grpcXRoute(r *gatewayv1.GRPCRoute) *xroute {
	x := &xroute{Object: r, kind: policy.KindGRPCRoute, parentRefs: r.Spec.ParentRefs, grpc: r}
	for _, h := range r.Spec.Hostnames {
		x.hostnames = append(x.hostnames, string(h))
	}
	for _, rule := range r.Spec.Rules {
		x.ruleNames = append(x.ruleNames, sectionName(rule.Name))
	}
	return x
}

func sectionName(n *gatewayv1.SectionName) string {
	if n == nil {
		return ""
	}
	return string(*n)
}

// key is the route's "namespace/name".
func (x *xroute) key() string { return x.GetNamespace() + "/" + x.GetName() }

// prefix is the beginning of the names of the route's xDS routes: "httproute/<ns>/<name>/"
// or "grpcroute/<ns>/<name>/".
func (x *xroute) prefix() string { return strings.ToLower(x.kind) + "/" + x.key() + "/" }

// parentGateway returns the Gateway a parentRef of x names; its namespace defaults to the
// route's.
func (x *xroute) parentGateway(ref gatewayv1.ParentReference) topology.Key {
	k := topology.Key{Namespace: x.GetNamespace(), Name: string(ref.Name)}
	if ref.Namespace != nil && *ref.Namespace != "" {
		k.Namespace = string(*ref.Namespace)
	}
	return k
}

// admitKind reports whether listener l of gw takes x whatever their hostnames: its
// protocol, allowedRoutes namespaces and kinds.
func (x *xroute) admitKind(t *topology.Topology, gw *gatewayv1.Gateway, l gatewayv1.Listener) bool {
	if x.http != nil {
		return t.AdmitKind(gw, l, x.http) == nil
	}
	_, rf := t.AdmitGRPC(gw, l, x.grpc)
	return rf == nil || rf.Hostnames
}

// xdsRoutes returns the xDS routes of x for one hostname: one per match of each rule. An
// HTTPRoute's rule without matches is match 0 (the CRD's default match); a GRPCRoute's is
// match -1, as Envoy Gateway names it.
func (x *xroute) xdsRoutes(host string, l *Listener) []*Route {
	var out []*Route
	add := func(ri, mi int) *Route {
		rt := &Route{
			Name: x.prefix() + "rule/" + strconv.Itoa(ri) + "/match/" + strconv.Itoa(mi) + "/" + strings.ReplaceAll(host, ".", "_"),
			Kind: x.kind, Rule: ri, RuleName: x.ruleNames[ri], Match: mi, Hostname: host, listener: l,
		}
		if x.http != nil {
			rt.HTTPRoute = x.key()
		} else {
			rt.GRPCRoute = x.key()
		}
		out = append(out, rt)
		return rt
	}
	if x.http != nil {
		for ri, rule := range x.http.Spec.Rules {
			matches := rule.Matches
			if len(matches) == 0 {
				matches = []gatewayv1.HTTPRouteMatch{{}}
			}
			for mi, match := range matches {
				add(ri, mi).setMatch(match)
			}
		}
		return out
	}
	for ri, rule := range x.grpc.Spec.Rules {
		if !grpcHeadersCompile(rule) {
			continue // Envoy Gateway does not accept the rule: it has no xDS route
		}
		if len(rule.Matches) == 0 {
			add(ri, -1).setGRPCMatch(gatewayv1.GRPCRouteMatch{})
		}
		for mi, match := range rule.Matches {
			add(ri, mi).setGRPCMatch(match)
		}
	}
	return out
}

// grpcHeadersCompile reports whether every RegularExpression header match of a GRPCRoute
// rule compiles; Envoy Gateway rejects a rule where one does not.
func grpcHeadersCompile(rule gatewayv1.GRPCRouteRule) bool {
	for _, m := range rule.Matches {
		for _, h := range m.Headers {
			if h.Type != nil && *h.Type == gatewayv1.GRPCHeaderMatchRegularExpression {
				if _, err := regexp.Compile(h.Value); err != nil {
					return false
				}
			}
		}
	}
	return true
}

// The regular expressions Envoy Gateway puts for a GRPCRoute method match of type
// RegularExpression that leaves the service or the method out.
const (
	grpcServiceRE = `(?i)\.?[a-z_][a-z_0-9]*(\.[a-z_][a-z_0-9]*)*`
	grpcMethodRE  = `[A-Za-z_][A-Za-z_0-9]*`
)

// setGRPCMatch sets the route's match from a GRPCRouteMatch as Envoy Gateway translates
// it (a gRPC call's path is /<service>/<method>): an Exact service and method is the exact
// path, a service alone the path prefix /<service>, a method alone a ":path" header ending
// in /<method>; a RegularExpression match is a regular expression over the path, the
// part left out matching any valid name. Header matches come first, in order; without a
// method the path is any ("/").
func (rt *Route) setGRPCMatch(m gatewayv1.GRPCRouteMatch) {
	root := "/"
	rt.Path = StringMatch{Prefix: &root}
	for _, h := range m.Headers {
		v := h.Value
		sm := StringMatch{Name: string(h.Name), Exact: &v}
		if h.Type != nil && *h.Type == gatewayv1.GRPCHeaderMatchRegularExpression {
			sm.Exact, sm.Regex = nil, &v
			sm.compile()
		}
		rt.Headers = append(rt.Headers, sm)
	}
	mm := m.Method
	if mm == nil || mm.Service == nil && mm.Method == nil {
		return
	}
	if mm.Type != nil && *mm.Type == gatewayv1.GRPCMethodMatchRegularExpression {
		svc, method := grpcServiceRE, grpcMethodRE
		if mm.Service != nil {
			svc = *mm.Service
		}
		if mm.Method != nil {
			method = *mm.Method
		}
		re := "/" + svc + "/" + method
		rt.Path = StringMatch{Regex: &re}
		rt.Path.compile()
		return
	}
	switch {
	case mm.Service != nil && mm.Method != nil:
		p := "/" + *mm.Service + "/" + *mm.Method
		rt.Path = StringMatch{Exact: &p}
	case mm.Method != nil:
		s := "/" + *mm.Method
		rt.Headers = append(rt.Headers, StringMatch{Name: ":path", Suffix: &s})
	default:
		p := "/" + *mm.Service
		rt.Path = StringMatch{Prefix: &p}
	}
}

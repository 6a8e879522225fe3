package kuadrant

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/topology"
)

// Path is one way a request reaches a route rule: GatewayClass -> Gateway -> Listener ->
// HTTPRoute or GRPCRoute -> rule.
type Path struct {
	// ID is "gwclass|ns/gw|ns/gw#listener|ns/route|ns/route#rule", as kuadrant-operator
	// names paths (a GRPCRoute's path reads the same).
	ID string
	// Gateway, Listener, Route and Rule are the objects on the path; Rule indexes the
	// route's rules. Route is the HTTPRoute, nil on a GRPCRoute's path.
	Gateway  *gatewayv1.Gateway
	Listener *gatewayv1.Listener
	Route    *gatewayv1.HTTPRoute
	Rule     int
	// GRPCRoute is the GRPCRoute on the path, nil on an HTTPRoute's path.
	GRPCRoute *gatewayv1.GRPCRoute
	// RuleName is the rule's name, or rule-N (N counting from 1) for an unnamed rule.
	RuleName string
	// Hostnames are the route's hostnames that fall inside the listener's hostname (a route
	// hostname broader than the listener's is dropped), or the listener's hostname ("*"
	// when it has none) for a route without hostnames. A path without hostnames is not
	// valid: no request takes it.
	Hostnames []string
}

// RouteKind returns the kind of the path's route: HTTPRoute or GRPCRoute.
func (p *Path) RouteKind() string {
	if p.GRPCRoute != nil {
		return policy.KindGRPCRoute
	}
	return policy.KindHTTPRoute
}

// RouteMeta returns the metadata of the path's route, whichever its kind.
func (p *Path) RouteMeta() *metav1.ObjectMeta {
	if p.GRPCRoute != nil {
		return &p.GRPCRoute.ObjectMeta
	}
	return &p.Route.ObjectMeta
}

// RouteKey returns "namespace/name" of the path's route: the scope of its rate-limit
// action and the namespace of its Limitador limits, whichever its kind.
func (p *Path) RouteKey() string {
	m := p.RouteMeta()
	return m.Namespace + "/" + m.Name
}

// isRoute reports whether the path's route is the route kind namespace/name.
func (p *Path) isRoute(kind, ns, name string) bool {
	m := p.RouteMeta()
	return kind == p.RouteKind() && ns == m.Namespace && name == m.Name
}

// RuleName returns the name of rule i of a route: its name, or rule-N.
func RuleName(r *gatewayv1.HTTPRoute, i int) string {
	return sectionName(r.Spec.Rules[i].Name, i)
}

// GRPCRuleName returns the name of rule i of a GRPCRoute: its name, or rule-N, as
// policy-machinery names the rules of both kinds.
func GRPCRuleName(r *gatewayv1.GRPCRoute, i int) string {
	return sectionName(r.Spec.Rules[i].Name, i)
}

func sectionName(n *gatewayv1.SectionName, i int) string {
	if n != nil && *n != "" {
		return string(*n)
	}
	return fmt.Sprintf("rule-%d", i+1)
}

// pathRoute is what Paths reads of a route of either kind.
type pathRoute struct {
	meta      *metav1.ObjectMeta
	parents   []gatewayv1.ParentReference
	hostnames []gatewayv1.Hostname
	rules     []string // the rules' section names
	http      *gatewayv1.HTTPRoute
	grpc      *gatewayv1.GRPCRoute
}

// pathRoutes returns the HTTPRoutes of set, then its GRPCRoutes (the operator's order of
// route rules), each kind by namespace/name.
func pathRoutes(set *policy.Set) []pathRoute {
	var out []pathRoute
	for _, r := range set.HTTPRoutes {
		pr := pathRoute{meta: &r.ObjectMeta, parents: r.Spec.ParentRefs, hostnames: r.Spec.Hostnames, http: r}
		for i := range r.Spec.Rules {
			pr.rules = append(pr.rules, RuleName(r, i))
		}
		out = append(out, pr)
	}
	for _, r := range set.GRPCRoutes {
		pr := pathRoute{meta: &r.ObjectMeta, parents: r.Spec.ParentRefs, hostnames: r.Spec.Hostnames, grpc: r}
		for i := range r.Spec.Rules {
			pr.rules = append(pr.rules, GRPCRuleName(r, i))
		}
		out = append(out, pr)
	}
	slices.SortStableFunc(out, func(a, b pathRoute) int {
		return cmp.Or(boolFirst(a.http != nil, b.http != nil), cmp.Compare(a.meta.Namespace, b.meta.Namespace), cmp.Compare(a.meta.Name, b.meta.Name))
	})
	return out
}

// Paths returns every path of the Gateways, HTTPRoutes and GRPCRoutes of set, ordered by
// Gateway (namespace/name), listener (as written), route (HTTPRoutes, then GRPCRoutes,
// each by namespace/name) and rule, including paths without hostnames.
func Paths(set *policy.Set) []Path {
	gws := slices.Clone(set.Gateways)
	slices.SortFunc(gws, func(a, b *gatewayv1.Gateway) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	routes := pathRoutes(set)
	byGateway := map[string][]int{} // routes by the Gateways they name
	for i, r := range routes {
		var named []string
		for _, ref := range r.parents {
			if k := parentGateway(r.meta.Namespace, ref).String(); !slices.Contains(named, k) {
				named = append(named, k)
				byGateway[k] = append(byGateway[k], i)
			}
		}
	}
	var out []Path
	for _, gw := range gws {
		gwID := gw.Namespace + "/" + gw.Name
		for li := range gw.Spec.Listeners {
			l := &gw.Spec.Listeners[li]
			for _, ri := range byGateway[gwID] {
				r := &routes[ri]
				if !attaches(r, gw, l) {
					continue
				}
				hosts := pathHostnames(l, r.hostnames)
				rID := r.meta.Namespace + "/" + r.meta.Name
				for rule, name := range r.rules {
					out = append(out, Path{
						ID:      strings.Join([]string{string(gw.Spec.GatewayClassName), gwID, gwID + "#" + string(l.Name), rID, rID + "#" + name}, "|"),
						Gateway: gw, Listener: l, Route: r.http, GRPCRoute: r.grpc, Rule: rule, RuleName: name, Hostnames: hosts,
					})
				}
			}
		}
	}
	return out
}

// parentGateway returns the Gateway a parentRef of a route in namespace ns names; its
// namespace defaults to the route's.
func parentGateway(ns string, ref gatewayv1.ParentReference) topology.Key {
	k := topology.Key{Namespace: ns, Name: string(ref.Name)}
	if ref.Namespace != nil && *ref.Namespace != "" {
		k.Namespace = string(*ref.Namespace)
	}
	return k
}

// attaches reports whether a parentRef of r names gw and selects listener l (its
// sectionName and port, when set, are the listener's); allowedRoutes is not consulted, as
// policy-machinery links routes to listeners.
func attaches(r *pathRoute, gw *gatewayv1.Gateway, l *gatewayv1.Listener) bool {
	for _, ref := range r.parents {
		if topology.IsGatewayRef(ref) && parentGateway(r.meta.Namespace, ref) == topology.KeyOf(gw) && topology.SelectsListener(ref, *l) {
			return true
		}
	}
	return false
}

// pathHostnames returns the hostnames of a route through a listener, as kuadrant-operator
// computes them for wasm-shim: the route's hostnames inside the listener's (a broader one
// is dropped, not narrowed as Gateway API intersects them), or the listener's.
func pathHostnames(l *gatewayv1.Listener, routeHosts []gatewayv1.Hostname) []string {
	lh := topology.ListenerHostname(*l)
	if len(routeHosts) == 0 {
		if lh == "" {
			return []string{"*"}
		}
		return []string{lh}
	}
	var out []string
	for _, rh := range routeHosts {
		h := string(rh)
		if lh == "" || lh == "*" || h == lh || topology.Covers(lh, h) {
			out = append(out, h)
		}
	}
	return out
}

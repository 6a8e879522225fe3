package kuadrant

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/topology"
)

// Path is one way a request reaches a route rule: GatewayClass -> Gateway -> Listener ->
// HTTPRoute -> rule.
type Path struct {
	// ID is "gwclass|ns/gw|ns/gw#listener|ns/route|ns/route#rule", as kuadrant-operator
	// names paths.
	ID string
	// Gateway, Listener, Route and Rule are the objects on the path; Rule indexes
	// Route.Spec.Rules.
	Gateway  *gatewayv1.Gateway
	Listener *gatewayv1.Listener
	Route    *gatewayv1.HTTPRoute
	Rule     int
	// RuleName is the rule's name, or rule-N (N counting from 1) for an unnamed rule.
	RuleName string
	// Hostnames are the route's hostnames that fall inside the listener's hostname (a route
	// hostname broader than the listener's is dropped), or the listener's hostname ("*"
	// when it has none) for a route without hostnames. A path without hostnames is not
	// valid: no request takes it.
	Hostnames []string
}

// RuleName returns the name of rule i of a route: its name, or rule-N.
func RuleName(r *gatewayv1.HTTPRoute, i int) string {
	if n := r.Spec.Rules[i].Name; n != nil && *n != "" {
		return string(*n)
	}
	return fmt.Sprintf("rule-%d", i+1)
}

// Paths returns every path of the Gateways and HTTPRoutes of set, ordered by Gateway
// (namespace/name), listener (as written), route (namespace/name) and rule, including
// paths without hostnames.
func Paths(set *policy.Set) []Path {
	gws := slices.Clone(set.Gateways)
	slices.SortFunc(gws, func(a, b *gatewayv1.Gateway) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	routes := slices.Clone(set.HTTPRoutes)
	slices.SortFunc(routes, func(a, b *gatewayv1.HTTPRoute) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	byGateway := map[string][]*gatewayv1.HTTPRoute{} // routes by the Gateways they name
	for _, r := range routes {
		var named []string
		for _, ref := range r.Spec.ParentRefs {
			if k := topology.ParentGateway(r, ref).String(); !slices.Contains(named, k) {
				named = append(named, k)
				byGateway[k] = append(byGateway[k], r)
			}
		}
	}
	var out []Path
	for _, gw := range gws {
		for li := range gw.Spec.Listeners {
			l := &gw.Spec.Listeners[li]
			for _, r := range byGateway[gw.Namespace+"/"+gw.Name] {
				if !attaches(r, gw, l) {
					continue
				}
				hosts := pathHostnames(l, r)
				for ri := range r.Spec.Rules {
					name := RuleName(r, ri)
					gwID := gw.Namespace + "/" + gw.Name
					rID := r.Namespace + "/" + r.Name
					out = append(out, Path{
						ID:      strings.Join([]string{string(gw.Spec.GatewayClassName), gwID, gwID + "#" + string(l.Name), rID, rID + "#" + name}, "|"),
						Gateway: gw, Listener: l, Route: r, Rule: ri, RuleName: name, Hostnames: hosts,
					})
				}
			}
		}
	}
	return out
}

// attaches reports whether a parentRef of r names gw and selects listener l (its
// sectionName and port, when set, are the listener's); allowedRoutes is not consulted, as
// policy-machinery links routes to listeners.
func attaches(r *gatewayv1.HTTPRoute, gw *gatewayv1.Gateway, l *gatewayv1.Listener) bool {
	for _, ref := range r.Spec.ParentRefs {
		if topology.IsGatewayRef(ref) && topology.ParentGateway(r, ref) == topology.KeyOf(gw) && topology.SelectsListener(ref, *l) {
			return true
		}
	}
	return false
}

// pathHostnames returns the hostnames of a route through a listener, as kuadrant-operator
// computes them for wasm-shim: the route's hostnames inside the listener's (a broader one
// is dropped, not narrowed as Gateway API intersects them), or the listener's.
func pathHostnames(l *gatewayv1.Listener, r *gatewayv1.HTTPRoute) []string {
	lh := topology.ListenerHostname(*l)
	if len(r.Spec.Hostnames) == 0 {
		if lh == "" {
			return []string{"*"}
		}
		return []string{lh}
	}
	var out []string
	for _, h := range topology.RouteHostnames(r) {
		if lh == "" || lh == "*" || h == lh || topology.Covers(lh, h) {
			out = append(out, h)
		}
	}
	return out
}

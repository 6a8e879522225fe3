package topology

import (
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// routeInfo is what attachment reads of a route of an HTTP kind (HTTPRoute, GRPCRoute).
type routeInfo struct {
	kind       string
	namespace  string
	parentRefs []gatewayv1.ParentReference
	hostnames  []string
}

func httpRoute(r *gatewayv1.HTTPRoute) routeInfo {
	return routeInfo{"HTTPRoute", r.Namespace, r.Spec.ParentRefs, hostnames(r.Spec.Hostnames)}
}

func grpcRoute(r *gatewayv1.GRPCRoute) routeInfo {
	return routeInfo{"GRPCRoute", r.Namespace, r.Spec.ParentRefs, hostnames(r.Spec.Hostnames)}
}

// GRPCAttachment is a GRPCRoute attached to a Gateway, as Attachment is for an HTTPRoute.
type GRPCAttachment struct {
	// Gateway is the Gateway the route is attached to.
	Gateway *gatewayv1.Gateway
	// Route is the attached route.
	Route *gatewayv1.GRPCRoute
	// Listeners are the listeners that admit the route, in the Gateway's order.
	Listeners []gatewayv1.SectionName
	// Hostnames are the hostnames the route serves there, sorted.
	Hostnames []string
}

// GRPCListeners is Listeners for a GRPCRoute: HTTP and HTTPS listeners admit it unless their
// allowedRoutes.kinds leave GRPCRoute out.
func (t *Topology) GRPCListeners(route *gatewayv1.GRPCRoute) []ListenerAttachment {
	return t.listeners(grpcRoute(route))
}

// AdmitGRPC is Admit for a GRPCRoute.
func (t *Topology) AdmitGRPC(gw *gatewayv1.Gateway, l gatewayv1.Listener, route *gatewayv1.GRPCRoute) ([]string, *Refusal) {
	return t.admit(gw, l, grpcRoute(route))
}

// AttachGRPC is Attach for a GRPCRoute.
func (t *Topology) AttachGRPC(route *gatewayv1.GRPCRoute) []GRPCAttachment {
	var out []GRPCAttachment
	for _, a := range t.attach(grpcRoute(route)) {
		out = append(out, GRPCAttachment{Gateway: a.Gateway, Route: route, Listeners: a.Listeners, Hostnames: a.Hostnames})
	}
	return out
}

// attach is Attach for a route of any HTTP kind, leaving Attachment.Route nil.
func (t *Topology) attach(route routeInfo) []Attachment {
	var out []Attachment
	for _, la := range t.listeners(route) {
		i := slices.IndexFunc(out, func(a Attachment) bool { return a.Gateway == la.Gateway })
		if i < 0 {
			out = append(out, Attachment{Gateway: la.Gateway})
			i = len(out) - 1
		}
		a := &out[i]
		if name := la.Gateway.Spec.Listeners[la.Listener].Name; !slices.Contains(a.Listeners, name) {
			a.Listeners = append(a.Listeners, name)
		}
		a.Hostnames = append(a.Hostnames, la.Hostnames...)
	}
	for i := range out {
		slices.Sort(out[i].Hostnames)
		out[i].Hostnames = slices.Compact(out[i].Hostnames)
	}
	return out
}

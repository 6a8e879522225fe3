package topology

import (
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Attachment is an HTTPRoute attached to a Gateway: through which listeners, and the
// hostnames it serves there (the union of its intersections with those listeners).
type Attachment struct {
	// Gateway is the Gateway the route is attached to.
	Gateway *gatewayv1.Gateway
	// Route is the attached route.
	Route *gatewayv1.HTTPRoute
	// Listeners are the listeners that admit the route, in the Gateway's order.
	Listeners []gatewayv1.SectionName
	// Hostnames are the hostnames the route serves there, sorted.
	Hostnames []string
}

// ListenerAttachment is an HTTPRoute admitted by one listener, through one of its
// parentRefs.
type ListenerAttachment struct {
	// Gateway is the listener's Gateway.
	Gateway *gatewayv1.Gateway
	// Listener indexes Gateway.Spec.Listeners.
	Listener int
	// ParentRef indexes the route's parentRefs: the first that selects the listener.
	ParentRef int
	// Hostnames are IntersectHostnames of the listener's hostname and the route's.
	Hostnames []string
}

// Listeners returns every listener that admits route, in parentRefs order and, within a
// parentRef, in the Gateway's order; a listener selected by several parentRefs is listed
// once, for the first.
func (t *Topology) Listeners(route *gatewayv1.HTTPRoute) []ListenerAttachment {
	return t.listeners(httpRoute(route))
}

// listeners is Listeners for a route of any HTTP kind.
func (t *Topology) listeners(route routeInfo) []ListenerAttachment {
	var out []ListenerAttachment
	for i, ref := range route.parentRefs {
		if !IsGatewayRef(ref) {
			continue
		}
		gw := t.gateways[parentKey(route.namespace, ref)]
		if gw == nil {
			continue
		}
		for li, l := range gw.Spec.Listeners {
			if !SelectsListener(ref, l) || slices.ContainsFunc(out, func(a ListenerAttachment) bool { return a.Gateway == gw && a.Listener == li }) {
				continue
			}
			hosts, refusal := t.admit(gw, l, route)
			if refusal != nil {
				continue
			}
			out = append(out, ListenerAttachment{Gateway: gw, Listener: li, ParentRef: i, Hostnames: hosts})
		}
	}
	return out
}

// Attach returns the Gateways route attaches to, in parentRefs order, one Attachment per
// Gateway.
func (t *Topology) Attach(route *gatewayv1.HTTPRoute) []Attachment {
	out := t.attach(httpRoute(route))
	for i := range out {
		out[i].Route = route
	}
	return out
}

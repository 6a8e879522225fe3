package topology

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Key is a namespace/name pair.
type Key struct{ Namespace, Name string }

// String returns "namespace/name".
func (k Key) String() string { return k.Namespace + "/" + k.Name }

// KeyOf returns the Key of a Gateway.
func KeyOf(gw *gatewayv1.Gateway) Key { return Key{gw.Namespace, gw.Name} }

// IsGatewayRef reports whether a parentRef names a Gateway (group and kind default to it).
func IsGatewayRef(ref gatewayv1.ParentReference) bool {
	if ref.Group != nil && *ref.Group != gatewayv1.GroupName {
		return false
	}
	return ref.Kind == nil || *ref.Kind == "Gateway"
}

// ParentGateway returns the Gateway a parentRef of route names; its namespace defaults to
// the route's.
func ParentGateway(route *gatewayv1.HTTPRoute, ref gatewayv1.ParentReference) Key {
	return parentKey(route.Namespace, ref)
}

// parentKey returns the Gateway a parentRef of a route in namespace ns names.
func parentKey(ns string, ref gatewayv1.ParentReference) Key {
	k := Key{ns, string(ref.Name)}
	if ref.Namespace != nil && *ref.Namespace != "" {
		k.Namespace = string(*ref.Namespace)
	}
	return k
}

// SelectsListener reports whether a parentRef selects listener l: its sectionName and
// port, when set, are the listener's.
func SelectsListener(ref gatewayv1.ParentReference, l gatewayv1.Listener) bool {
	return (ref.SectionName == nil || *ref.SectionName == l.Name) && (ref.Port == nil || *ref.Port == l.Port)
}

// ListenerHostname returns a listener's hostname, "" when it has none.
func ListenerHostname(l gatewayv1.Listener) string {
	if l.Hostname == nil {
		return ""
	}
	return string(*l.Hostname)
}

// RouteHostnames returns a route's hostnames as strings.
func RouteHostnames(r *gatewayv1.HTTPRoute) []string { return hostnames(r.Spec.Hostnames) }

// hostnames returns hostnames as strings.
func hostnames(hs []gatewayv1.Hostname) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = string(h)
	}
	return out
}

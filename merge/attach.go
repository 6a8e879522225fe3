package merge

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
)

// namespaceNameLabel is the label Kubernetes puts on every Namespace with its name.
const namespaceNameLabel = "kubernetes.io/metadata.name"

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

// topology indexes the objects of a set for attachment.
type topology struct {
	gateways map[key]*gatewayv1.Gateway
	labels   map[string]labels.Set // namespace -> its labels
}

// key is a namespace/name pair.
type key struct{ ns, name string }

func (k key) String() string { return k.ns + "/" + k.name }

func newTopology(set *policy.Set) *topology {
	t := &topology{gateways: map[key]*gatewayv1.Gateway{}, labels: map[string]labels.Set{}}
	for _, gw := range set.Gateways {
		t.gateways[key{gw.Namespace, gw.Name}] = gw
	}
	for _, ns := range set.Namespaces {
		l := labels.Set{}
		for k, v := range ns.Labels {
			l[k] = v
		}
		l[namespaceNameLabel] = ns.Name
		t.labels[ns.Name] = l
	}
	return t
}

// namespaceLabels returns the labels of a namespace; one not among the inputs has only the
// label Kubernetes gives every namespace.
func (t *topology) namespaceLabels(ns string) labels.Set {
	if l, ok := t.labels[ns]; ok {
		return l
	}
	return labels.Set{namespaceNameLabel: ns}
}

// attach returns the Gateways route attaches to, in parentRefs order, one Attachment per
// Gateway.
func (t *topology) attach(route *gatewayv1.HTTPRoute) []Attachment {
	var out []Attachment
	for _, ref := range route.Spec.ParentRefs {
		if !refersToGateway(ref) {
			continue
		}
		ns := route.Namespace
		if ref.Namespace != nil && *ref.Namespace != "" {
			ns = string(*ref.Namespace)
		}
		gw, ok := t.gateways[key{ns, string(ref.Name)}]
		if !ok {
			continue
		}
		i := slices.IndexFunc(out, func(a Attachment) bool { return a.Gateway == gw })
		if i < 0 {
			out = append(out, Attachment{Gateway: gw, Route: route})
			i = len(out) - 1
		}
		a := &out[i]
		for _, l := range gw.Spec.Listeners {
			if !t.listenerAdmits(gw, l, ref, route) {
				continue
			}
			hosts := IntersectHostnames(hostnameOf(l), hostnamesOf(route))
			if len(hosts) == 0 {
				continue
			}
			if !slices.Contains(a.Listeners, l.Name) {
				a.Listeners = append(a.Listeners, l.Name)
			}
			a.Hostnames = append(a.Hostnames, hosts...)
		}
	}
	// Drop the Gateways no listener admitted the route through.
	out = slices.DeleteFunc(out, func(a Attachment) bool { return len(a.Listeners) == 0 })
	for i := range out {
		slices.Sort(out[i].Hostnames)
		out[i].Hostnames = slices.Compact(out[i].Hostnames)
	}
	return out
}

// refersToGateway reports whether a parentRef names a Gateway (group and kind default to it).
func refersToGateway(ref gatewayv1.ParentReference) bool {
	if ref.Group != nil && *ref.Group != gatewayv1.GroupName {
		return false
	}
	return ref.Kind == nil || *ref.Kind == "Gateway"
}

// listenerAdmits reports whether listener l of gw accepts route through ref: the section
// name and port select it, it speaks HTTP or HTTPS, and its allowedRoutes admit the route's
// namespace and kind.
func (t *topology) listenerAdmits(gw *gatewayv1.Gateway, l gatewayv1.Listener, ref gatewayv1.ParentReference, route *gatewayv1.HTTPRoute) bool {
	if ref.SectionName != nil && *ref.SectionName != l.Name {
		return false
	}
	if ref.Port != nil && *ref.Port != l.Port {
		return false
	}
	if l.Protocol != gatewayv1.HTTPProtocolType && l.Protocol != gatewayv1.HTTPSProtocolType {
		return false
	}
	from := gatewayv1.NamespacesFromSame
	var selector *metav1.LabelSelector
	if ar := l.AllowedRoutes; ar != nil && ar.Namespaces != nil {
		if ar.Namespaces.From != nil {
			from = *ar.Namespaces.From
		}
		selector = ar.Namespaces.Selector
	}
	switch from {
	case gatewayv1.NamespacesFromAll:
	case gatewayv1.NamespacesFromSame:
		if route.Namespace != gw.Namespace {
			return false
		}
	case gatewayv1.NamespacesFromSelector:
		sel, err := metav1.LabelSelectorAsSelector(selector)
		if selector == nil || err != nil || !sel.Matches(t.namespaceLabels(route.Namespace)) {
			return false
		}
	default:
		return false
	}
	if l.AllowedRoutes == nil || len(l.AllowedRoutes.Kinds) == 0 {
		return true // HTTP and HTTPS listeners admit HTTPRoutes by default
	}
	return slices.ContainsFunc(l.AllowedRoutes.Kinds, func(k gatewayv1.RouteGroupKind) bool {
		return (k.Group == nil || *k.Group == gatewayv1.GroupName) && k.Kind == "HTTPRoute"
	})
}

func hostnameOf(l gatewayv1.Listener) string {
	if l.Hostname == nil {
		return ""
	}
	return string(*l.Hostname)
}

func hostnamesOf(r *gatewayv1.HTTPRoute) []string {
	out := make([]string, len(r.Spec.Hostnames))
	for i, h := range r.Spec.Hostnames {
		out[i] = string(h)
	}
	return out
}

package merge

import (
	"fmt"
	"slices"
	"strings"

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
		gw, ok := t.gateways[parentGateway(route, ref)]
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
			if !selects(ref, l) {
				continue
			}
			hosts, refusal := t.admit(gw, l, route)
			if refusal != nil {
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

// parentGateway returns the Gateway a parentRef of route names; its namespace defaults to
// the route's.
func parentGateway(route *gatewayv1.HTTPRoute, ref gatewayv1.ParentReference) key {
	k := key{route.Namespace, string(ref.Name)}
	if ref.Namespace != nil && *ref.Namespace != "" {
		k.ns = string(*ref.Namespace)
	}
	return k
}

// selects reports whether a parentRef selects listener l: its sectionName and port, when
// set, are the listener's.
func selects(ref gatewayv1.ParentReference, l gatewayv1.Listener) bool {
	return (ref.SectionName == nil || *ref.SectionName == l.Name) && (ref.Port == nil || *ref.Port == l.Port)
}

// refusal is why a listener does not take a route.
type refusal struct {
	// hostnames is true when the listener would take the route but no hostname intersects.
	hostnames bool
	// msg says why, naming the listener: "listener tcp speaks TCP, not HTTP or HTTPS".
	msg string
	// hint says what to do.
	hint string
}

// What to do about a refusal.
const (
	hintProtocol  = "name an HTTP or HTTPS listener (sectionName, port)"
	hintNamespace = "admit the route's namespace in the listener's allowedRoutes.namespaces (a selector matches the labels of the Namespace given among the inputs)"
	hintKinds     = "add HTTPRoute to the listener's allowedRoutes.kinds"
	hintHostnames = "give the route a hostname the listener serves (spec.hostnames)"
)

// admit returns the hostnames route serves through listener l of gw, or why l does not take
// it: l must speak HTTP or HTTPS, its allowedRoutes must admit the route's namespace and
// kind, and its hostname must intersect the route's.
func (t *topology) admit(gw *gatewayv1.Gateway, l gatewayv1.Listener, route *gatewayv1.HTTPRoute) ([]string, *refusal) {
	refuse := func(hint, format string, a ...any) ([]string, *refusal) {
		return nil, &refusal{msg: fmt.Sprintf("listener %s ", l.Name) + fmt.Sprintf(format, a...), hint: hint}
	}
	if l.Protocol != gatewayv1.HTTPProtocolType && l.Protocol != gatewayv1.HTTPSProtocolType {
		return refuse(hintProtocol, "speaks %s, not HTTP or HTTPS", l.Protocol)
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
			return refuse(hintNamespace, "admits routes of namespace %s only (allowedRoutes.namespaces.from: Same)", gw.Namespace)
		}
	case gatewayv1.NamespacesFromSelector:
		if selector == nil {
			return refuse(hintNamespace, "has allowedRoutes.namespaces.from: Selector but no selector, and admits no namespace")
		}
		sel, err := metav1.LabelSelectorAsSelector(selector)
		if err != nil {
			return refuse(hintNamespace, "has an invalid allowedRoutes.namespaces.selector (%v) and admits no namespace", err)
		}
		if nsLabels := t.namespaceLabels(route.Namespace); !sel.Matches(nsLabels) {
			return refuse(hintNamespace, "admits namespaces matching %s; namespace %s has labels %s", sel, route.Namespace, nsLabels)
		}
	default:
		return refuse(hintNamespace, "has allowedRoutes.namespaces.from: %s, which is none of All, Same and Selector, and admits no namespace", from)
	}
	if l.AllowedRoutes != nil && len(l.AllowedRoutes.Kinds) > 0 && !slices.ContainsFunc(l.AllowedRoutes.Kinds, func(k gatewayv1.RouteGroupKind) bool {
		return (k.Group == nil || *k.Group == gatewayv1.GroupName) && k.Kind == "HTTPRoute"
	}) {
		kinds := make([]string, len(l.AllowedRoutes.Kinds))
		for i, k := range l.AllowedRoutes.Kinds {
			kinds[i] = string(k.Kind)
		}
		return refuse(hintKinds, "admits kinds %s, not HTTPRoute (allowedRoutes.kinds)", strings.Join(kinds, ", "))
	}
	// HTTP and HTTPS listeners admit HTTPRoutes by default.
	hosts := IntersectHostnames(hostnameOf(l), hostnamesOf(route))
	if len(hosts) == 0 {
		return nil, &refusal{hostnames: true, hint: hintHostnames, msg: fmt.Sprintf("hostnames %s do not intersect listener %s (%s)",
			strings.Join(hostnamesOf(route), ", "), l.Name, hostnameOf(l))}
	}
	return hosts, nil
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

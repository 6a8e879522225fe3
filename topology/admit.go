package topology

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// NamespaceNameLabel is the label Kubernetes puts on every Namespace with its name.
const NamespaceNameLabel = "kubernetes.io/metadata.name"

// What to do about a Refusal.
const (
	HintProtocol  = "name an HTTP or HTTPS listener (sectionName, port)"
	HintNamespace = "admit the route's namespace in the listener's allowedRoutes.namespaces (a selector matches the labels of the Namespace given among the inputs)"
	HintKinds     = "add HTTPRoute to the listener's allowedRoutes.kinds"
	HintHostnames = "give the route a hostname the listener serves (spec.hostnames)"
)

// Refusal is why a listener does not take a route.
type Refusal struct {
	// Hostnames is true when the listener would take the route but no hostname intersects.
	Hostnames bool
	// Msg says why, naming the listener: "listener tcp speaks TCP, not HTTP or HTTPS".
	Msg string
	// Hint says what to do (one of the Hint constants).
	Hint string
}

// Topology indexes Gateways by namespace/name and Namespaces' labels, for attachment. The
// zero value is not usable; New builds one. It is immutable and safe for concurrent use.
type Topology struct {
	gateways map[Key]*gatewayv1.Gateway
	labels   map[string]labels.Set
}

// New indexes gateways and the labels of the namespaces given (namespace name -> labels).
// The first of two Gateways with one namespace/name is kept.
func New(gateways []*gatewayv1.Gateway, namespaces map[string]map[string]string) *Topology {
	t := &Topology{gateways: map[Key]*gatewayv1.Gateway{}, labels: map[string]labels.Set{}}
	for _, gw := range gateways {
		if _, dup := t.gateways[KeyOf(gw)]; !dup {
			t.gateways[KeyOf(gw)] = gw
		}
	}
	for ns, l := range namespaces {
		set := labels.Set{}
		for k, v := range l {
			set[k] = v
		}
		set[NamespaceNameLabel] = ns
		t.labels[ns] = set
	}
	return t
}

// Gateway returns the Gateway named k, nil when there is none.
func (t *Topology) Gateway(k Key) *gatewayv1.Gateway { return t.gateways[k] }

// NamespaceLabels returns the labels of a namespace; one not among the inputs has only the
// label Kubernetes gives every namespace.
func (t *Topology) NamespaceLabels(ns string) labels.Set {
	if l, ok := t.labels[ns]; ok {
		return l
	}
	return labels.Set{NamespaceNameLabel: ns}
}

// Admit returns the hostnames route serves through listener l of gw (IntersectHostnames),
// or why l does not take it: l must speak HTTP or HTTPS, its allowedRoutes must admit the
// route's namespace and kind, and its hostname must intersect the route's.
func (t *Topology) Admit(gw *gatewayv1.Gateway, l gatewayv1.Listener, route *gatewayv1.HTTPRoute) ([]string, *Refusal) {
	return t.admit(gw, l, httpRoute(route))
}

// admit is Admit for a route of any HTTP kind.
func (t *Topology) admit(gw *gatewayv1.Gateway, l gatewayv1.Listener, r routeInfo) ([]string, *Refusal) {
	if rf := t.admitKind(gw, l, r); rf != nil {
		return nil, rf
	}
	hosts := IntersectHostnames(ListenerHostname(l), r.hostnames)
	if len(hosts) == 0 {
		return nil, &Refusal{Hostnames: true, Hint: HintHostnames, Msg: fmt.Sprintf("hostnames %s do not intersect listener %s (%s)",
			strings.Join(r.hostnames, ", "), l.Name, ListenerHostname(l))}
	}
	return hosts, nil
}

// AdmitKind says why listener l of gw does not take route whatever their hostnames, nil
// when it does: its protocol, or its allowedRoutes namespaces or kinds.
func (t *Topology) AdmitKind(gw *gatewayv1.Gateway, l gatewayv1.Listener, route *gatewayv1.HTTPRoute) *Refusal {
	return t.admitKind(gw, l, httpRoute(route))
}

// admitKind is AdmitKind for a route of any HTTP kind.
func (t *Topology) admitKind(gw *gatewayv1.Gateway, l gatewayv1.Listener, route routeInfo) *Refusal {
	refuse := func(hint, format string, a ...any) *Refusal {
		return &Refusal{Msg: fmt.Sprintf("listener %s ", l.Name) + fmt.Sprintf(format, a...), Hint: hint}
	}
	if l.Protocol != gatewayv1.HTTPProtocolType && l.Protocol != gatewayv1.HTTPSProtocolType {
		return refuse(HintProtocol, "speaks %s, not HTTP or HTTPS", l.Protocol)
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
		if route.namespace != gw.Namespace {
			return refuse(HintNamespace, "admits routes of namespace %s only (allowedRoutes.namespaces.from: Same)", gw.Namespace)
		}
	case gatewayv1.NamespacesFromSelector:
		if selector == nil {
			return refuse(HintNamespace, "has allowedRoutes.namespaces.from: Selector but no selector, and admits no namespace")
		}
		sel, err := metav1.LabelSelectorAsSelector(selector)
		if err != nil {
			return refuse(HintNamespace, "has an invalid allowedRoutes.namespaces.selector (%v) and admits no namespace", err)
		}
		if nsLabels := t.NamespaceLabels(route.namespace); !sel.Matches(nsLabels) {
			return refuse(HintNamespace, "admits namespaces matching %s; namespace %s has labels %s", sel, route.namespace, nsLabels)
		}
	default:
		return refuse(HintNamespace, "has allowedRoutes.namespaces.from: %s, which is none of All, Same and Selector, and admits no namespace", from)
	}
	if l.AllowedRoutes != nil && len(l.AllowedRoutes.Kinds) > 0 && !slices.ContainsFunc(l.AllowedRoutes.Kinds, func(k gatewayv1.RouteGroupKind) bool {
		return (k.Group == nil || *k.Group == gatewayv1.GroupName) && string(k.Kind) == route.kind
	}) {
		kinds := make([]string, len(l.AllowedRoutes.Kinds))
		for i, k := range l.AllowedRoutes.Kinds {
			kinds[i] = string(k.Kind)
		}
		hint := HintKinds
		if route.kind != "HTTPRoute" {
			hint = strings.Replace(hint, "HTTPRoute", route.kind, 1)
		}
		return refuse(hint, "admits kinds %s, not %s (allowedRoutes.kinds)", strings.Join(kinds, ", "), route.kind)
	}
	return nil // HTTP and HTTPS listeners admit HTTPRoutes and GRPCRoutes by default
}

// Gateways returns the Gateways indexed, in no particular order.
func (t *Topology) Gateways() []*gatewayv1.Gateway {
	out := make([]*gatewayv1.Gateway, 0, len(t.gateways))
	for _, gw := range t.gateways {
		out = append(out, gw)
	}
	return out
}

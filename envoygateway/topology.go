package envoygateway

import (
	"cmp"
	"slices"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	localrlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/topology"
)

// Gateway is one Gateway as Envoy Gateway programs it: its HTTP and HTTPS listeners, each
// with its routes.
type Gateway struct {
	// Name is "namespace/name".
	Name string
	// Listeners are the HTTP and HTTPS listeners, in the Gateway's order.
	Listeners []*Listener
}

// Listener is one HTTP or HTTPS listener of a Gateway.
type Listener struct {
	// Name is "<gateway namespace>/<gateway name>/<listener>", Envoy Gateway's name of the
	// listener and the rate-limit domain of its routes' rules that are not shared.
	Name string
	// Section is the listener's name in the Gateway; Port, Protocol and Hostname its
	// fields ("" without hostname).
	Section  string
	Port     int32
	Protocol gatewayv1.ProtocolType
	Hostname string
	// Routes are the xDS routes of the listener, in the order Envoy matches them (Gateway
	// API precedence).
	Routes []*Route
}

// Route is one xDS route: one match of one rule of an HTTPRoute or a GRPCRoute, for one
// hostname of one listener.
type Route struct {
	// Name is "httproute/<ns>/<name>/rule/<i>/match/<j>/<hostname, dots as _>", or
	// "grpcroute/..." for a GRPCRoute, whose rule without matches is match -1.
	Name string
	// Kind is the route's kind, "HTTPRoute" or "GRPCRoute"; HTTPRoute or GRPCRoute is its
	// "namespace/name"; Rule, RuleName and Match locate the match.
	Kind                 string
	HTTPRoute, GRPCRoute string
	Rule                 int
	RuleName             string
	Match                int
	// Hostname is the virtual host's domain: an exact or wildcard hostname, or "*".
	Hostname string
	// Path, Headers (":method" or a GRPCRoute's ":path" suffix last) and Query are the
	// route's match, with Gateway API's defaults (a path prefix "/" when unset).
	Path    StringMatch
	Headers []StringMatch
	Query   []StringMatch

	// Policy is the "namespace/name" of the policy whose settings the route took, and
	// Parent that of the parent it merged into ("" when none); Level is the target that
	// made it apply: "rule", "route", "listener" or "gateway".
	Policy, Parent, Level string
	// DirectResponse is 500 when that policy is invalid: Envoy answers it and calls no
	// rate-limit service; 0 otherwise.
	DirectResponse uint32
	// RateLimit is the rate limits the route took, nil when none; Envoy Gateway may set
	// them on a route that answers 500, where they count in the rate-limit service's
	// configuration but not in the route's actions.
	RateLimit *RateLimit

	// Actions are the route's rate limits per domain, as Envoy Gateway writes them in the
	// route's typed_per_filter_config (nil for a direct response).
	Actions map[string][]*routev3.RateLimit
	// LocalRateLimit is the route's local rate limit filter configuration, nil when none.
	LocalRateLimit *localrlv3.LocalRateLimit

	listener *Listener
	traffic  bool // a policy set the route's settings
}

// Listener returns the listener the route belongs to.
func (r *Route) Listener() *Listener { return r.listener }

// model is the Gateways and routes of a set as Envoy Gateway programs them.
type model struct {
	// set is the inputs, for telling a missing target from one that attaches nowhere.
	set      *policy.Set
	topo     *topology.Topology
	gateways []*Gateway
	byName   map[string]*Gateway
	// routes are the relevant HTTPRoutes, then GRPCRoutes (a parentRef names a Gateway of
	// the inputs), each kind oldest first, as Envoy Gateway processes them.
	routes []*xroute
	// xds are every xDS route, per Gateway listener.
	listeners map[*gatewayv1.Gateway][]*Listener
}

// byAge orders objects as Envoy Gateway does: by creation time, then namespace/name.
func byAge(a, b metav1.Object) int {
	ta, tb := a.GetCreationTimestamp(), b.GetCreationTimestamp()
	return cmp.Or(ta.Time.Compare(tb.Time), cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName()))
}

// newModel builds the listeners and xDS routes of the valid Gateways, HTTPRoutes and
// GRPCRoutes of set.
func newModel(set *policy.Set) *model {
	var gws []*gatewayv1.Gateway
	for _, gw := range set.Gateways {
		if set.Problems(policy.ObjectKey{Kind: policy.KindGateway, Namespace: gw.Namespace, Name: gw.Name}) == nil {
			gws = append(gws, gw)
		}
	}
	slices.SortFunc(gws, func(a, b *gatewayv1.Gateway) int { return byAge(a, b) })
	labels := map[string]map[string]string{}
	for _, ns := range set.Namespaces {
		labels[ns.Name] = ns.Labels
	}
	m := &model{set: set, topo: topology.New(gws, labels), byName: map[string]*Gateway{}, listeners: map[*gatewayv1.Gateway][]*Listener{}}
	for _, gw := range gws {
		g := &Gateway{Name: gw.Namespace + "/" + gw.Name}
		for _, l := range gw.Spec.Listeners {
			if l.Protocol != gatewayv1.HTTPProtocolType && l.Protocol != gatewayv1.HTTPSProtocolType {
				g.Listeners = append(g.Listeners, nil) // keeps the Gateway's indices
				continue
			}
			g.Listeners = append(g.Listeners, &Listener{Name: g.Name + "/" + string(l.Name), Section: string(l.Name), Port: int32(l.Port), Protocol: l.Protocol, Hostname: topology.ListenerHostname(l)})
		}
		m.gateways = append(m.gateways, g)
		m.byName[g.Name] = g
		m.listeners[gw] = g.Listeners
	}
	m.routes = append(relevantRoutes(m, set.HTTPRoutes, httpXRoute), relevantRoutes(m, set.GRPCRoutes, grpcXRoute)...)
	for _, r := range m.routes {
		m.addRoute(r)
	}
	for _, g := range m.gateways {
		g.Listeners = slices.DeleteFunc(slices.Clone(g.Listeners), func(l *Listener) bool { return l == nil })
		for _, l := range g.Listeners {
			sortRoutes(l.Routes)
		}
	}
	return m
}

// relevantRoutes returns the valid routes of one kind that name a Gateway of the inputs,
// oldest first.
func relevantRoutes[R metav1.Object](m *model, routes []R, x func(R) *xroute) []*xroute {
	var out []*xroute
	for _, r := range routes {
		xr := x(r)
		if m.set.Problems(policy.ObjectKey{Kind: xr.kind, Namespace: r.GetNamespace(), Name: r.GetName()}) == nil && m.relevant(xr) {
			out = append(out, xr)
		}
	}
	slices.SortFunc(out, func(a, b *xroute) int { return byAge(a, b) })
	return out
}

// relevant reports whether a parentRef of r names a Gateway of the inputs.
func (m *model) relevant(r *xroute) bool {
	return slices.ContainsFunc(r.parentRefs, func(ref gatewayv1.ParentReference) bool {
		return topology.IsGatewayRef(ref) && m.topo.Gateway(r.parentGateway(ref)) != nil
	})
}

// parentListeners returns the listeners parentRef i of r selects and that admit it
// (protocol, allowedRoutes), whatever their hostnames.
func (m *model) parentListeners(r *xroute, i int) (*gatewayv1.Gateway, []int) {
	ref := r.parentRefs[i]
	if !topology.IsGatewayRef(ref) {
		return nil, nil
	}
	gw := m.topo.Gateway(r.parentGateway(ref))
	if gw == nil {
		return nil, nil
	}
	var out []int
	for li, l := range gw.Spec.Listeners {
		if topology.SelectsListener(ref, l) && r.admitKind(m.topo, gw, l) {
			out = append(out, li)
		}
	}
	return gw, out
}

// addRoute adds the xDS routes of r to the listeners it attaches to, parentRef by parentRef.
func (m *model) addRoute(r *xroute) {
	for i := range r.parentRefs {
		gw, lis := m.parentListeners(r, i)
		for _, li := range lis {
			l := m.listeners[gw][li]
			for _, host := range m.hosts(gw, li, r) {
				l.Routes = append(l.Routes, r.xdsRoutes(host, l)...)
			}
		}
	}
}

// hosts returns the hostnames r serves through listener li of gw, as Envoy Gateway computes
// them: Gateway API's intersection, without the hostnames other listeners on its port name.
func (m *model) hosts(gw *gatewayv1.Gateway, li int, r *xroute) []string {
	l := gw.Spec.Listeners[li]
	hosts := topology.IntersectHostnames(topology.ListenerHostname(l), r.hostnames)
	if len(r.hostnames) == 0 {
		return hosts
	}
	for oi, o := range gw.Spec.Listeners {
		if oi != li && o.Port == l.Port && o.Hostname != nil {
			hosts = slices.DeleteFunc(hosts, func(h string) bool { return h == string(*o.Hostname) })
		}
	}
	return hosts
}

// setMatch sets the route's match from an HTTPRouteMatch, with the CRD's defaults.
func (rt *Route) setMatch(m gatewayv1.HTTPRouteMatch) {
	value := "/"
	typ := gatewayv1.PathMatchPathPrefix
	if m.Path != nil {
		if m.Path.Value != nil {
			value = *m.Path.Value
		}
		if m.Path.Type != nil {
			typ = *m.Path.Type
		}
	}
	switch typ {
	case gatewayv1.PathMatchExact:
		rt.Path = StringMatch{Exact: &value}
	case gatewayv1.PathMatchRegularExpression:
		rt.Path = StringMatch{Regex: &value}
	default:
		rt.Path = StringMatch{Prefix: &value}
	}
	rt.Path.compile()
	for _, h := range m.Headers {
		v := h.Value
		sm := StringMatch{Name: string(h.Name), Exact: &v}
		if h.Type != nil && *h.Type == gatewayv1.HeaderMatchRegularExpression {
			sm.Exact, sm.Regex = nil, &v
			sm.compile()
		}
		rt.Headers = append(rt.Headers, sm)
	}
	for _, q := range m.QueryParams {
		v := q.Value
		sm := StringMatch{Name: string(q.Name), Exact: &v}
		if q.Type != nil && *q.Type == gatewayv1.QueryParamMatchRegularExpression {
			sm.Exact, sm.Regex = nil, &v
			sm.compile()
		}
		rt.Query = append(rt.Query, sm)
	}
	if m.Method != nil {
		v := string(*m.Method)
		rt.Headers = append(rt.Headers, StringMatch{Name: ":method", Exact: &v})
	}
}

// listener returns the listener named section of Gateway gw ("ns/name"), nil when none.
func (m *model) listener(gw, section string) *Listener {
	g := m.byName[gw]
	if g == nil {
		return nil
	}
	for _, l := range g.Listeners {
		if l.Section == section {
			return l
		}
	}
	return nil
}

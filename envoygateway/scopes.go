package envoygateway

import (
	"fmt"
	"slices"
	"strings"
)

// scopeKind is the kind of a place a policy attaches to, for the Merged and Overridden
// messages.
type scopeKind int

const (
	scopeGateway scopeKind = iota
	scopeListener
	scopeRoute
)

// scope is a Gateway ("ns/gw"), a listener ("ns/gw/listener") or a route ("ns/route",
// with its kind: an HTTPRoute and a GRPCRoute of one name are two scopes, printed alike).
type scope struct {
	kind      scopeKind
	key       string
	routeKind string
}

// routeScope returns the scope of route target t.
func routeScope(t target) scope { return scope{kind: scopeRoute, key: t.key(), routeKind: t.kind} }

// gatewayOrListener returns the scope of an ancestor: a listener when it names one.
func gatewayOrListener(ancestor string) scope {
	if strings.Count(ancestor, "/") == 2 {
		return scope{kind: scopeListener, key: ancestor}
	}
	return scope{kind: scopeGateway, key: ancestor}
}

// resource returns the Gateway of a listener scope.
func (s scope) resource() scope {
	if s.kind != scopeListener {
		return s
	}
	return scope{kind: scopeGateway, key: s.key[:strings.LastIndexByte(s.key, '/')]}
}

// scopeGraph records which more specific scopes' policies replace (or merge into) the
// policy of a less specific one, as Envoy Gateway does to write its Overridden and Merged
// conditions: a route's policy under each Gateway or listener its parentRefs name, a
// listener's policy under its Gateway.
type scopeGraph struct {
	children map[scope][]scope
	// contains indexes the listener scopes that have children under their Gateway.
	contains map[scope][]scope
}

func newScopeGraph() *scopeGraph {
	return &scopeGraph{children: map[scope][]scope{}, contains: map[scope][]scope{}}
}

func addOnce(m map[scope][]scope, k, v scope) {
	if !slices.Contains(m[k], v) {
		m[k] = append(m[k], v)
	}
}

// add records child under parent.
func (g *scopeGraph) add(parent, child scope) {
	addOnce(g.children, parent, child)
	if parent.kind == scopeListener {
		addOnce(g.contains, parent.resource(), parent)
	}
}

// direct returns the children recorded under parent.
func (g *scopeGraph) direct(parent scope) []scope { return slices.Clone(g.children[parent]) }

// withDescendants returns the children of parent and, for a Gateway, those of its
// listeners; for a listener, also the routes recorded under its Gateway, which attach
// through every listener.
func (g *scopeGraph) withDescendants(parent scope) []scope {
	out := g.direct(parent)
	add := func(s scope) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	switch parent.kind {
	case scopeGateway:
		for _, l := range g.contains[parent] {
			for _, c := range g.children[l] {
				add(c)
			}
		}
	case scopeListener:
		for _, c := range g.children[parent.resource()] {
			if c.kind == scopeRoute {
				add(c)
			}
		}
	}
	return out
}

// formatScopes writes scopes as Envoy Gateway does in its messages: "these gateway
// listeners: [ns/gw/a] and these routes: [ns/r1 ns/r2]", each kind sorted; "" for none.
func formatScopes(scopes []scope) string {
	var parts []string
	for _, k := range []struct {
		kind  scopeKind
		label string
	}{{scopeListener, "these gateway listeners"}, {scopeRoute, "these routes"}} {
		var keys []string
		for _, s := range scopes {
			if s.kind == k.kind {
				keys = append(keys, s.key)
			}
		}
		if len(keys) > 0 {
			slices.Sort(keys)
			parts = append(parts, fmt.Sprintf("%s: %v", k.label, keys))
		}
	}
	return strings.Join(parts, " and ")
}

// without returns scopes not in drop.
func without(scopes, drop []scope) []scope {
	return slices.DeleteFunc(scopes, func(s scope) bool { return slices.Contains(drop, s) })
}

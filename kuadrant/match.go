package kuadrant

import (
	"cmp"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// match is one route match with its predicates, and what the operator sorts it by: the
// path match (for a GRPCRoute's, its method match as the HTTP/2 path it stands for; an
// empty pathType when there is none), whether it matches the method, and how many headers
// and query parameters it matches.
type match struct {
	pathType        gatewayv1.PathMatchType
	path            string
	method          bool
	headers, params int
	predicates      []string
}

// routeMatches returns the matches of a path's rule, with Gateway API's defaults (a rule
// without matches, or a match without a path, matches PathPrefix "/"), each with the
// predicates the operator writes: method, path, headers, query parameters. A GRPCRoute's
// are grpcMatches.
func routeMatches(p Path) []match {
	if p.GRPCRoute != nil {
		return grpcMatches(p.GRPCRoute.Spec.Rules[p.Rule].Matches)
	}
	ms := p.Route.Spec.Rules[p.Rule].Matches
	if len(ms) == 0 {
		ms = []gatewayv1.HTTPRouteMatch{{}}
	}
	out := make([]match, 0, len(ms))
	for _, m := range ms {
		pt, pv := gatewayv1.PathMatchPathPrefix, "/"
		if m.Path != nil {
			if m.Path.Type != nil {
				pt = *m.Path.Type
			}
			if m.Path.Value != nil {
				pv = *m.Path.Value
			}
		}
		var preds []string
		if m.Method != nil {
			preds = append(preds, "request.method == "+quote(string(*m.Method)))
		}
		switch pt {
		case gatewayv1.PathMatchExact:
			preds = append(preds, "request.url_path == "+quote(pv))
		case gatewayv1.PathMatchRegularExpression:
			preds = append(preds, "request.url_path.matches("+quote(pv)+")")
		default:
			preds = append(preds, "request.url_path.startsWith("+quote(pv)+")")
		}
		for _, h := range m.Headers {
			regex := h.Type != nil && *h.Type == gatewayv1.HeaderMatchRegularExpression
			preds = append(preds, headerPredicate(string(h.Name), h.Value, regex))
		}
		for _, q := range m.QueryParams {
			n := quote(string(q.Name))
			qm := "queryMap(request.query)"
			if q.Type != nil && *q.Type == gatewayv1.QueryParamMatchRegularExpression {
				preds = append(preds, n+" in "+qm+" ? "+qm+"["+n+"].matches("+quote(q.Value)+") : false")
				continue
			}
			preds = append(preds, n+" in "+qm+" ? "+qm+"["+n+"] == "+quote(q.Value)+" : false")
		}
		out = append(out, match{pathType: pt, path: pv, method: m.Method != nil, headers: len(m.Headers), params: len(m.QueryParams), predicates: preds})
	}
	return out
}

// quote writes s as a single-quoted CEL string; a quote or backslash in it is escaped.
func quote(s string) string {
	if !strings.ContainsAny(s, `'\`) {
		return "'" + s + "'"
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// actionSetOrder is what action sets are sorted by: Gateway API route precedence.
type actionSetOrder struct {
	host  string
	match match
	route *metav1.ObjectMeta
	kind  string
	rule  int
	index int
}

// compare orders as the operator does: by hostname (more labels first, exact before
// wildcard, then lexical), path kind (Exact, RegularExpression, PathPrefix, none), longer
// path first, without a method match before with one, more header matches first, more
// query parameter matches first, the route's creation time, route namespace/name; then,
// for a total order, HTTPRoute before GRPCRoute, rule and match.
func (a *actionSetOrder) compare(b *actionSetOrder) int {
	la, lb := strings.Count(a.host, ".")+1, strings.Count(b.host, ".")+1
	if a.host == "*" {
		la = 0
	}
	if b.host == "*" {
		lb = 0
	}
	wa, wb := strings.HasPrefix(a.host, "*"), strings.HasPrefix(b.host, "*")
	return cmp.Or(
		cmp.Compare(lb, la),
		boolFirst(!wa, !wb),
		cmp.Compare(a.host, b.host),
		cmp.Compare(pathRank(a.match.pathType), pathRank(b.match.pathType)),
		cmp.Compare(len(b.match.path), len(a.match.path)),
		boolFirst(!a.match.method, !b.match.method),
		cmp.Compare(b.match.headers, a.match.headers),
		cmp.Compare(b.match.params, a.match.params),
		a.route.CreationTimestamp.Compare(b.route.CreationTimestamp.Time),
		cmp.Compare(a.route.Namespace, b.route.Namespace),
		cmp.Compare(a.route.Name, b.route.Name),
		boolFirst(a.kind == "HTTPRoute", b.kind == "HTTPRoute"),
		cmp.Compare(a.rule, b.rule),
		cmp.Compare(a.index, b.index),
	)
}

// boolFirst orders true before false.
func boolFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// pathRank ranks path match kinds: Exact, RegularExpression, PathPrefix, then none (a
// GRPCRoute match without a method, which the operator sorts after every path by its
// length, 0).
func pathRank(t gatewayv1.PathMatchType) int {
	switch t {
	case gatewayv1.PathMatchExact:
		return 0
	case gatewayv1.PathMatchRegularExpression:
		return 1
	case gatewayv1.PathMatchPathPrefix:
		return 2
	}
	return 3
}

func itoa(i int) string { return strconv.Itoa(i) }

// headerPredicate is the predicate of a route's header match, as the operator writes it
// for an exact value (a regular expression becomes matches()): some request header whose
// lower-cased name is name's holds value.
func headerPredicate(name, value string, regex bool) string {
	q := quote(strings.ToLower(name))
	if regex {
		return "request.headers.exists(h, h.lowerAscii() == " + q + " && request.headers[h].matches(" + quote(value) + "))"
	}
	return "request.headers.exists(h, h.lowerAscii() == " + q + " && request.headers[h] == " + quote(value) + ")"
}

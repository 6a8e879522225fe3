package envoygateway

import (
	"sort"
)

// sortRoutes orders a listener's routes as Envoy Gateway does, most specific first: by path
// match type (Exact, then RegularExpression, then PathPrefix), path length (a prefix "/"
// counting 0), the number of header matches and of exact ones, then of query parameter
// matches and exact ones; equal routes keep their order (HTTPRoutes, then GRPCRoutes,
// each older first).
func sortRoutes(routes []*Route) {
	sort.SliceStable(routes, func(i, j int) bool { return lessSpecific(routes[j], routes[i]) })
}

// pathKind ranks path match types: PathPrefix < RegularExpression < Exact.
func pathKind(m StringMatch) int {
	switch {
	case m.Exact != nil:
		return 2
	case m.Regex != nil:
		return 1
	}
	return 0
}

func pathCount(m StringMatch) int {
	switch {
	case m.Exact != nil:
		return len(*m.Exact)
	case m.Regex != nil:
		return len(*m.Regex)
	case m.Prefix != nil && *m.Prefix != "/":
		return len(*m.Prefix)
	}
	return 0
}

func exactCount(ms []StringMatch) int {
	n := 0
	for _, m := range ms {
		if m.Exact != nil {
			n++
		}
	}
	return n
}

// lessSpecific reports whether route a precedes route b in ascending specificity.
func lessSpecific(a, b *Route) bool {
	if ka, kb := pathKind(a.Path), pathKind(b.Path); ka != kb {
		return ka < kb
	}
	for _, c := range [][2]int{
		{pathCount(a.Path), pathCount(b.Path)},
		{len(a.Headers), len(b.Headers)},
		{exactCount(a.Headers), exactCount(b.Headers)},
		{len(a.Query), len(b.Query)},
	} {
		if c[0] != c[1] {
			return c[0] < c[1]
		}
	}
	return exactCount(a.Query) < exactCount(b.Query)
}

package topology

import (
	"slices"
	"strings"
)

// IntersectHostnames returns the hostnames a route serves through a listener, with Gateway
// API semantics (see HTTPRouteSpec.Hostnames): an unset listener hostname matches every
// route hostname, a route without hostnames takes the listener's, and neither set means
// "*". A wildcard matches one or more labels; where a route hostname and the listener
// hostname overlap, the more specific of the two is served ("*.example.com" listener with
// route "*.com" serves "*.example.com"; route "*.specific.com" on listener
// "very.specific.com" serves "very.specific.com"). The result is sorted and without
// duplicates; empty when nothing intersects, in which case the route does not attach
// through that listener.
func IntersectHostnames(listener string, route []string) []string {
	if len(route) == 0 {
		if listener == "" {
			return []string{"*"}
		}
		return []string{listener}
	}
	var out []string
	for _, r := range route {
		if listener == "" {
			out = append(out, r)
			continue
		}
		if h, ok := intersectOne(listener, r); ok {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// intersectOne returns the more specific of two hostnames when one covers the other.
func intersectOne(a, b string) (string, bool) {
	switch {
	case a == b:
		return a, true
	case Covers(a, b):
		return b, true
	case Covers(b, a):
		return a, true
	}
	return "", false
}

// Covers reports whether the wildcard pattern w matches every host h matches (h may be a
// wildcard itself): "*.example.com" covers "a.example.com", "a.b.example.com" and
// "*.a.example.com", never "example.com".
func Covers(w, h string) bool {
	suffix, ok := strings.CutPrefix(w, "*")
	if !ok {
		return false
	}
	return len(h) > len(suffix) && strings.HasSuffix(h, suffix) && h[:len(h)-len(suffix)] != "*"
}

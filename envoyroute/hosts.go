package envoyroute

import (
	"slices"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"github.com/rlpkit/rlpkit/fielderr"
)

// hostTable is Envoy's RouteMatcher: virtual hosts by exact domain, by wildcard suffix and
// by wildcard prefix (each longest first), and the "*" one.
type hostTable struct {
	exact      map[string]*routev3.VirtualHost
	suffixes   []affix // "*.example.com": ".example.com", longest first
	prefixes   []affix // "example.*": "example.", longest first
	fallback   *routev3.VirtualHost
	ignorePort bool
}

type affix struct {
	s  string
	vh *routev3.VirtualHost
}

// hostTable indexes the virtual hosts' domains, lower-cased as Envoy does, and reports the
// domains Envoy rejects: one written twice, an empty one, a second "*".
func (k *checker) hostTable(rc *routev3.RouteConfiguration) hostTable {
	t := hostTable{exact: map[string]*routev3.VirtualHost{}, ignorePort: rc.IgnorePortInHostMatching}
	seen := map[string]bool{}
	for i, vh := range rc.VirtualHosts {
		if len(vh.Domains) == 0 {
			k.fail(fielderr.Path("virtual_hosts").Index(i).Child("domains"), "Required value: a virtual host needs a domain")
		}
		for j, d := range vh.Domains {
			p := fielderr.Path("virtual_hosts").Index(i).Child("domains").Index(j)
			d = lower(d)
			switch {
			case d == "":
				k.fail(p, "an empty domain: Envoy rejects it")
				continue
			case seen[d]:
				k.fail(p, "domain %q is already a domain of a virtual host: Envoy rejects the route configuration", d)
				continue
			}
			seen[d] = true
			switch {
			case d == "*":
				t.fallback = vh
			case strings.HasPrefix(d, "*"):
				t.suffixes = append(t.suffixes, affix{d[1:], vh})
			case strings.HasSuffix(d, "*"):
				t.prefixes = append(t.prefixes, affix{d[:len(d)-1], vh})
			default:
				t.exact[d] = vh
			}
		}
	}
	longestFirst := func(a, b affix) int { return len(b.s) - len(a.s) }
	slices.SortStableFunc(t.suffixes, longestFirst)
	slices.SortStableFunc(t.prefixes, longestFirst)
	return t
}

// find returns the virtual host of an :authority as Envoy's RouteMatcher picks it: without
// the port when ignore_port_in_host_matching is set, lower-cased; an exact domain, else the
// longest suffix wildcard, else the longest prefix wildcard (a wildcard matches at least one
// character), else "*"; nil when none (Envoy answers 404) or the authority is empty.
func (t *hostTable) find(authority string) (*routev3.VirtualHost, string) {
	if authority == "" {
		return nil, ""
	}
	host := authority
	if t.ignorePort {
		host = stripPort(host)
	}
	host = lower(host)
	if vh, ok := t.exact[host]; ok {
		return vh, host
	}
	for _, a := range t.suffixes {
		if len(host) > len(a.s) && strings.HasSuffix(host, a.s) {
			return a.vh, "*" + a.s
		}
	}
	for _, a := range t.prefixes {
		if len(host) > len(a.s) && strings.HasPrefix(host, a.s) {
			return a.vh, a.s + "*"
		}
	}
	if t.fallback != nil {
		return t.fallback, "*"
	}
	return nil, ""
}

// stripPort removes what follows the last ":" of an authority unless a "]" comes after
// it, as Envoy's getPortStart does (a bracketed IPv6 literal keeps its brackets).
func stripPort(h string) string {
	i := strings.LastIndexByte(h, ':')
	if i < 0 || strings.LastIndexByte(h, ']') > i {
		return h
	}
	return h[:i]
}

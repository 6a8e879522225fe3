package envoyxds

// Route selection and header matching of the Envoy interpreter (see envoysim_test.go).

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
)

// findVirtualHost follows Envoy's RouteMatcher: the port is ignored when the route
// configuration says so, the host is lower-cased, then exact domains, suffix wildcards from
// the longest, prefix wildcards from the longest, and "*".
func findVirtualHost(rc *routev3.RouteConfiguration, authority string) (*routev3.VirtualHost, error) {
	exact := make(map[string]*routev3.VirtualHost)
	type wild struct {
		affix string
		vh    *routev3.VirtualHost
	}
	var suffixes, prefixes []wild
	var fallback *routev3.VirtualHost
	seen := make(map[string]bool)
	for _, vh := range rc.VirtualHosts {
		for _, d := range vh.Domains {
			d = asciiLower(d)
			if seen[d] {
				return nil, fmt.Errorf("domain %q appears twice; Envoy rejects the route configuration", d)
			}
			seen[d] = true
			switch {
			case d == "*":
				fallback = vh
			case strings.HasPrefix(d, "*"):
				suffixes = append(suffixes, wild{d[1:], vh})
			case strings.HasSuffix(d, "*"):
				prefixes = append(prefixes, wild{d[:len(d)-1], vh})
			default:
				exact[d] = vh
			}
		}
	}
	if authority == "" {
		return nil, nil
	}
	host := authority
	if rc.IgnorePortInHostMatching {
		if colon := strings.LastIndexByte(host, ':'); colon >= 0 && strings.LastIndexByte(host, ']') < colon {
			host = host[:colon]
		}
	}
	host = asciiLower(host)
	if vh, ok := exact[host]; ok {
		return vh, nil
	}
	byLength := func(ws []wild) {
		sort.SliceStable(ws, func(i, j int) bool { return len(ws[i].affix) > len(ws[j].affix) })
	}
	byLength(suffixes)
	byLength(prefixes)
	for _, w := range suffixes {
		if len(host) > len(w.affix) && strings.HasSuffix(host, w.affix) {
			return w.vh, nil
		}
	}
	for _, w := range prefixes {
		if len(host) > len(w.affix) && strings.HasPrefix(host, w.affix) {
			return w.vh, nil
		}
	}
	return fallback, nil
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// routeMatches follows Envoy's route matching for the fields Translate uses.
func routeMatches(m *routev3.RouteMatch, req *envoyRequest) (bool, error) {
	switch {
	case m.QueryParameters != nil, m.Grpc != nil, m.TlsContext != nil, m.DynamicMetadata != nil,
		m.RuntimeFraction != nil, m.Cookies != nil, m.FilterState != nil:
		return false, fmt.Errorf("a route match field is not modelled")
	}
	p := req.path
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	caseSensitive := m.CaseSensitive == nil || m.CaseSensitive.Value
	fold := func(s string) string {
		if caseSensitive {
			return s
		}
		return strings.ToLower(s)
	}
	var ok bool
	switch ps := m.PathSpecifier.(type) {
	case *routev3.RouteMatch_Prefix:
		ok = strings.HasPrefix(fold(p), fold(ps.Prefix))
	case *routev3.RouteMatch_Path:
		ok = fold(p) == fold(ps.Path)
	case *routev3.RouteMatch_PathSeparatedPrefix:
		v := fold(ps.PathSeparatedPrefix)
		ok = fold(p) == v || strings.HasPrefix(fold(p), v+"/")
	case *routev3.RouteMatch_SafeRegex:
		re, err := fullMatch(ps.SafeRegex.Regex)
		if err != nil {
			return false, err
		}
		ok = re.MatchString(p)
	default:
		return false, fmt.Errorf("path specifier %T is not modelled", ps)
	}
	if !ok {
		return false, nil
	}
	return headersMatch(m.Headers, req)
}

// headersMatch ANDs Envoy header matchers.
func headersMatch(ms []*routev3.HeaderMatcher, req *envoyRequest) (bool, error) {
	for _, m := range ms {
		ok, err := headerMatches(m, req)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// headerMatches follows Envoy's HeaderUtility::matchHeaders: the values of a repeated header
// are joined with ","; an absent header matches only present_match false, or present_match
// true inverted (unless treat_missing_header_as_empty).
func headerMatches(m *routev3.HeaderMatcher, req *envoyRequest) (bool, error) {
	values := req.header(strings.ToLower(m.Name))
	_, isPresent := m.HeaderMatchSpecifier.(*routev3.HeaderMatcher_PresentMatch)
	if len(values) == 0 && !m.TreatMissingHeaderAsEmpty {
		if m.InvertMatch {
			return isPresent && m.GetPresentMatch(), nil
		}
		return isPresent && !m.GetPresentMatch(), nil
	}
	value := strings.Join(values, ",")
	var match bool
	switch s := m.HeaderMatchSpecifier.(type) {
	case *routev3.HeaderMatcher_PresentMatch:
		match = s.PresentMatch
	case *routev3.HeaderMatcher_StringMatch:
		var err error
		if match, err = stringMatches(s.StringMatch, value); err != nil {
			return false, err
		}
	case nil:
		return false, fmt.Errorf("header matcher %q has no match specifier; Translate always sets one", m.Name)
	default:
		return false, fmt.Errorf("header matcher %q uses %T, which is deprecated or not modelled", m.Name, s)
	}
	return match != m.InvertMatch, nil
}

// stringMatches follows Envoy's StringMatcher.
func stringMatches(sm *matcherv3.StringMatcher, v string) (bool, error) {
	fold := func(s string) string {
		if sm.IgnoreCase {
			return strings.ToLower(s)
		}
		return s
	}
	switch p := sm.MatchPattern.(type) {
	case *matcherv3.StringMatcher_Exact:
		return fold(v) == fold(p.Exact), nil
	case *matcherv3.StringMatcher_Prefix:
		return strings.HasPrefix(fold(v), fold(p.Prefix)), nil
	case *matcherv3.StringMatcher_Suffix:
		return strings.HasSuffix(fold(v), fold(p.Suffix)), nil
	case *matcherv3.StringMatcher_Contains:
		return strings.Contains(fold(v), fold(p.Contains)), nil
	case *matcherv3.StringMatcher_SafeRegex:
		re, err := fullMatch(p.SafeRegex.Regex)
		if err != nil {
			return false, err
		}
		return re.MatchString(v), nil
	}
	return false, fmt.Errorf("string matcher %T is not modelled", sm.MatchPattern)
}

// fullMatch compiles an RE2 expression that must match a whole value, as Envoy's safe_regex.
func fullMatch(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(`^(?:` + expr + `)$`)
	if err != nil {
		return nil, fmt.Errorf("regex %q: %w", expr, err)
	}
	return re, nil
}

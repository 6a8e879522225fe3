package envoyroute

import (
	"strconv"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
)

// routeMatches reports whether a route's match admits q, as Envoy's route entries do: the
// path (without query string), then the grpc flag, every header and every query parameter.
func (c *Config) routeMatches(m *routev3.RouteMatch, q *prepared) bool {
	caseSensitive := m.CaseSensitive == nil || m.CaseSensitive.Value
	fold := func(s string) string {
		if caseSensitive {
			return s
		}
		return lower(s)
	}
	path := fold(q.path)
	var ok bool
	switch ps := m.PathSpecifier.(type) {
	case *routev3.RouteMatch_Prefix:
		ok = strings.HasPrefix(path, fold(ps.Prefix))
	case *routev3.RouteMatch_Path:
		ok = path == fold(ps.Path)
	case *routev3.RouteMatch_PathSeparatedPrefix:
		pre := fold(ps.PathSeparatedPrefix)
		ok = path == pre || strings.HasPrefix(path, pre) && path[len(pre)] == '/'
	case *routev3.RouteMatch_SafeRegex:
		ok = c.re[ps.SafeRegex.GetRegex()].MatchString(q.path) // case_sensitive does not apply
	}
	if !ok {
		return false
	}
	if m.Grpc != nil && !isGRPC(q) {
		return false
	}
	return c.headersMatch(m.Headers, q) && c.queryParamsMatch(m.QueryParameters, q)
}

// isGRPC reports whether a request is gRPC, as Envoy's grpc route match decides: its
// content-type is application/grpc, optionally followed by "+" or ";".
func isGRPC(q *prepared) bool {
	ct := q.header("content-type")
	if len(ct) == 0 {
		return false
	}
	rest, ok := strings.CutPrefix(ct[0], "application/grpc")
	return ok && (rest == "" || rest[0] == '+' || rest[0] == ';')
}

// headersMatch ANDs header matchers.
func (c *Config) headersMatch(ms []*routev3.HeaderMatcher, q *prepared) bool {
	for _, m := range ms {
		if !c.headerMatches(m, q) {
			return false
		}
	}
	return true
}

// headerMatches follows Envoy's HeaderUtility::matchHeaders: the values of a repeated
// header are joined with ","; an absent header matches only a present_match of false (true
// when inverted), unless treat_missing_header_as_empty makes it the empty value.
func (c *Config) headerMatches(m *routev3.HeaderMatcher, q *prepared) bool {
	values := q.header(m.Name)
	present, isPresent := m.HeaderMatchSpecifier.(*routev3.HeaderMatcher_PresentMatch)
	if len(values) == 0 && !m.TreatMissingHeaderAsEmpty {
		if m.InvertMatch {
			return isPresent && present.PresentMatch
		}
		return isPresent && !present.PresentMatch
	}
	v := strings.Join(values, ",")
	var match bool
	switch s := m.HeaderMatchSpecifier.(type) {
	case nil:
		match = true // no specifier: presence
	case *routev3.HeaderMatcher_ExactMatch:
		match = s.ExactMatch == "" || v == s.ExactMatch
	case *routev3.HeaderMatcher_SafeRegexMatch:
		match = c.re[s.SafeRegexMatch.GetRegex()].MatchString(v)
	case *routev3.HeaderMatcher_RangeMatch:
		n, err := strconv.ParseInt(v, 10, 64)
		match = err == nil && n >= s.RangeMatch.GetStart() && n < s.RangeMatch.GetEnd()
	case *routev3.HeaderMatcher_PresentMatch:
		match = s.PresentMatch
	case *routev3.HeaderMatcher_PrefixMatch:
		match = strings.HasPrefix(v, s.PrefixMatch)
	case *routev3.HeaderMatcher_SuffixMatch:
		match = strings.HasSuffix(v, s.SuffixMatch)
	case *routev3.HeaderMatcher_ContainsMatch:
		match = strings.Contains(v, s.ContainsMatch)
	case *routev3.HeaderMatcher_StringMatch:
		match = c.stringMatches(s.StringMatch, v)
	}
	return match != m.InvertMatch
}

// queryParamsMatch ANDs query parameter matchers, as Envoy's ConfigUtility::matchQueryParams:
// each reads the first value of its parameter; present_match compares presence.
func (c *Config) queryParamsMatch(ms []*routev3.QueryParameterMatcher, q *prepared) bool {
	for _, m := range ms {
		v, ok := q.queryValue(m.Name)
		switch s := m.QueryParameterMatchSpecifier.(type) {
		case *routev3.QueryParameterMatcher_PresentMatch:
			if ok != s.PresentMatch {
				return false
			}
		case *routev3.QueryParameterMatcher_StringMatch:
			if !ok || !c.stringMatches(s.StringMatch, v) {
				return false
			}
		default:
			if !ok {
				return false
			}
		}
	}
	return true
}

// stringMatches follows Envoy's StringMatcher; ignore_case folds ASCII letters and does not
// apply to safe_regex.
func (c *Config) stringMatches(sm *matcherv3.StringMatcher, v string) bool {
	fold := func(s string) string {
		if sm.IgnoreCase {
			return lower(s)
		}
		return s
	}
	switch p := sm.MatchPattern.(type) {
	case *matcherv3.StringMatcher_Exact:
		return fold(v) == fold(p.Exact)
	case *matcherv3.StringMatcher_Prefix:
		return strings.HasPrefix(fold(v), fold(p.Prefix))
	case *matcherv3.StringMatcher_Suffix:
		return strings.HasSuffix(fold(v), fold(p.Suffix))
	case *matcherv3.StringMatcher_Contains:
		return strings.Contains(fold(v), fold(p.Contains))
	case *matcherv3.StringMatcher_SafeRegex:
		return c.re[p.SafeRegex.GetRegex()].MatchString(v)
	}
	return false
}

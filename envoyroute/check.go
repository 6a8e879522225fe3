package envoyroute

import (
	"fmt"
	"regexp"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/rlpkit/rlpkit/fielderr"
)

// checker walks a configuration once: it reports what Envoy rejects or rlpkit does not
// model, compiles regular expressions and decodes the rate-limit filters' per-route
// configuration.
type checker struct {
	c    *Config
	errs fielderr.List
}

func (k *checker) fail(p fielderr.Path, format string, a ...any) {
	k.errs = append(k.errs, &fielderr.Error{Pkg: "envoyroute", Field: string(p), Detail: fmt.Sprintf(format, a...)})
}

func (k *checker) err() error { return k.errs.Err() }

func (k *checker) check() {
	rc := k.c.routes
	if rc == nil {
		k.fail("", "no route configuration")
		return
	}
	for i, f := range k.c.filters {
		p := fielderr.Path("http_filters").Index(i)
		if f.Config.GetStage() > 10 {
			k.fail(p.Child("stage"), "stage %d: Envoy accepts 0 to 10", f.Config.GetStage())
		}
		for j, rl := range f.Config.GetRateLimits() {
			k.rateLimit(p.Child("rate_limits").Index(j), rl, nil, false)
		}
	}
	if rc.IgnorePathParametersInPathMatching {
		k.fail("ignore_path_parameters_in_path_matching", "removing path parameters before matching is not modelled")
	}
	if rc.Vhds != nil {
		k.fail("vhds", "virtual hosts discovered on demand are not modelled: give the virtual hosts inline")
	}
	k.c.rcPerFC = k.perFilter("typed_per_filter_config", rc.TypedPerFilterConfig)
	k.c.hosts = k.hostTable(rc)
	for i, vh := range rc.VirtualHosts {
		p := fielderr.Path("virtual_hosts").Index(i)
		if vh.Matcher != nil {
			k.fail(p.Child("matcher"), "a virtual host's matcher tree is not modelled: use routes")
		}
		for j, rl := range vh.RateLimits {
			k.rateLimit(p.Child("rate_limits").Index(j), rl, nil, false)
		}
		k.c.vhPerFC[vh] = k.perFilter(p.Child("typed_per_filter_config"), vh.TypedPerFilterConfig)
		for j, r := range vh.Routes {
			k.route(p.Child("routes").Index(j), r)
		}
	}
}

// perFilter decodes the RateLimitPerRoute of each rate-limit filter in m; entries of other
// filters are not read.
func (k *checker) perFilter(p fielderr.Path, m map[string]*anypb.Any) map[string]*ratelimitv3.RateLimitPerRoute {
	var out map[string]*ratelimitv3.RateLimitPerRoute
	for _, f := range k.c.filters {
		a, ok := m[f.Name]
		if !ok {
			continue
		}
		pr := new(ratelimitv3.RateLimitPerRoute)
		if err := a.UnmarshalTo(pr); err != nil {
			k.fail(p.Key(f.Name), "want a %s: %v", "envoy.extensions.filters.http.ratelimit.v3.RateLimitPerRoute", err)
			continue
		}
		for j, rl := range pr.RateLimits {
			k.rateLimit(p.Key(f.Name).Child("rate_limits").Index(j), rl, nil, true)
		}
		if out == nil {
			out = map[string]*ratelimitv3.RateLimitPerRoute{}
		}
		out[f.Name] = pr
	}
	return out
}

func (k *checker) route(p fielderr.Path, r *routev3.Route) {
	k.match(p.Child("match"), r.Match)
	if pr := k.perFilter(p.Child("typed_per_filter_config"), r.TypedPerFilterConfig); pr != nil {
		k.c.perFC[r] = pr
	}
	ra := r.GetRoute()
	if ra == nil {
		return // redirects and direct responses are not rate-limited
	}
	for j, rl := range ra.RateLimits {
		k.rateLimit(p.Child("route").Child("rate_limits").Index(j), rl, r, false)
	}
	for _, prs := range k.c.perFC[r] {
		for j, rl := range prs.RateLimits {
			k.rateLimit(p.Child("typed_per_filter_config").Child("rate_limits").Index(j), rl, r, true)
		}
	}
}

func (k *checker) match(p fielderr.Path, m *routev3.RouteMatch) {
	if m == nil {
		k.fail(p, "Required value: a route needs a match")
		return
	}
	unmodelled := map[string]bool{"tls_context": m.TlsContext != nil, "runtime_fraction": m.RuntimeFraction != nil,
		"dynamic_metadata": len(m.DynamicMetadata) > 0, "filter_state": len(m.FilterState) > 0, "cookies": len(m.Cookies) > 0}
	for _, name := range []string{"tls_context", "runtime_fraction", "dynamic_metadata", "filter_state", "cookies"} {
		if unmodelled[name] {
			k.fail(p.Child(name), "route matching on %s is not modelled", name)
		}
	}
	switch ps := m.PathSpecifier.(type) {
	case *routev3.RouteMatch_SafeRegex:
		k.regex(p.Child("safe_regex").Child("regex"), ps.SafeRegex.GetRegex())
	case *routev3.RouteMatch_ConnectMatcher_:
		k.fail(p.Child("connect_matcher"), "CONNECT routes are not modelled")
	case *routev3.RouteMatch_PathMatchPolicy:
		k.fail(p.Child("path_match_policy"), "path match policies (URI templates) are not modelled")
	case nil:
		k.fail(p, "Required value: one of prefix, path, safe_regex, path_separated_prefix")
	}
	k.headers(p.Child("headers"), m.Headers)
	for i, q := range m.QueryParameters {
		k.queryMatcher(p.Child("query_parameters").Index(i), q)
	}
}

func (k *checker) headers(p fielderr.Path, hs []*routev3.HeaderMatcher) {
	for i, h := range hs {
		hp := p.Index(i)
		switch s := h.HeaderMatchSpecifier.(type) {
		case *routev3.HeaderMatcher_SafeRegexMatch:
			k.regex(hp.Child("safe_regex_match").Child("regex"), s.SafeRegexMatch.GetRegex())
		case *routev3.HeaderMatcher_StringMatch:
			k.stringMatcher(hp.Child("string_match"), s.StringMatch)
		}
	}
}

func (k *checker) queryMatcher(p fielderr.Path, q *routev3.QueryParameterMatcher) {
	if q.Name == "" {
		k.fail(p.Child("name"), "Required value")
	}
	if sm := q.GetStringMatch(); sm != nil {
		k.stringMatcher(p.Child("string_match"), sm)
	}
}

func (k *checker) stringMatcher(p fielderr.Path, sm *matcherv3.StringMatcher) {
	switch m := sm.MatchPattern.(type) {
	case *matcherv3.StringMatcher_SafeRegex:
		k.regex(p.Child("safe_regex").Child("regex"), m.SafeRegex.GetRegex())
	case *matcherv3.StringMatcher_Custom:
		k.fail(p.Child("custom"), "custom string matchers are not modelled")
	case nil:
		k.fail(p, "Required value: one of exact, prefix, suffix, contains, safe_regex")
	}
}

// regex compiles an RE2 expression to match a whole value, as Envoy's safe_regex does.
func (k *checker) regex(p fielderr.Path, expr string) {
	if _, ok := k.c.re[expr]; ok {
		return
	}
	re, err := regexp.Compile(`^(?:` + expr + `)$`)
	if err != nil {
		k.fail(p, "invalid regular expression %q: %v", expr, err)
		return
	}
	k.c.re[expr] = re
}

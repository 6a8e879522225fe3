package envoyxds

// This file is a small interpreter of the Envoy configuration Translate produces: given a
// request as Envoy's HTTP connection manager hands it to its filters, it picks the virtual
// host and the route as Envoy's router does, and builds the rate-limit service calls as
// Envoy's rate-limit filter does with a RateLimitPerRoute (envoy.filters.http.ratelimit,
// RateLimitConfig). It implements Envoy's semantics independently of package descriptor, and
// refuses, with an error, any configuration element it does not model, so that a translation
// cannot silently use one.

import (
	"fmt"
	"math"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	metadatav3 "github.com/envoyproxy/go-control-plane/envoy/type/metadata/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/rlpkit/rlpkit/descriptor"
)

// envoyRequest is a request as Envoy's filters see it.
type envoyRequest struct {
	authority string
	method    string
	path      string              // :path, query string included; Envoy has removed any fragment
	headers   map[string][]string // lower-case names, values in order
	remote    netip.Addr          // the downstream address; invalid when it is not an IP (a pipe)
	dynamic   map[string]*structpb.Struct
	hits      uint32 // the "envoy.ratelimit.hits_addend" filter state; 0 when unset
}

// rlsCall is one call of a rate-limit filter to its service.
type rlsCall struct {
	Filter      string
	Cluster     string
	Domain      string
	Descriptors []simDescriptor
	HitsAddend  uint32
}

// simDescriptor is one RateLimitDescriptor of a call.
type simDescriptor struct {
	Entries    []descriptor.Entry
	Limit      *descriptor.Override
	HitsAddend *uint64
}

// header returns every value of a lower-case header name; pseudo-headers read the request.
func (r *envoyRequest) header(name string) []string {
	switch name {
	case ":authority":
		return nonEmpty(r.authority)
	case ":method":
		return nonEmpty(r.method)
	case ":path":
		return nonEmpty(r.path)
	}
	return r.headers[name]
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// simulate returns the rate-limit calls Envoy makes for req.
func simulate(out *Output, req *envoyRequest) ([]rlsCall, error) {
	rc := out.RouteConfiguration
	vh, err := findVirtualHost(rc, req.authority)
	if err != nil || vh == nil {
		return nil, err
	}
	var route *routev3.Route
	for _, r := range vh.Routes {
		ok, err := routeMatches(r.Match, req)
		if err != nil {
			return nil, fmt.Errorf("route %q: %w", r.Name, err)
		}
		if ok {
			route = r
			break
		}
	}
	if route == nil || route.GetRoute() == nil {
		return nil, nil // no route entry: the rate-limit filter does nothing
	}
	var calls []rlsCall
	for _, f := range out.HTTPFilters {
		fc := new(ratelimitv3.RateLimit)
		if err := f.GetTypedConfig().UnmarshalTo(fc); err != nil {
			return nil, fmt.Errorf("filter %q: %w", f.Name, err)
		}
		if err := supportedFilter(fc); err != nil {
			return nil, fmt.Errorf("filter %q: %w", f.Name, err)
		}
		var perRoute *ratelimitv3.RateLimitPerRoute
		// The most specific per-filter configuration wins: route, virtual host, route table.
		for _, m := range []map[string]*anypb.Any{route.TypedPerFilterConfig, vh.TypedPerFilterConfig, rc.TypedPerFilterConfig} {
			if a, ok := m[f.Name]; ok {
				perRoute = new(ratelimitv3.RateLimitPerRoute)
				if err := a.UnmarshalTo(perRoute); err != nil {
					return nil, fmt.Errorf("typed_per_filter_config[%q]: %w", f.Name, err)
				}
				break
			}
		}
		var configs []*routev3.RateLimit
		switch {
		case perRoute != nil && len(perRoute.RateLimits) > 0:
			configs = perRoute.RateLimits
		case len(fc.RateLimits) > 0:
			configs = fc.RateLimits
		case len(route.GetRoute().RateLimits) > 0 || len(vh.RateLimits) > 0:
			return nil, fmt.Errorf("route %q: route or virtual host rate_limits are not modelled", route.Name)
		}
		var descs []simDescriptor
		for i, rl := range configs {
			d, ok, err := populate(rl, req, route)
			if err != nil {
				return nil, fmt.Errorf("route %q, rate_limits[%d]: %w", route.Name, i, err)
			}
			if ok {
				descs = append(descs, d)
			}
		}
		if len(descs) == 0 {
			continue // no descriptor: the filter does not call the service
		}
		domain := fc.Domain
		if perRoute != nil && perRoute.Domain != "" {
			domain = perRoute.Domain
		}
		calls = append(calls, rlsCall{
			Filter:      f.Name,
			Cluster:     fc.GetRateLimitService().GetGrpcService().GetEnvoyGrpc().GetClusterName(),
			Domain:      domain,
			Descriptors: descs,
			HitsAddend:  req.hits,
		})
	}
	return calls, nil
}

// supportedFilter refuses filter settings that change when or how descriptors are sent.
func supportedFilter(fc *ratelimitv3.RateLimit) error {
	switch {
	case fc.Stage != 0:
		return fmt.Errorf("stage is not modelled")
	case fc.RequestType != "" && fc.RequestType != "both":
		return fmt.Errorf("request_type is not modelled")
	case fc.FilterEnabled != nil:
		return fmt.Errorf("filter_enabled is not modelled")
	case fc.GetRateLimitService().GetTransportApiVersion() != corev3.ApiVersion_V3:
		return fmt.Errorf("the rate-limit service must use transport API v3")
	}
	return nil
}

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

// populate builds the descriptor of one RateLimit, as Envoy's RateLimitPolicy does; ok is
// false when an action cannot produce its entry or the cost is invalid.
func populate(rl *routev3.RateLimit, req *envoyRequest, route *routev3.Route) (d simDescriptor, ok bool, err error) {
	switch {
	case rl.Stage != nil || rl.DisableKey != "":
		return d, false, fmt.Errorf("stage and disable_key are rejected by Envoy in RateLimitPerRoute")
	case rl.ApplyOnStreamDone:
		return d, false, fmt.Errorf("apply_on_stream_done is not modelled")
	}
	d.Entries = []descriptor.Entry{}
	for i, a := range rl.Actions {
		e, produced, err := actionEntry(a, req, route)
		if err != nil {
			return d, false, fmt.Errorf("actions[%d]: %w", i, err)
		}
		if !produced {
			return d, false, nil
		}
		if e.Key != "" {
			d.Entries = append(d.Entries, e)
		}
	}
	if h := rl.HitsAddend; h != nil {
		switch {
		case h.IsNegativeHits:
			return d, false, fmt.Errorf("is_negative_hits is not modelled")
		case h.Format != "":
			n, valid, err := formatHits(h.Format, req)
			if err != nil || !valid {
				return d, false, err // an invalid cost drops the descriptor
			}
			d.HitsAddend = &n
		case h.Number != nil:
			n := h.Number.Value
			d.HitsAddend = &n
		}
	}
	if rl.Limit != nil {
		dm := rl.Limit.GetDynamicMetadata()
		if dm == nil {
			return d, false, fmt.Errorf("limit override source %T is not modelled", rl.Limit.OverrideSpecifier)
		}
		o, err := override(lookupMetadata(req.dynamic, dm.MetadataKey))
		if err != nil {
			return d, false, err
		}
		d.Limit = o
	}
	return d, true, nil
}

// actionEntry evaluates one action: the entry (whose empty key means "append nothing") and
// whether the descriptor can still be built.
func actionEntry(a *routev3.RateLimit_Action, req *envoyRequest, route *routev3.Route) (descriptor.Entry, bool, error) {
	switch s := a.ActionSpecifier.(type) {
	case *routev3.RateLimit_Action_GenericKey_:
		key := s.GenericKey.DescriptorKey
		if key == "" {
			key = "generic_key"
		}
		return descriptor.Entry{Key: key, Value: s.GenericKey.DescriptorValue}, true, nil
	case *routev3.RateLimit_Action_RequestHeaders_:
		vs := req.header(strings.ToLower(s.RequestHeaders.HeaderName))
		if len(vs) == 0 {
			return descriptor.Entry{}, s.RequestHeaders.SkipIfAbsent, nil
		}
		return descriptor.Entry{Key: s.RequestHeaders.DescriptorKey, Value: vs[0]}, true, nil
	case *routev3.RateLimit_Action_RemoteAddress_:
		if !req.remote.IsValid() {
			return descriptor.Entry{}, false, nil
		}
		return descriptor.Entry{Key: "remote_address", Value: req.remote.String()}, true, nil
	case *routev3.RateLimit_Action_Metadata:
		m := s.Metadata
		var source map[string]*structpb.Struct
		switch m.Source {
		case routev3.RateLimit_Action_MetaData_DYNAMIC:
			source = req.dynamic
		case routev3.RateLimit_Action_MetaData_ROUTE_ENTRY:
			source = route.GetMetadata().GetFilterMetadata()
		default:
			return descriptor.Entry{}, false, fmt.Errorf("metadata source %v is not modelled", m.Source)
		}
		if v := lookupMetadata(source, m.MetadataKey).GetStringValue(); v != "" {
			return descriptor.Entry{Key: m.DescriptorKey, Value: v}, true, nil
		}
		if m.DefaultValue != "" {
			return descriptor.Entry{Key: m.DescriptorKey, Value: m.DefaultValue}, true, nil
		}
		return descriptor.Entry{}, m.SkipIfAbsent, nil
	case *routev3.RateLimit_Action_HeaderValueMatch_:
		h := s.HeaderValueMatch
		expect := h.ExpectMatch == nil || h.ExpectMatch.Value
		matched, err := headersMatch(h.Headers, req)
		if err != nil || matched != expect {
			return descriptor.Entry{}, false, err
		}
		key := h.DescriptorKey
		if key == "" {
			key = "header_match"
		}
		return descriptor.Entry{Key: key, Value: h.DescriptorValue}, true, nil
	}
	return descriptor.Entry{}, false, fmt.Errorf("action %T is not modelled", a.ActionSpecifier)
}

// lookupMetadata follows Envoy's Config::Metadata::metadataValue: the struct of the
// namespace, then one struct field per path segment; nil when anything is missing.
func lookupMetadata(md map[string]*structpb.Struct, key *metadatav3.MetadataKey) *structpb.Value {
	s, ok := md[key.Key]
	if !ok {
		return nil
	}
	var v *structpb.Value
	for i, seg := range key.Path {
		if i > 0 {
			if s = v.GetStructValue(); s == nil {
				return nil
			}
		}
		if v, ok = s.Fields[seg.GetKey()]; !ok {
			return nil
		}
	}
	return v
}

// override follows Envoy's DynamicMetadataRateLimitOverride: a struct with a number
// requests_per_unit and a string unit naming a RateLimitUnit; anything else is no override.
func override(v *structpb.Value) (*descriptor.Override, error) {
	fields := v.GetStructValue().GetFields()
	n, okN := fields["requests_per_unit"].GetKind().(*structpb.Value_NumberValue)
	u, okU := fields["unit"].GetKind().(*structpb.Value_StringValue)
	if !okN || !okU {
		return nil, nil
	}
	unit, ok := typev3.RateLimitUnit_value[u.StringValue]
	if !ok {
		return nil, nil
	}
	if f := n.NumberValue; f < 0 || f >= 1<<32 || math.IsNaN(f) {
		return nil, fmt.Errorf("requests_per_unit %v: Envoy's conversion to uint32 is undefined", f)
	}
	return &descriptor.Override{RequestsPerUnit: uint32(n.NumberValue), Unit: descriptor.Unit(unit)}, nil
}

// formatHits evaluates a hits_addend format of the one form Translate writes,
// "%DYNAMIC_METADATA(namespace:key...)%", as Envoy's RateLimitPolicy does: a number, or a
// string parsed as a number, from 0 to 1e9, truncated; anything else is invalid.
func formatHits(format string, req *envoyRequest) (uint64, bool, error) {
	args, ok := strings.CutPrefix(format, "%DYNAMIC_METADATA(")
	if args, ok = strings.CutSuffix(args, ")%"); !ok || strings.ContainsAny(args, ")%") {
		return 0, false, fmt.Errorf("format %q is not modelled", format)
	}
	parts := strings.Split(args, ":")
	key := &metadatav3.MetadataKey{Key: parts[0]}
	for _, p := range parts[1:] {
		key.Path = append(key.Path, &metadatav3.MetadataKey_PathSegment{Segment: &metadatav3.MetadataKey_PathSegment_Key{Key: p}})
	}
	var f float64
	switch k := lookupMetadata(req.dynamic, key).GetKind().(type) {
	case *structpb.Value_NumberValue:
		f = k.NumberValue
	case *structpb.Value_StringValue:
		// absl::SimpleAtod; strconv.ParseFloat agrees with it on the inputs the tests use.
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(k.StringValue), 64); err != nil {
			return 0, false, nil
		}
	default:
		return 0, false, nil
	}
	if math.IsNaN(f) {
		return 0, false, fmt.Errorf("a NaN cost is undefined in Envoy")
	}
	if f < 0 || f > MaxHitsAddend {
		return 0, false, nil
	}
	return uint64(f), true, nil
}

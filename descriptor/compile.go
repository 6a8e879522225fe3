package descriptor

import (
	"cmp"
	"net/netip"
	"regexp"
	"strings"

	"github.com/rlpkit/rlpkit/fielderr"
	"github.com/rlpkit/rlpkit/hostindex"
)

// Engine generates descriptors for requests. It is immutable and safe for concurrent use.
// Build one with Compile.
type Engine struct {
	policies        []policy
	hosts           *hostindex.Index[int]
	failureModeDeny bool
}

// Compile validates cfg and pre-computes everything generation needs: the hostname index,
// lower-cased header names, compiled regular expressions and buffer sizes. It returns a
// fielderr.List when cfg is invalid. The Engine keeps no reference to cfg.
func Compile(cfg *PluginConfig) (*Engine, error) {
	if err := Validate(cfg); err != nil {
		return nil, err
	}
	e := &Engine{
		hosts:           hostindex.New[int](),
		failureModeDeny: cfg.FailureModeDeny != nil && *cfg.FailureModeDeny,
	}
	for i := range cfg.RateLimitPolicies {
		src := &cfg.RateLimitPolicies[i]
		for _, h := range src.Hostnames {
			if err := e.hosts.Add(h, i); err != nil { // validated above; kept for safety
				return nil, fielderr.List{{Pkg: pkg, Field: string(path("rateLimitPolicies").Index(i).Child("hostnames")), Detail: err.Error()}}
			}
		}
		e.policies = append(e.policies, compilePolicy(i, src))
	}
	return e, nil
}

// FailureModeDeny reports whether traffic is denied when the rate-limit service fails.
func (e *Engine) FailureModeDeny() bool { return e.failureModeDeny }

// NumPolicies returns the number of policies.
func (e *Engine) NumPolicies() int { return len(e.policies) }

// PolicyInfo describes one compiled policy.
type PolicyInfo struct {
	// Name is the policy's name (possibly empty).
	Name string
	// RateLimitDomain is the domain sent with its descriptors.
	RateLimitDomain string
	// UpstreamCluster is the Envoy cluster of the rate-limit service.
	UpstreamCluster string
}

// Policy returns what the engine knows of policy i (0 <= i < NumPolicies()).
func (e *Engine) Policy(i int) PolicyInfo {
	p := &e.policies[i]
	return PolicyInfo{Name: p.name, RateLimitDomain: p.domain, UpstreamCluster: p.upstream}
}

type policy struct {
	index          int
	name           string
	domain         string
	upstream       string
	routeMatches   []routeMatch
	actions        []gatewayAction
	maxDescriptors int
	maxEntries     int
	maxOverrides   int
	maxHits        int
}

type gatewayAction struct {
	rules   []rule
	configs []configuration
}

type rule struct {
	paths   []rulePath
	methods []string
	hosts   []hostPattern
}

type rulePath struct {
	value  string
	prefix bool
}

// hostPattern is an exact host, or with wildcard set, a suffix starting with ".".
type hostPattern struct {
	value    string
	wildcard bool
}

type configuration struct {
	actions []action
	limit   *metadataRef
	hits    hitsSource
}

type hitsKind uint8

const (
	hitsNone hitsKind = iota
	hitsNumber
	hitsMetadata
	hitsResponseBody
)

type hitsSource struct {
	kind    hitsKind
	number  uint64
	meta    metadataRef
	pointer string // JSON pointer into the response body
}

type metadataRef struct {
	source    MetadataSource
	namespace string
	path      []string
}

type actionKind uint8

const (
	actGenericKey actionKind = iota
	actRequestHeaders
	actRemoteAddress
	actMetadata
	actHeaderValueMatch
	actRemoteAddressMatch
	actQueryValueMatch
	actQueryParameters
)

type action struct {
	kind         actionKind
	key          string // descriptor key
	value        string // generic_key and header_value_match value, metadata default
	header       string // request_headers: lower-case header name
	skipIfAbsent bool
	meta         metadataRef
	expectMatch  bool
	matchers     []headerMatcher
	param        string         // query_parameters: the parameter's name
	ranges       []netip.Prefix // remote_address_match
	invert       bool           // remote_address_match: invert_match
	queries      []queryMatcher // query_parameter_value_match
}

// queryMatcher is a compiled QueryParameterMatcher: a header matcher over a parameter's
// value.
type queryMatcher struct {
	name string
	m    headerMatcher
}

type matchKind uint8

const (
	matchExact matchKind = iota
	matchPrefix
	matchSuffix
	matchContains
	matchPresent
	matchRegex
)

type headerMatcher struct {
	name    string // lower-case
	kind    matchKind
	value   string
	present bool
	re      *regexp.Regexp
	invert  bool
	strict  bool // an empty exact value matches only an empty value (query parameters)
}

type routeMatch struct {
	hasPath   bool
	pathExact bool
	path      string // for PathPrefix: without its trailing "/"
	method    string
	headers   []routeHeader
}

type routeHeader struct {
	name  string // lower-case
	value string
	re    *regexp.Regexp
}

func compilePolicy(i int, src *Policy) policy {
	p := policy{index: i, name: src.Name, domain: src.RateLimitDomain, upstream: src.UpstreamCluster}
	for _, m := range src.RouteMatches {
		p.routeMatches = append(p.routeMatches, compileRouteMatch(m))
	}
	for _, ga := range src.GatewayActions {
		var cga gatewayAction
		for _, r := range ga.Rules {
			cga.rules = append(cga.rules, compileRule(r))
		}
		for _, c := range ga.Configurations {
			cc := compileConfiguration(c)
			p.maxDescriptors++
			p.maxEntries += len(cc.actions)
			if cc.limit != nil {
				p.maxOverrides++
			}
			if cc.hits.kind != hitsNone {
				p.maxHits++
			}
			cga.configs = append(cga.configs, cc)
		}
		p.actions = append(p.actions, cga)
	}
	return p
}

func compileRule(r Rule) rule {
	var cr rule
	for _, v := range r.Paths {
		if prefix, ok := strings.CutSuffix(v, "*"); ok {
			cr.paths = append(cr.paths, rulePath{value: prefix, prefix: true})
		} else {
			cr.paths = append(cr.paths, rulePath{value: v})
		}
	}
	cr.methods = r.Methods
	for _, h := range r.Hosts {
		h = strings.ToLower(strings.TrimSuffix(h, "."))
		if rest, ok := strings.CutPrefix(h, "*"); ok {
			cr.hosts = append(cr.hosts, hostPattern{value: rest, wildcard: true})
		} else {
			cr.hosts = append(cr.hosts, hostPattern{value: h})
		}
	}
	return cr
}

func compileConfiguration(c Configuration) configuration {
	var cc configuration
	for _, a := range c.Actions {
		cc.actions = append(cc.actions, compileAction(a))
	}
	if c.Limit != nil {
		ref := compileMetadataKey(MetadataDynamic, c.Limit.DynamicMetadata.MetadataKey)
		cc.limit = &ref
	}
	if h := c.HitsAddend; h != nil {
		switch {
		case h.Number != nil:
			cc.hits = hitsSource{kind: hitsNumber, number: *h.Number}
		case h.ResponseBody != nil:
			cc.hits = hitsSource{kind: hitsResponseBody, pointer: h.ResponseBody.JSONPointer}
		default:
			cc.hits = hitsSource{kind: hitsMetadata, meta: compileMetadataKey(MetadataDynamic, h.DynamicMetadata.MetadataKey)}
		}
	}
	return cc
}

func compileMetadataKey(src MetadataSource, k MetadataKey) metadataRef {
	if src == "" {
		src = MetadataDynamic
	}
	ref := metadataRef{source: src, namespace: k.Key}
	for _, s := range k.Path {
		ref.path = append(ref.path, s.Key)
	}
	return ref
}

func compileAction(a Action) action {
	switch {
	case a.GenericKey != nil:
		key := a.GenericKey.DescriptorKey
		if key == "" {
			key = "generic_key"
		}
		return action{kind: actGenericKey, key: key, value: a.GenericKey.DescriptorValue}
	case a.RequestHeaders != nil:
		return action{
			kind:         actRequestHeaders,
			key:          a.RequestHeaders.DescriptorKey,
			header:       strings.ToLower(a.RequestHeaders.HeaderName),
			skipIfAbsent: a.RequestHeaders.SkipIfAbsent,
		}
	case a.RemoteAddress != nil:
		return action{kind: actRemoteAddress, key: "remote_address"}
	case a.Metadata != nil:
		return action{
			kind:         actMetadata,
			key:          a.Metadata.DescriptorKey,
			value:        a.Metadata.DefaultValue,
			skipIfAbsent: a.Metadata.SkipIfAbsent,
			meta:         compileMetadataKey(a.Metadata.Source, a.Metadata.MetadataKey),
		}
	case a.RemoteAddressMatch != nil:
		return compileRemoteAddressMatch(a.RemoteAddressMatch)
	case a.QueryParameterValueMatch != nil:
		q := a.QueryParameterValueMatch
		ca := action{kind: actQueryValueMatch, key: cmp.Or(q.DescriptorKey, "query_match"), value: q.DescriptorValue, expectMatch: q.ExpectMatch == nil || *q.ExpectMatch}
		for _, m := range q.QueryParameters {
			hm := compileHeaderMatcher(HeaderMatcher{
				ExactMatch: m.ExactMatch, PrefixMatch: m.PrefixMatch, SuffixMatch: m.SuffixMatch, ContainsMatch: m.ContainsMatch,
				SafeRegexMatch: m.SafeRegexMatch, PresentMatch: m.PresentMatch,
			})
			hm.strict = true
			ca.queries = append(ca.queries, queryMatcher{name: m.Name, m: hm})
		}
		return ca
	case a.QueryParameters != nil:
		q := a.QueryParameters
		return action{kind: actQueryParameters, key: q.DescriptorKey, param: q.QueryParameterName, skipIfAbsent: q.SkipIfAbsent}
	default: // header_value_match; Validate guarantees exactly one type is set
		hvm := a.HeaderValueMatch
		key := hvm.DescriptorKey
		if key == "" {
			key = "header_match"
		}
		ca := action{kind: actHeaderValueMatch, key: key, value: hvm.DescriptorValue, expectMatch: hvm.ExpectMatch == nil || *hvm.ExpectMatch}
		for _, h := range hvm.Headers {
			ca.matchers = append(ca.matchers, compileHeaderMatcher(h))
		}
		return ca
	}
}

func compileRemoteAddressMatch(r *RemoteAddressMatch) action {
	ca := action{kind: actRemoteAddressMatch, key: cmp.Or(r.DescriptorKey, "remote_address_match"), value: r.DescriptorValue, invert: r.AddressMatcher.InvertMatch}
	for _, cr := range r.AddressMatcher.Ranges {
		addr, _ := netip.ParseAddr(cr.AddressPrefix) // validated
		if p, err := addr.Prefix(int(cr.PrefixLen)); err == nil {
			ca.ranges = append(ca.ranges, p)
		}
	}
	return ca
}

func compileHeaderMatcher(h HeaderMatcher) headerMatcher {
	m := headerMatcher{name: strings.ToLower(h.Name), invert: h.InvertMatch}
	switch {
	case h.ExactMatch != nil:
		m.kind, m.value = matchExact, *h.ExactMatch
	case h.PrefixMatch != nil:
		m.kind, m.value = matchPrefix, *h.PrefixMatch
	case h.SuffixMatch != nil:
		m.kind, m.value = matchSuffix, *h.SuffixMatch
	case h.ContainsMatch != nil:
		m.kind, m.value = matchContains, *h.ContainsMatch
	case h.SafeRegexMatch != nil:
		m.kind, m.re = matchRegex, mustCompileAnchored(h.SafeRegexMatch.Regex)
	case h.PresentMatch != nil:
		m.kind, m.present = matchPresent, *h.PresentMatch
	default: // no match type: presence, as in Envoy
		m.kind, m.present = matchPresent, true
	}
	return m
}

func compileRouteMatch(m RouteMatch) routeMatch {
	rm := routeMatch{method: m.Method}
	if m.Path != nil {
		v := m.Path.Value
		if v == "" {
			v = "/"
		}
		if m.Path.Type == PathMatchExact {
			rm.hasPath, rm.pathExact, rm.path = true, true, v
		} else if v = strings.TrimRight(v, "/"); v != "" {
			rm.hasPath, rm.path = true, v
		}
	}
	for _, h := range m.Headers {
		rh := routeHeader{name: strings.ToLower(h.Name), value: h.Value}
		if h.Type == HeaderMatchRegularExpression {
			rh.re = mustCompileAnchored(h.Value)
		}
		rm.headers = append(rm.headers, rh)
	}
	return rm
}

// mustCompileAnchored compiles a validated expression so that it must match a whole value.
func mustCompileAnchored(expr string) *regexp.Regexp {
	return regexp.MustCompile(`^(?:` + expr + `)$`)
}

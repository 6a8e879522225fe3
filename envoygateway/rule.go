package envoygateway

import (
	"errors"
	"fmt"
	"math"
	"net"
	"regexp"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy/egv1alpha1"
)

// Rule is one rate-limit rule as Envoy Gateway translates it: what it matches, its limit
// and its costs, under the name that keys it.
type Rule struct {
	// Name is "<policy namespace>/<policy name>/rule/<index>", the index in the policy's
	// global (or local) rules.
	Name string
	// Policy is the "namespace/name" of the policy that wrote the rule; Index its index
	// there.
	Policy string
	Index  int
	// Headers, Methods, Path, CIDR and Query are the client selectors, added up over the
	// rule's selectors (for path and sourceCIDR the last selector's wins).
	Headers []StringMatch
	Methods []StringMatch
	Path    *StringMatch
	CIDR    *CIDRMatch
	Query   []StringMatch
	// Requests per Unit is the limit; FromMetadata, when set, names the dynamic metadata
	// that holds a request's own limit.
	Requests     uint32
	Unit         egv1alpha1.RateLimitUnit
	FromMetadata *egv1alpha1.RateLimitValueMetadata
	// RequestCost and ResponseCost are the costs; nil is the default (1 on the request,
	// nothing on the response).
	RequestCost, ResponseCost *Cost
	// Shared, ShadowMode and XRateLimitHeaders are the rule's settings.
	Shared, ShadowMode bool
	XRateLimitHeaders  *egv1alpha1.XRateLimitHeadersOption
}

// StringMatch is a match of a header, the method, the path or a query parameter. Exactly
// one of Exact, Prefix and Regex is set, unless Distinct.
type StringMatch struct {
	// Name is the header or parameter name; empty for a method or the path.
	Name string
	// Exact, Prefix, Suffix and Regex are the match.
	Exact, Prefix, Suffix, Regex *string
	// Distinct takes the value itself into the descriptor.
	Distinct bool
	// Invert matches what the match does not.
	Invert bool

	re *regexp.Regexp // Regex, compiled
}

// CIDRMatch is a source address match.
type CIDRMatch struct {
	// CIDR is the normalised range: "172.16.8.0/22", "2001:db8:abcd::/48".
	CIDR string
	// Prefix is the range; Distinct gives every address its own counter; Invert matches
	// the addresses outside.
	Prefix   *net.IPNet
	Distinct bool
	Invert   bool
}

// Cost is a request or response cost: a number, or the dynamic metadata holding one.
type Cost struct {
	Number   *uint64
	Metadata *egv1alpha1.RateLimitCostMetadata
}

// set reports whether the cost says anything: Envoy Gateway writes an empty hits_addend for
// "from: Number" without a number, which costs the default.
func (c *Cost) set() bool { return c.Number != nil || c.Metadata != nil }

// Format returns the cost's Envoy substitution format, "" for a number.
func (c *Cost) Format() string {
	if c.Metadata == nil {
		return ""
	}
	return fmt.Sprintf("%%DYNAMIC_METADATA(%s:%s)%%", c.Metadata.Namespace, c.Metadata.Key)
}

// matchSet reports whether the rule has any client selector.
func (r *Rule) matchSet() bool {
	return len(r.Headers) > 0 || r.Path != nil || len(r.Methods) > 0 || r.CIDR != nil || len(r.Query) > 0
}

// ruleName returns the name Envoy Gateway gives rule i of a policy.
func ruleName(policy string, i int) string { return fmt.Sprintf("%s/rule/%d", policy, i) }

// buildRule translates one rule, or returns the error Envoy Gateway reports for it.
func buildRule(r *egv1alpha1.RateLimitRule) (*Rule, error) {
	out := &Rule{
		Requests: r.Limit.Requests, Unit: r.Limit.Unit, FromMetadata: r.Limit.FromMetadata,
		Shared: r.Shared != nil && *r.Shared, ShadowMode: r.ShadowMode != nil && *r.ShadowMode,
		XRateLimitHeaders: r.XRateLimitHeaders,
	}
	for _, sel := range r.ClientSelectors {
		if len(sel.Headers) == 0 && len(sel.Methods) == 0 && sel.Path == nil && sel.SourceCIDR == nil && len(sel.QueryParams) == 0 {
			return nil, errors.New("unable to translate rateLimit. At least one of the header or method or path or sourceCIDR or queryParameters must be specified")
		}
		for _, h := range sel.Headers {
			m, err := headerMatch(h)
			if err != nil {
				return nil, err
			}
			out.Headers = append(out.Headers, m)
		}
		for _, m := range sel.Methods {
			v := string(m.Value)
			out.Methods = append(out.Methods, StringMatch{Exact: &v, Invert: m.Invert != nil && *m.Invert})
		}
		if sel.Path != nil {
			p, err := pathMatch(sel.Path)
			if err != nil {
				return nil, err
			}
			out.Path = p
		}
		if sel.SourceCIDR != nil {
			c, err := cidrMatch(sel.SourceCIDR)
			if err != nil {
				return nil, err
			}
			out.CIDR = c
		}
		for _, q := range sel.QueryParams {
			m, err := queryMatch(q)
			if err != nil {
				return nil, err
			}
			out.Query = append(out.Query, m)
		}
	}
	if c := r.Cost; c != nil {
		out.RequestCost, out.ResponseCost = cost(c.Request), cost(c.Response)
	}
	return out, nil
}

func cost(c *egv1alpha1.RateLimitCostSpecifier) *Cost {
	if c == nil {
		return nil
	}
	return &Cost{Number: c.Number, Metadata: c.Metadata}
}

func validRegex(s string) error {
	if _, err := regexp.Compile(s); err != nil {
		return fmt.Errorf("regex %q is invalid: %w", s, err)
	}
	return nil
}

func headerMatch(h egv1alpha1.HeaderMatch) (StringMatch, error) {
	m := StringMatch{Name: h.Name, Invert: h.Invert != nil && *h.Invert}
	switch t := h.MatchType(); {
	case t == egv1alpha1.HeaderMatchExact && h.Value != nil:
		m.Exact = h.Value
	case t == egv1alpha1.HeaderMatchRegularExpression && h.Value != nil:
		if err := validRegex(*h.Value); err != nil {
			return m, err
		}
		m.Regex = h.Value
		m.compile()
	case t == egv1alpha1.HeaderMatchDistinct && h.Value == nil:
		if m.Invert {
			return m, errors.New("unable to translate rateLimit.Invert is not applicable for distinct header match type")
		}
		m.Invert, m.Distinct = false, true
	default:
		return m, errors.New("unable to translate rateLimit. Either the header.Type is not valid or the header is missing a value")
	}
	return m, nil
}

func queryMatch(q egv1alpha1.QueryParamMatch) (StringMatch, error) {
	m := StringMatch{Name: q.Name, Invert: q.Invert != nil && *q.Invert}
	if q.Name == "" {
		return m, errors.New("name is required when QueryParamMatch is specified")
	}
	switch t := q.MatchType(); t {
	case egv1alpha1.HeaderMatchExact:
		if q.Value == nil || *q.Value == "" {
			return m, errors.New("value is required for Exact query parameter match")
		}
		m.Exact = q.Value
	case egv1alpha1.HeaderMatchRegularExpression:
		if q.Value == nil || *q.Value == "" {
			return m, errors.New("value is required for RegularExpression query parameter match")
		}
		if err := validRegex(*q.Value); err != nil {
			return m, err
		}
		m.Regex = q.Value
		m.compile()
	case egv1alpha1.HeaderMatchDistinct:
		if m.Invert {
			return m, errors.New("unable to translate rateLimit.Invert is not applicable for distinct query parameter match type")
		}
		if q.Value != nil {
			return m, errors.New("unable to translate rateLimit.Value is not applicable for distinct query parameter match type")
		}
		m.Distinct = true
	default:
		return m, fmt.Errorf("invalid query parameter match type: %s", t)
	}
	return m, nil
}

func pathMatch(p *egv1alpha1.PathMatch) (*StringMatch, error) {
	m := &StringMatch{Invert: p.Invert != nil && *p.Invert}
	v := p.Value
	switch p.MatchType() {
	case gatewayv1.PathMatchPathPrefix:
		if v == "/" {
			m.Prefix = &v
		} else {
			re := pathSeparatedPrefixRegex(v)
			m.Regex = &re
		}
	case gatewayv1.PathMatchExact:
		m.Exact = &v
	case gatewayv1.PathMatchRegularExpression:
		if err := validRegex(v); err != nil {
			return nil, err
		}
		m.Regex = &v
	default:
		return nil, errors.New("unable to translate rateLimit: invalid path type.")
	}
	m.compile()
	return m, nil
}

// pathSeparatedPrefixRegex is the regular expression Envoy Gateway matches a path prefix
// with in rate-limit actions: the prefix without its trailing slash, then a separator or
// the end.
func pathSeparatedPrefixRegex(prefix string) string {
	return "^" + regexp.QuoteMeta(strings.TrimSuffix(prefix, "/")) + `(/.*|\?.*|#.*|;.*|$)`
}

func cidrMatch(s *egv1alpha1.SourceMatch) (*CIDRMatch, error) {
	_, ipn, err := net.ParseCIDR(s.Value)
	if err != nil {
		return nil, fmt.Errorf("unable to translate rateLimit: %w", err)
	}
	return &CIDRMatch{
		CIDR: ipn.String(), Prefix: ipn,
		Distinct: s.MatchType() == egv1alpha1.SourceMatchDistinct,
		Invert:   s.Invert != nil && *s.Invert,
	}, nil
}

// Local is a route's local rate limit: the default token bucket and the rules with
// client selectors.
type Local struct {
	// Requests per Unit is the default bucket (uint32 max per second when no rule lacks
	// client selectors); XRateLimitHeaders the default rule's setting.
	Requests          uint32
	Unit              egv1alpha1.RateLimitUnit
	XRateLimitHeaders *egv1alpha1.XRateLimitHeadersOption
	// Rules are the rules with client selectors, in order.
	Rules []*Rule
}

// RateLimit is the rate limits a route takes from its policies.
type RateLimit struct {
	// Global are the rules the rate-limit service counts, in order; nil when none.
	Global []*Rule
	// HasGlobal reports whether a global rate limit is set (possibly without rules).
	HasGlobal bool
	// Local is the local rate limit; nil when none.
	Local *Local
}

// buildRateLimit translates a policy's rate limits as Envoy Gateway does, the rules named
// after the policy; nil when it sets none.
func buildRateLimit(name string, rl *egv1alpha1.RateLimitSpec) (*RateLimit, error) {
	if rl == nil {
		return nil, nil
	}
	out := &RateLimit{}
	global, local := rl.Global != nil, rl.Local != nil
	if rl.Type != nil {
		switch *rl.Type {
		case egv1alpha1.GlobalRateLimitType:
			if !global {
				return nil, errors.New("global configuration empty for rateLimit")
			}
			local = false
		case egv1alpha1.LocalRateLimitType:
			if !local {
				return nil, errors.New("local configuration empty for rateLimit")
			}
			global = false
		default:
			return nil, fmt.Errorf("invalid rateLimit type: %s", *rl.Type)
		}
	}
	if local {
		l, err := buildLocal(name, rl.Local)
		if err != nil {
			return nil, err
		}
		out.Local = l
	}
	if global {
		out.HasGlobal = true
		for i := range rl.Global.Rules {
			r, err := buildRule(&rl.Global.Rules[i])
			if err != nil {
				return nil, err
			}
			r.Name, r.Policy, r.Index = ruleName(name, i), name, i
			out.Global = append(out.Global, r)
		}
	}
	return out, nil
}

func buildLocal(name string, l *egv1alpha1.LocalRateLimit) (*Local, error) {
	out := &Local{Requests: math.MaxUint32, Unit: egv1alpha1.RateLimitUnitSecond}
	found := false
	for _, r := range l.Rules {
		if len(r.ClientSelectors) > 0 {
			continue
		}
		if found {
			return nil, errors.New("local rateLimit can not have more than one rule without clientSelectors")
		}
		found = true
		out.Requests, out.Unit, out.XRateLimitHeaders = r.Limit.Requests, r.Limit.Unit, r.XRateLimitHeaders
	}
	def := out.Unit.Seconds()
	for _, r := range l.Rules {
		if def == 0 || r.Limit.Unit.Seconds()%def != 0 {
			return nil, errors.New("local rateLimit rule limit unit must be a multiple of the default limit unit")
		}
	}
	for i := range l.Rules {
		if len(l.Rules[i].ClientSelectors) == 0 {
			continue
		}
		r, err := buildRule(&l.Rules[i])
		if err != nil {
			return nil, err
		}
		r.Name, r.Policy, r.Index = ruleName(name, i), name, i
		out.Rules = append(out.Rules, r)
	}
	return out, nil
}

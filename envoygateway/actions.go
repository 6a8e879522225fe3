package envoygateway

import (
	"strconv"

	xdscorev3 "github.com/cncf/xds/go/xds/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	metadatav3 "github.com/envoyproxy/go-control-plane/envoy/type/metadata/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/rlpkit/rlpkit/policy/egv1alpha1"
)

// The descriptor keys Envoy Gateway gives source address matches.
const (
	keyMaskedRemoteAddress = "masked_remote_address"
	keyRemoteAddress       = "remote_address"
	invertPrefix           = "invert:"
	remoteAddressFormat    = "%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%"
)

func matchKey(rule, match int) string {
	return "rule-" + strconv.Itoa(rule) + "-match-" + strconv.Itoa(match)
}
func methodKey(rule int) string { return "rule-" + strconv.Itoa(rule) + "-method" }
func pathKey(rule int) string   { return "rule-" + strconv.Itoa(rule) + "-path" }

// domainOf returns the domain of a rule on a listener: the listener's, or for a shared rule
// its policy's ("namespace/name").
func domainOf(r *Rule, listener string) string {
	if r.Shared {
		return r.Policy
	}
	return listener
}

// outerKey returns the key (and value) of a rule's first descriptor entry on a route: the
// route's name, or for a shared rule the rule's name.
func outerKey(r *Rule, route string) string {
	if r.Shared {
		return r.Name
	}
	return route
}

// domainIndex returns the index of rule i among the rules of rules with its shared setting.
func domainIndex(rules []*Rule, i int) int {
	n := 0
	for _, r := range rules[:i] {
		if r.Shared == rules[i].Shared {
			n++
		}
	}
	return n
}

// routeActions returns the rate limits of a route's global rules, by domain, as Envoy
// Gateway writes them: per rule one RateLimit (one per method when it matches methods), and
// a copy applied on stream done when it has a response cost.
func routeActions(route, listener string, rules []*Rule) map[string][]*routev3.RateLimit {
	out := map[string][]*routev3.RateLimit{}
	for i, r := range rules {
		d := domainIndex(rules, i)
		domain := domainOf(r, listener)
		methods := r.Methods
		if len(methods) == 0 {
			methods = []StringMatch{{}}
		}
		for mi := range methods {
			var method *StringMatch
			if len(r.Methods) > 0 {
				method = &methods[mi]
			}
			key := outerKey(r, route)
			actions := []*routev3.RateLimit_Action{genericKey(key, key)}
			actions = append(actions, ruleActions(r, d, method, keyMaskedRemoteAddress, keyRemoteAddress)...)
			if !r.matchSet() {
				actions = append(actions, genericKey(matchKey(d, -1), matchKey(d, -1)))
			}
			rl := &routev3.RateLimit{Actions: actions, XRatelimitOption: xRateLimitOption(r.XRateLimitHeaders)}
			if md := r.FromMetadata; md != nil {
				rl.Limit = &routev3.RateLimit_Override{OverrideSpecifier: &routev3.RateLimit_Override_DynamicMetadata_{
					DynamicMetadata: &routev3.RateLimit_Override_DynamicMetadata{MetadataKey: &metadatav3.MetadataKey{
						Key: md.Namespace, Path: []*metadatav3.MetadataKey_PathSegment{{Segment: &metadatav3.MetadataKey_PathSegment_Key{Key: md.Key}}},
					}},
				}}
			}
			if r.RequestCost != nil {
				rl.HitsAddend = hitsAddend(r.RequestCost)
			}
			out[domain] = append(out[domain], rl)
			if r.ResponseCost != nil {
				out[domain] = append(out[domain], &routev3.RateLimit{
					Actions: actions, ApplyOnStreamDone: true, XRatelimitOption: rl.XRatelimitOption,
					HitsAddend: hitsAddend(r.ResponseCost), Limit: rl.Limit,
				})
			}
		}
	}
	return out
}

// ruleActions returns the actions of a rule's selectors, in Envoy Gateway's order:
// headers, the method, the path, the source address, query parameters. masked and remote
// are the keys of the source address entries.
func ruleActions(r *Rule, d int, method *StringMatch, masked, remote string) []*routev3.RateLimit_Action {
	var out []*routev3.RateLimit_Action
	for mi, h := range r.Headers {
		key := matchKey(d, mi)
		if h.Distinct {
			out = append(out, &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_RequestHeaders_{
				RequestHeaders: &routev3.RateLimit_Action_RequestHeaders{HeaderName: h.Name, DescriptorKey: key},
			}})
			continue
		}
		out = append(out, headerValueMatch(key, h.Name, h))
	}
	if method != nil {
		out = append(out, headerValueMatch(methodKey(d), ":method", *method))
	}
	if r.Path != nil {
		out = append(out, headerValueMatch(pathKey(d), ":path", *r.Path))
	}
	if c := r.CIDR; c != nil {
		out = append(out, remoteAddressMatch(masked, cidrValue(c), c))
		if c.Distinct {
			out = append(out, remoteAddressMatch(remote, remoteAddressFormat, c))
		}
	}
	for qi, q := range r.Query {
		key := matchKey(d, len(r.Headers)+qi)
		if q.Distinct {
			out = append(out, &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_QueryParameters_{
				QueryParameters: &routev3.RateLimit_Action_QueryParameters{QueryParameterName: q.Name, DescriptorKey: key},
			}})
			continue
		}
		out = append(out, &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_QueryParameterValueMatch_{
			QueryParameterValueMatch: &routev3.RateLimit_Action_QueryParameterValueMatch{
				DescriptorKey: key, DescriptorValue: key, ExpectMatch: wrapperspb.Bool(!q.Invert),
				QueryParameters: []*routev3.QueryParameterMatcher{{Name: q.Name, QueryParameterMatchSpecifier: &routev3.QueryParameterMatcher_StringMatch{StringMatch: stringMatcher(q)}}},
			},
		}})
	}
	return out
}

func genericKey(key, value string) *routev3.RateLimit_Action {
	return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_GenericKey_{
		GenericKey: &routev3.RateLimit_Action_GenericKey{DescriptorKey: key, DescriptorValue: value},
	}}
}

func headerValueMatch(key, header string, m StringMatch) *routev3.RateLimit_Action {
	return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_HeaderValueMatch_{
		HeaderValueMatch: &routev3.RateLimit_Action_HeaderValueMatch{
			DescriptorKey: key, DescriptorValue: key, ExpectMatch: wrapperspb.Bool(!m.Invert),
			Headers: []*routev3.HeaderMatcher{{Name: header, HeaderMatchSpecifier: &routev3.HeaderMatcher_StringMatch{StringMatch: stringMatcher(m)}}},
		},
	}}
}

func remoteAddressMatch(key, value string, c *CIDRMatch) *routev3.RateLimit_Action {
	ones, _ := c.Prefix.Mask.Size()
	return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_RemoteAddressMatch_{
		RemoteAddressMatch: &routev3.RateLimit_Action_RemoteAddressMatch{
			DescriptorKey: key, DescriptorValue: value,
			AddressMatcher: &matcherv3.AddressMatcher{
				Ranges:      []*xdscorev3.CidrRange{{AddressPrefix: c.Prefix.IP.String(), PrefixLen: wrapperspb.UInt32(uint32(ones))}},
				InvertMatch: c.Invert,
			},
		},
	}}
}

// cidrValue is the value of a source address match's masked entry.
func cidrValue(c *CIDRMatch) string {
	if c.Invert {
		return invertPrefix + c.CIDR
	}
	return c.CIDR
}

func stringMatcher(m StringMatch) *matcherv3.StringMatcher {
	switch {
	case m.Exact != nil:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: *m.Exact}}
	case m.Prefix != nil:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Prefix{Prefix: *m.Prefix}}
	case m.Regex != nil:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: *m.Regex}}}
	}
	return &matcherv3.StringMatcher{}
}

func hitsAddend(c *Cost) *routev3.RateLimit_HitsAddend {
	h := &routev3.RateLimit_HitsAddend{Format: c.Format()}
	if c.Number != nil {
		h.Number = wrapperspb.UInt64(*c.Number)
	}
	return h
}

func xRateLimitOption(o *egv1alpha1.XRateLimitHeadersOption) routev3.RateLimit_XRateLimitOption {
	switch {
	case o == nil:
		return routev3.RateLimit_UNSPECIFIED
	case *o == egv1alpha1.XRateLimitHeadersOff:
		return routev3.RateLimit_OFF
	case *o == egv1alpha1.XRateLimitHeadersDraftVersion03:
		return routev3.RateLimit_DRAFT_VERSION_03
	}
	return routev3.RateLimit_UNSPECIFIED
}

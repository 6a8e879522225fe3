package envoyxds

import (
	xdscorev3 "github.com/cncf/xds/go/xds/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/rlpkit/rlpkit/descriptor"
)

// queryAction translates the actions on the client address and the query:
// remote_address_match, query_parameter_value_match and query_parameters.
func queryAction(a *descriptor.Action) *routev3.RateLimit_Action {
	switch {
	case a.RemoteAddressMatch != nil:
		r := a.RemoteAddressMatch
		am := &matcherv3.AddressMatcher{InvertMatch: r.AddressMatcher.InvertMatch}
		for _, cr := range r.AddressMatcher.Ranges {
			am.Ranges = append(am.Ranges, &xdscorev3.CidrRange{AddressPrefix: cr.AddressPrefix, PrefixLen: wrapperspb.UInt32(cr.PrefixLen)})
		}
		return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_RemoteAddressMatch_{
			RemoteAddressMatch: &routev3.RateLimit_Action_RemoteAddressMatch{DescriptorKey: r.DescriptorKey, DescriptorValue: r.DescriptorValue, AddressMatcher: am},
		}}
	case a.QueryParameters != nil:
		q := a.QueryParameters
		return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_QueryParameters_{
			QueryParameters: &routev3.RateLimit_Action_QueryParameters{QueryParameterName: q.QueryParameterName, DescriptorKey: q.DescriptorKey, SkipIfAbsent: q.SkipIfAbsent},
		}}
	}
	q := a.QueryParameterValueMatch
	return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_QueryParameterValueMatch_{
		QueryParameterValueMatch: &routev3.RateLimit_Action_QueryParameterValueMatch{
			DescriptorKey:   q.DescriptorKey,
			DescriptorValue: q.DescriptorValue,
			ExpectMatch:     optionalBool(q.ExpectMatch),
			QueryParameters: each(q.QueryParameters, queryMatcher),
		},
	}}
}

// optionalBool is b as a protobuf BoolValue, nil when b is.
func optionalBool(b *bool) *wrapperspb.BoolValue {
	if b == nil {
		return nil
	}
	return wrapperspb.Bool(*b)
}

// each translates every element of in with f, in order; nil when in is empty.
func each[T, U any](in []T, f func(*T) U) []U {
	var out []U
	for i := range in {
		out = append(out, f(&in[i]))
	}
	return out
}

func queryMatcher(q *descriptor.QueryParameterMatcher) *routev3.QueryParameterMatcher {
	m := &routev3.QueryParameterMatcher{Name: q.Name}
	var sm *matcherv3.StringMatcher
	switch {
	case q.ExactMatch != nil:
		sm = exact(*q.ExactMatch)
	case q.PrefixMatch != nil:
		sm = &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Prefix{Prefix: *q.PrefixMatch}}
	case q.SuffixMatch != nil:
		sm = &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Suffix{Suffix: *q.SuffixMatch}}
	case q.ContainsMatch != nil:
		sm = &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Contains{Contains: *q.ContainsMatch}}
	case q.SafeRegexMatch != nil:
		sm = regexOrEmpty(q.SafeRegexMatch.Regex)
	case q.PresentMatch != nil:
		m.QueryParameterMatchSpecifier = &routev3.QueryParameterMatcher_PresentMatch{PresentMatch: *q.PresentMatch}
		return m
	default:
		m.QueryParameterMatchSpecifier = &routev3.QueryParameterMatcher_PresentMatch{PresentMatch: true}
		return m
	}
	m.QueryParameterMatchSpecifier = &routev3.QueryParameterMatcher_StringMatch{StringMatch: sm}
	return m
}

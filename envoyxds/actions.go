package envoyxds

import (
	"strconv"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	metadatav3 "github.com/envoyproxy/go-control-plane/envoy/type/metadata/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/fielderr"
)

// anyPresentValue is the regular expression of a descriptor exact_match of "": it matches any
// value of a present header and, unlike present_match, never an absent one, even inverted.
const anyPresentValue = "(?s).*"

// collector gathers refusals and caveats.
type collector struct {
	errs    fielderr.List
	caveats []Caveat
}

func (c *collector) refuse(p path, detail string) {
	c.errs = append(c.errs, &fielderr.Error{Pkg: pkg, Field: string(p), Detail: detail})
}

func (c *collector) caveat(p path, detail string) {
	c.caveats = append(c.caveats, Caveat{Field: string(p), Detail: detail})
}

// rateLimit translates one configuration into the RateLimit that builds the same descriptor.
func (c *collector) rateLimit(p path, cfg *descriptor.Configuration, routeHook bool) *routev3.RateLimit {
	rl := &routev3.RateLimit{}
	for i := range cfg.Actions {
		rl.Actions = append(rl.Actions, c.action(p.Child("actions").Index(i), &cfg.Actions[i], routeHook))
	}
	if cfg.Limit != nil && cfg.Limit.DynamicMetadata != nil {
		rl.Limit = &routev3.RateLimit_Override{
			OverrideSpecifier: &routev3.RateLimit_Override_DynamicMetadata_{
				DynamicMetadata: &routev3.RateLimit_Override_DynamicMetadata{
					MetadataKey: metadataKey(cfg.Limit.DynamicMetadata.MetadataKey),
				},
			},
		}
	}
	if h := cfg.HitsAddend; h != nil {
		hp := p.Child("hits_addend")
		switch {
		case h.Number != nil && *h.Number > MaxHitsAddend:
			c.refuse(hp.Child("number"), "cost "+strconv.FormatUint(*h.Number, 10)+" is more than "+strconv.Itoa(MaxHitsAddend)+", the most Envoy accepts")
		case h.Number != nil:
			rl.HitsAddend = &routev3.RateLimit_HitsAddend{Number: wrapperspb.UInt64(*h.Number)}
		case h.ResponseBody != nil:
			c.refuse(hp.Child("response_body"), "Envoy's rate-limit filter cannot read a cost from the response body; the proxy-wasm filter can")
		case h.DynamicMetadata != nil:
			mp := hp.Child("dynamic_metadata").Child("metadata_key")
			if format, ok := c.metadataFormat(mp, h.DynamicMetadata.MetadataKey); ok {
				rl.HitsAddend = &routev3.RateLimit_HitsAddend{Format: format}
			}
			c.caveat(hp.Child("dynamic_metadata"), "Envoy drops the descriptor when the cost in dynamic metadata is absent, "+
				"or is not a number (or a string holding one) from 0 to "+strconv.Itoa(MaxHitsAddend)+
				", where descriptor sends it with cost 1; and Envoy truncates a fractional cost, where descriptor charges 1")
		}
	}
	return rl
}

// metadataFormat returns the substitution format that reads the metadata value at k, as
// hits_addend.format takes it: "%DYNAMIC_METADATA(namespace:key1:key2)%".
func (c *collector) metadataFormat(p path, k descriptor.MetadataKey) (string, bool) {
	ok := true
	check := func(fp path, s string) {
		if i := strings.IndexAny(s, ":)"); i >= 0 {
			c.refuse(fp, "Envoy's %DYNAMIC_METADATA(...)% format cannot name "+strconv.Quote(s)+": it holds "+strconv.Quote(s[i:i+1]))
			ok = false
		}
	}
	check(p.Child("key"), k.Key)
	parts := []string{k.Key}
	for i, s := range k.Path {
		check(p.Child("path").Index(i).Child("key"), s.Key)
		parts = append(parts, s.Key)
	}
	return "%DYNAMIC_METADATA(" + strings.Join(parts, ":") + ")%", ok
}

func (c *collector) action(p path, a *descriptor.Action, routeHook bool) *routev3.RateLimit_Action {
	switch {
	case a.GenericKey != nil:
		return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_GenericKey_{
			GenericKey: &routev3.RateLimit_Action_GenericKey{
				DescriptorKey:   a.GenericKey.DescriptorKey,
				DescriptorValue: a.GenericKey.DescriptorValue,
			},
		}}
	case a.RequestHeaders != nil:
		return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_RequestHeaders_{
			RequestHeaders: &routev3.RateLimit_Action_RequestHeaders{
				HeaderName:    strings.ToLower(a.RequestHeaders.HeaderName),
				DescriptorKey: a.RequestHeaders.DescriptorKey,
				SkipIfAbsent:  a.RequestHeaders.SkipIfAbsent,
			},
		}}
	case a.RemoteAddress != nil:
		return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_RemoteAddress_{
			RemoteAddress: &routev3.RateLimit_Action_RemoteAddress{},
		}}
	case a.Metadata != nil:
		m := a.Metadata
		source := routev3.RateLimit_Action_MetaData_DYNAMIC
		if m.Source == descriptor.MetadataRouteEntry {
			source = routev3.RateLimit_Action_MetaData_ROUTE_ENTRY
			if !routeHook {
				c.caveat(p.Child("metadata").Child("source"), "Envoy reads the metadata of the route it matched, "+
					"and the generated routes carry none unless Options.Route sets it")
			}
		}
		return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_Metadata{
			Metadata: &routev3.RateLimit_Action_MetaData{
				DescriptorKey: m.DescriptorKey,
				MetadataKey:   metadataKey(m.MetadataKey),
				DefaultValue:  m.DefaultValue,
				Source:        source,
				SkipIfAbsent:  m.SkipIfAbsent,
			},
		}}
	case a.RemoteAddressMatch != nil, a.QueryParameterValueMatch != nil, a.QueryParameters != nil:
		return queryAction(a)
	default: // header_value_match: descriptor.Validate guarantees exactly one type is set
		h := a.HeaderValueMatch
		return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_HeaderValueMatch_{
			HeaderValueMatch: &routev3.RateLimit_Action_HeaderValueMatch{
				DescriptorKey:   h.DescriptorKey,
				DescriptorValue: h.DescriptorValue,
				ExpectMatch:     optionalBool(h.ExpectMatch),
				Headers:         each(h.Headers, headerMatcher),
			},
		}}
	}
}

// headerMatcher translates a descriptor header matcher into Envoy's, using string_match
// rather than the deprecated direct fields.
func headerMatcher(h *descriptor.HeaderMatcher) *routev3.HeaderMatcher {
	m := &routev3.HeaderMatcher{Name: strings.ToLower(h.Name), InvertMatch: h.InvertMatch}
	switch {
	case h.ExactMatch != nil && *h.ExactMatch == "":
		m.HeaderMatchSpecifier = stringMatch(&matcherv3.StringMatcher{MatchPattern: safeRegex(anyPresentValue)})
	case h.ExactMatch != nil:
		m.HeaderMatchSpecifier = stringMatch(exact(*h.ExactMatch))
	case h.PrefixMatch != nil:
		m.HeaderMatchSpecifier = stringMatch(&matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Prefix{Prefix: *h.PrefixMatch}})
	case h.SuffixMatch != nil:
		m.HeaderMatchSpecifier = stringMatch(&matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Suffix{Suffix: *h.SuffixMatch}})
	case h.ContainsMatch != nil:
		m.HeaderMatchSpecifier = stringMatch(&matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Contains{Contains: *h.ContainsMatch}})
	case h.SafeRegexMatch != nil:
		m.HeaderMatchSpecifier = stringMatch(regexOrEmpty(h.SafeRegexMatch.Regex))
	case h.PresentMatch != nil:
		m.HeaderMatchSpecifier = &routev3.HeaderMatcher_PresentMatch{PresentMatch: *h.PresentMatch}
	default: // no match type: presence, as in Envoy, said explicitly
		m.HeaderMatchSpecifier = &routev3.HeaderMatcher_PresentMatch{PresentMatch: true}
	}
	return m
}

// regexOrEmpty matches the whole value against expr. Envoy requires a non-empty regex; the
// empty one matches only the empty value, which an exact match of "" says.
func regexOrEmpty(expr string) *matcherv3.StringMatcher {
	if expr == "" {
		return exact("")
	}
	return &matcherv3.StringMatcher{MatchPattern: safeRegex(expr)}
}

func exact(v string) *matcherv3.StringMatcher {
	return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: v}}
}

func safeRegex(expr string) *matcherv3.StringMatcher_SafeRegex {
	return &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: expr}}
}

func stringMatch(s *matcherv3.StringMatcher) *routev3.HeaderMatcher_StringMatch {
	return &routev3.HeaderMatcher_StringMatch{StringMatch: s}
}

func metadataKey(k descriptor.MetadataKey) *metadatav3.MetadataKey {
	mk := &metadatav3.MetadataKey{Key: k.Key}
	for _, s := range k.Path {
		mk.Path = append(mk.Path, &metadatav3.MetadataKey_PathSegment{
			Segment: &metadatav3.MetadataKey_PathSegment_Key{Key: s.Key},
		})
	}
	return mk
}

package descriptor

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
)

// Canonical returns the canonical form of a gateway action: a new value that behaves as ga
// does and is written one way only, so that two actions behave the same exactly when their
// canonical forms are deeply equal (see Equivalent). It applies the defaults Compile applies
// (generic_key's descriptor_key "generic_key", header_value_match's "header_match" and
// expect_match true, metadata's source DYNAMIC, a header matcher without a match type
// present_match true), lower-cases what Compile compares case-insensitively (header names,
// rule hosts, without a trailing "."), sorts and deduplicates the sets of a rule (paths,
// methods, hosts), drops rules when one matches every request, and makes every empty list
// nil. The order of configurations and of actions is kept: it decides the descriptors and
// their entries. ga is not modified; the result shares no memory with it.
func (ga GatewayAction) Canonical() GatewayAction {
	var out GatewayAction
	for _, r := range ga.Rules {
		cr := canonicalRule(r)
		if cr.Paths == nil && cr.Methods == nil && cr.Hosts == nil {
			out.Rules = nil // a rule without fields matches every request, as no rules do
			break
		}
		out.Rules = append(out.Rules, cr)
	}
	for _, c := range ga.Configurations {
		out.Configurations = append(out.Configurations, canonicalConfiguration(c))
	}
	return out
}

// Equivalent reports whether ga and other behave the same for every request: their
// canonical forms are deeply equal. rules: [] and no rules, expect_match: true and no
// expect_match, or descriptor_key: generic_key and none are equivalent.
func (ga GatewayAction) Equivalent(other GatewayAction) bool {
	return reflect.DeepEqual(ga.Canonical(), other.Canonical())
}

func canonicalRule(r Rule) Rule {
	hosts := make([]string, 0, len(r.Hosts))
	for _, h := range r.Hosts {
		hosts = append(hosts, strings.ToLower(strings.TrimSuffix(h, ".")))
	}
	return Rule{Paths: canonicalSet(r.Paths), Methods: canonicalSet(r.Methods), Hosts: canonicalSet(hosts)}
}

// canonicalSet returns the sorted distinct elements of s, nil when there are none.
func canonicalSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

func canonicalConfiguration(c Configuration) Configuration {
	var out Configuration
	for _, a := range c.Actions {
		out.Actions = append(out.Actions, canonicalAction(a))
	}
	if c.Limit != nil {
		out.Limit = &LimitOverride{DynamicMetadata: canonicalDynamicMetadata(c.Limit.DynamicMetadata)}
	}
	if h := c.HitsAddend; h != nil {
		out.HitsAddend = &HitsAddend{DynamicMetadata: canonicalDynamicMetadata(h.DynamicMetadata)}
		if h.Number != nil {
			n := *h.Number
			out.HitsAddend.Number = &n
		}
		if h.ResponseBody != nil {
			rb := *h.ResponseBody
			out.HitsAddend.ResponseBody = &rb
		}
	}
	return out
}

func canonicalDynamicMetadata(d *DynamicMetadataSource) *DynamicMetadataSource {
	if d == nil {
		return nil
	}
	return &DynamicMetadataSource{MetadataKey: canonicalMetadataKey(d.MetadataKey)}
}

func canonicalMetadataKey(k MetadataKey) MetadataKey {
	out := MetadataKey{Key: k.Key}
	for _, s := range k.Path {
		out.Path = append(out.Path, PathSegment{Key: s.Key})
	}
	return out
}

// canonicalAction keeps every action type that is set, so that an invalid action (two types)
// stays distinct from each of its halves.
func canonicalAction(a Action) Action {
	var out Action
	if g := a.GenericKey; g != nil {
		out.GenericKey = &GenericKey{DescriptorKey: cmp.Or(g.DescriptorKey, "generic_key"), DescriptorValue: g.DescriptorValue}
	}
	if rh := a.RequestHeaders; rh != nil {
		out.RequestHeaders = &RequestHeaders{HeaderName: strings.ToLower(rh.HeaderName), DescriptorKey: rh.DescriptorKey, SkipIfAbsent: rh.SkipIfAbsent}
	}
	if a.RemoteAddress != nil {
		out.RemoteAddress = &RemoteAddress{}
	}
	if m := a.Metadata; m != nil {
		out.Metadata = &MetadataAction{
			DescriptorKey: m.DescriptorKey,
			MetadataKey:   canonicalMetadataKey(m.MetadataKey),
			DefaultValue:  m.DefaultValue,
			Source:        cmp.Or(m.Source, MetadataDynamic),
			SkipIfAbsent:  m.SkipIfAbsent,
		}
	}
	canonicalQueryActions(&out, a)
	if h := a.HeaderValueMatch; h != nil {
		expect := h.ExpectMatch == nil || *h.ExpectMatch
		out.HeaderValueMatch = &HeaderValueMatch{
			DescriptorKey:   cmp.Or(h.DescriptorKey, "header_match"),
			DescriptorValue: h.DescriptorValue,
			ExpectMatch:     &expect,
		}
		for _, m := range h.Headers {
			out.HeaderValueMatch.Headers = append(out.HeaderValueMatch.Headers, canonicalHeaderMatcher(m))
		}
	}
	return out
}

func canonicalHeaderMatcher(m HeaderMatcher) HeaderMatcher {
	out := HeaderMatcher{
		Name:          strings.ToLower(m.Name),
		ExactMatch:    clonePtr(m.ExactMatch),
		PrefixMatch:   clonePtr(m.PrefixMatch),
		SuffixMatch:   clonePtr(m.SuffixMatch),
		ContainsMatch: clonePtr(m.ContainsMatch),
		PresentMatch:  clonePtr(m.PresentMatch),
		InvertMatch:   m.InvertMatch,
	}
	if m.SafeRegexMatch != nil {
		out.SafeRegexMatch = &RegexMatcher{Regex: m.SafeRegexMatch.Regex}
	}
	if out.ExactMatch == nil && out.PrefixMatch == nil && out.SuffixMatch == nil && out.ContainsMatch == nil &&
		out.PresentMatch == nil && out.SafeRegexMatch == nil {
		present := true // no match type means "present", as in Envoy
		out.PresentMatch = &present
	}
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// canonicalQueryActions sets the canonical forms of a's remote_address_match,
// query_parameter_value_match and query_parameters in out.
func canonicalQueryActions(out *Action, a Action) {
	if r := a.RemoteAddressMatch; r != nil {
		out.RemoteAddressMatch = &RemoteAddressMatch{
			DescriptorKey: cmp.Or(r.DescriptorKey, "remote_address_match"), DescriptorValue: r.DescriptorValue,
			AddressMatcher: AddressMatcher{InvertMatch: r.AddressMatcher.InvertMatch},
		}
		if len(r.AddressMatcher.Ranges) > 0 {
			out.RemoteAddressMatch.AddressMatcher.Ranges = slices.Clone(r.AddressMatcher.Ranges)
		}
	}
	if q := a.QueryParameterValueMatch; q != nil {
		expect := q.ExpectMatch == nil || *q.ExpectMatch
		out.QueryParameterValueMatch = &QueryParameterValueMatch{DescriptorKey: cmp.Or(q.DescriptorKey, "query_match"), DescriptorValue: q.DescriptorValue, ExpectMatch: &expect}
		for _, m := range q.QueryParameters {
			cm := QueryParameterMatcher{Name: m.Name, ExactMatch: clonePtr(m.ExactMatch), PrefixMatch: clonePtr(m.PrefixMatch),
				SuffixMatch: clonePtr(m.SuffixMatch), ContainsMatch: clonePtr(m.ContainsMatch), PresentMatch: clonePtr(m.PresentMatch)}
			if m.SafeRegexMatch != nil {
				cm.SafeRegexMatch = &RegexMatcher{Regex: m.SafeRegexMatch.Regex}
			}
			if cm.ExactMatch == nil && cm.PrefixMatch == nil && cm.SuffixMatch == nil && cm.ContainsMatch == nil && cm.PresentMatch == nil && cm.SafeRegexMatch == nil {
				present := true
				cm.PresentMatch = &present
			}
			out.QueryParameterValueMatch.QueryParameters = append(out.QueryParameterValueMatch.QueryParameters, cm)
		}
	}
	if q := a.QueryParameters; q != nil {
		out.QueryParameters = &QueryParameters{QueryParameterName: q.QueryParameterName, DescriptorKey: q.DescriptorKey, SkipIfAbsent: q.SkipIfAbsent}
	}
}

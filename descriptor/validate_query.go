package descriptor

import (
	"net/netip"
	"strconv"
)

// validateQueryActions validates the actions on the client address and the query:
// remote_address_match, query_parameter_value_match and query_parameters.
func validateQueryActions(c *errs, p path, a *Action) {
	switch {
	case a.RemoteAddressMatch != nil:
		rp := p.Child("remote_address_match")
		if a.RemoteAddressMatch.DescriptorValue == "" {
			c.add(string(rp.Child("descriptor_value")), "required")
		}
		ranges := a.RemoteAddressMatch.AddressMatcher.Ranges
		if len(ranges) == 0 {
			c.add(string(rp.Child("address_matcher").Child("ranges")), "at least one range is required")
		}
		for i, r := range ranges {
			ip := rp.Child("address_matcher").Child("ranges").Index(i)
			addr, err := netip.ParseAddr(r.AddressPrefix)
			switch {
			case err != nil || addr.Zone() != "":
				c.add(string(ip.Child("address_prefix")), "invalid IP address "+quote(r.AddressPrefix))
			case int(r.PrefixLen) > addr.BitLen():
				c.add(string(ip.Child("prefix_len")), strconv.Itoa(int(r.PrefixLen))+" is more than the "+strconv.Itoa(addr.BitLen())+" bits of "+quote(r.AddressPrefix))
			}
		}
	case a.QueryParameterValueMatch != nil:
		q := a.QueryParameterValueMatch
		validateValueMatch(c, p.Child("query_parameter_value_match"), q.DescriptorValue, "query_parameters", "query parameter", q.QueryParameters, validateQueryMatcher)
	case a.QueryParameters != nil:
		qp := p.Child("query_parameters")
		if a.QueryParameters.QueryParameterName == "" {
			c.add(string(qp.Child("query_parameter_name")), "required")
		}
		if a.QueryParameters.DescriptorKey == "" {
			c.add(string(qp.Child("descriptor_key")), "required")
		}
	}
}

func validateQueryMatcher(c *errs, p path, m *QueryParameterMatcher) {
	if m.Name == "" {
		c.add(string(p.Child("name")), "required")
	}
	validateOneMatch(c, p, m.ExactMatch != nil, m.PrefixMatch != nil, m.SuffixMatch != nil, m.ContainsMatch != nil, m.PresentMatch != nil, m.SafeRegexMatch != nil)
	if m.SafeRegexMatch != nil {
		validateRegex(c, p.Child("safe_regex_match").Child("regex"), m.SafeRegexMatch.Regex)
	}
}

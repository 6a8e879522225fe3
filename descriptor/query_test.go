package descriptor

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

func TestQueryAndAddressActions(t *testing.T) {
	yes, no := true, false
	one, empty := "1", ""
	cidr := func(invert bool, value string, ranges ...CidrRange) Action {
		return Action{RemoteAddressMatch: &RemoteAddressMatch{DescriptorValue: value, AddressMatcher: AddressMatcher{Ranges: ranges, InvertMatch: invert}}}
	}
	v4 := CidrRange{AddressPrefix: "10.1.0.0", PrefixLen: 16}
	v6 := CidrRange{AddressPrefix: "2001:db8::", PrefixLen: 32}
	qvm := func(expect *bool, ms ...QueryParameterMatcher) Action {
		return Action{QueryParameterValueMatch: &QueryParameterValueMatch{DescriptorKey: "q", DescriptorValue: "hit", ExpectMatch: expect, QueryParameters: ms}}
	}
	qp := func(skip bool) Action {
		return Action{QueryParameters: &QueryParameters{QueryParameterName: "id", DescriptorKey: "id", SkipIfAbsent: skip}}
	}
	tests := []struct {
		name   string
		action Action
		path   string
		remote string
		want   []rlsmsg.Entry // nil: no descriptor
	}{
		{"in range", cidr(false, "net", v4), "/", "10.1.2.3", []rlsmsg.Entry{{Key: "remote_address_match", Value: "net"}}},
		{"in the second range, with port", cidr(false, "net", v4, v6), "/", "[2001:db8::7]:443", []rlsmsg.Entry{{Key: "remote_address_match", Value: "net"}}},
		{"out of range", cidr(false, "net", v4), "/", "10.2.0.1", nil},
		{"other family", cidr(false, "net", v6), "/", "10.1.2.3", nil},
		{"inverted, out of range", cidr(true, "not", v4), "/", "192.0.2.1", []rlsmsg.Entry{{Key: "remote_address_match", Value: "not"}}},
		{"inverted, in range", cidr(true, "not", v4), "/", "10.1.0.9", nil},
		{"no client address", cidr(true, "not", v4), "/", "", nil},
		{"address substituted", cidr(false, "ip-%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%", v4), "/", "10.1.2.3:80", []rlsmsg.Entry{{Key: "remote_address_match", Value: "ip-10.1.2.3"}}},
		{"query exact", qvm(nil, QueryParameterMatcher{Name: "a", ExactMatch: &one}), "/x?b=2&a=1", "", []rlsmsg.Entry{{Key: "q", Value: "hit"}}},
		{"query first value", qvm(nil, QueryParameterMatcher{Name: "a", ExactMatch: &one}), "/x?a=2&a=1", "", nil},
		{"query decoded", qvm(nil, QueryParameterMatcher{Name: "a b", ExactMatch: &[]string{"c/d e"}[0]}), "/x?a+b=c%2Fd+e#f", "", []rlsmsg.Entry{{Key: "q", Value: "hit"}}},
		{"query empty exact is strict", qvm(nil, QueryParameterMatcher{Name: "a", ExactMatch: &empty}), "/x?a=1", "", nil},
		{"query without = is empty", qvm(nil, QueryParameterMatcher{Name: "a", ExactMatch: &empty}), "/x?a", "", []rlsmsg.Entry{{Key: "q", Value: "hit"}}},
		{"query regex", qvm(nil, QueryParameterMatcher{Name: "a", SafeRegexMatch: &RegexMatcher{Regex: "[0-9]+"}}), "/x?a=123", "", []rlsmsg.Entry{{Key: "q", Value: "hit"}}},
		{"query absent", qvm(nil, QueryParameterMatcher{Name: "a", ExactMatch: &one}), "/x", "", nil},
		{"query absent, expect false", qvm(&no, QueryParameterMatcher{Name: "a", ExactMatch: &one}), "/x", "", []rlsmsg.Entry{{Key: "q", Value: "hit"}}},
		{"query present", qvm(&yes, QueryParameterMatcher{Name: "a"}), "/x?a=", "", []rlsmsg.Entry{{Key: "q", Value: "hit"}}},
		{"query present false is presence", qvm(nil, QueryParameterMatcher{Name: "a", PresentMatch: &no}), "/x?a=1", "", []rlsmsg.Entry{{Key: "q", Value: "hit"}}},
		{"query present false, absent", qvm(nil, QueryParameterMatcher{Name: "a", PresentMatch: &no}), "/x?b=1", "", nil},
		{"query parameter", qp(false), "/x?id=a%20b", "", []rlsmsg.Entry{{Key: "id", Value: "a b"}}},
		{"query parameter absent", qp(false), "/x?idx=1", "", nil},
		{"query parameter absent, skipped", qp(true), "/x", "", []rlsmsg.Entry{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &PluginConfig{RateLimitPolicies: []Policy{{Name: "p", RateLimitDomain: "d", UpstreamCluster: "rls", Hostnames: []string{"*"},
				GatewayActions: []GatewayAction{{Configurations: []Configuration{{Actions: []Action{tc.action}}}}}}}}
			e := mustCompile(t, cfg)
			res, trace := e.Explain(&Request{Method: "GET", Host: "h", Path: tc.path, RemoteAddress: tc.remote})
			var got []rlsmsg.Entry
			if len(res.Descriptors) == 1 {
				got = res.Descriptors[0].Entries
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("entries (-want +got):\n%s\n%s", diff, trace)
			}
		})
	}
}

func TestValidateQueryAndAddressActions(t *testing.T) {
	cfg := &PluginConfig{RateLimitPolicies: []Policy{{Name: "p", RateLimitDomain: "d", UpstreamCluster: "rls", Hostnames: []string{"*"},
		GatewayActions: []GatewayAction{{Configurations: []Configuration{{Actions: []Action{
			{RemoteAddressMatch: &RemoteAddressMatch{AddressMatcher: AddressMatcher{Ranges: []CidrRange{{AddressPrefix: "10.0.0.0", PrefixLen: 33}, {AddressPrefix: "nope"}}}}},
			{RemoteAddressMatch: &RemoteAddressMatch{DescriptorValue: "v"}},
			{QueryParameterValueMatch: &QueryParameterValueMatch{QueryParameters: []QueryParameterMatcher{{SafeRegexMatch: &RegexMatcher{Regex: "("}}}}},
			{QueryParameters: &QueryParameters{}},
		}}}}}}}}
	err := Validate(cfg)
	p := "rateLimitPolicies[0].gatewayActions[0].configurations[0].actions"
	want := []string{
		p + `[0].remote_address_match.descriptor_value: required`,
		p + `[0].remote_address_match.address_matcher.ranges[0].prefix_len: 33 is more than the 32 bits of "10.0.0.0"`,
		p + `[0].remote_address_match.address_matcher.ranges[1].address_prefix: invalid IP address "nope"`,
		p + `[1].remote_address_match.address_matcher.ranges: at least one range is required`,
		p + `[2].query_parameter_value_match.descriptor_value: required`,
		p + `[2].query_parameter_value_match.query_parameters[0].name: required`,
		p + "[2].query_parameter_value_match.query_parameters[0].safe_regex_match.regex: invalid regular expression \"(\": error parsing regexp: missing closing ): `^(?:()$`",
		p + `[3].query_parameters.query_parameter_name: required`,
		p + `[3].query_parameters.descriptor_key: required`,
	}
	if diff := cmp.Diff(want, lines(t, err)); diff != "" {
		t.Errorf("Validate (-want +got):\n%s", diff)
	}
}

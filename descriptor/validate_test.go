package descriptor

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// policyJSON wraps gateway actions and extra policy fields in a valid policy.
func policyJSON(extra string) string {
	return `{"rateLimitPolicies":[{"rateLimitDomain":"d","upstreamCluster":"c","hostnames":["a.com"]` + extra + `}]}`
}

func configsJSON(configs string) string {
	return policyJSON(`,"gatewayActions":[{"configurations":[` + configs + `]}]`)
}

func TestValidate(t *testing.T) {
	const cfg0 = "rateLimitPolicies[0].gatewayActions[0].configurations[0]"
	tests := []struct {
		name string
		in   string
		want []string // nil: valid
	}{
		{name: "valid", in: configsJSON(`{"actions":[{"generic_key":{"descriptor_value":"v"}}]}`)},
		{name: "no policies is valid", in: `{}`},
		{
			name: "policy fields",
			in:   `{"rateLimitPolicies":[{"name":"x","hostnames":[]},{"name":"x","rateLimitDomain":"d","upstreamCluster":"c","hostnames":["a.com","A.com.","a*.com","*"]}]}`,
			want: []string{
				"rateLimitPolicies[0].rateLimitDomain: required",
				"rateLimitPolicies[0].upstreamCluster: required",
				"rateLimitPolicies[0].hostnames: at least one hostname is required",
				`rateLimitPolicies[1].name: duplicate policy name "x" (also rateLimitPolicies[0])`,
				`rateLimitPolicies[1].hostnames[1]: duplicate hostname "A.com."`,
				`rateLimitPolicies[1].hostnames[2]: invalid pattern "a*.com": `,
			},
		},
		{
			name: "exactly one action type",
			in: configsJSON(`{"actions":[{"generic_key":{"descriptor_value":"v"}},{"remote_address":{}},
				{"generic_key":{"descriptor_value":"v"},"remote_address":{}},{}]}`),
			want: []string{
				cfg0 + ".actions[2]: exactly one action type must be set (generic_key, request_headers, remote_address, metadata, header_value_match, remote_address_match, query_parameter_value_match, query_parameters)",
				cfg0 + ".actions[3]: exactly one action type must be set (generic_key, request_headers, remote_address, metadata, header_value_match, remote_address_match, query_parameter_value_match, query_parameters)",
			},
		},
		{
			name: "required action fields",
			in: configsJSON(`{"actions":[{"generic_key":{}},{"request_headers":{"header_name":"bad header"}},
				{"metadata":{"metadata_key":{"path":[{}]},"source":"CLUSTER"}},{"header_value_match":{}}]},{}`),
			want: []string{
				cfg0 + ".actions[0].generic_key.descriptor_value: required",
				cfg0 + `.actions[1].request_headers.header_name: invalid header name "bad header"`,
				cfg0 + ".actions[1].request_headers.descriptor_key: required",
				cfg0 + ".actions[2].metadata.descriptor_key: required",
				cfg0 + ".actions[2].metadata.metadata_key.key: required",
				cfg0 + ".actions[2].metadata.metadata_key.path[0].key: required",
				cfg0 + `.actions[2].metadata.source: unsupported value "CLUSTER": must be DYNAMIC or ROUTE_ENTRY`,
				cfg0 + ".actions[3].header_value_match.descriptor_value: required",
				cfg0 + ".actions[3].header_value_match.headers: at least one header matcher is required",
				"rateLimitPolicies[0].gatewayActions[0].configurations[1].actions: at least one action is required",
			},
		},
		{
			name: "header matchers",
			in: configsJSON(`{"actions":[{"header_value_match":{"descriptor_value":"v","headers":[
				{"name":"x","exact_match":"a","prefix_match":"b"},{"name":"","suffix_match":""},{"name":"x","safe_regex_match":{"regex":"("}}]}}]}`),
			want: []string{
				cfg0 + ".actions[0].header_value_match.headers[0]: at most one of exact_match, prefix_match, suffix_match, contains_match, present_match and safe_regex_match may be set",
				cfg0 + ".actions[0].header_value_match.headers[1].name: required",
				cfg0 + ".actions[0].header_value_match.headers[1].suffix_match: must not be empty",
				cfg0 + `.actions[0].header_value_match.headers[2].safe_regex_match.regex: invalid regular expression "(": `,
			},
		},
		{
			name: "limit and hits_addend",
			in: configsJSON(`{"actions":[{"remote_address":{}}],"limit":{},"hits_addend":{}},
				{"actions":[{"remote_address":{}}],"limit":{"dynamic_metadata":{"metadata_key":{"key":"k"}}},"hits_addend":{"number":1,"dynamic_metadata":{"metadata_key":{"key":"k","path":[{"key":"p"}]}}}}`),
			want: []string{
				cfg0 + ".limit: dynamic_metadata is required",
				cfg0 + ".hits_addend: exactly one of number, dynamic_metadata and response_body must be set",
				"rateLimitPolicies[0].gatewayActions[0].configurations[1].limit.dynamic_metadata.metadata_key.path: at least one path segment is required",
				"rateLimitPolicies[0].gatewayActions[0].configurations[1].hits_addend: exactly one of number, dynamic_metadata and response_body must be set",
			},
		},
		{
			name: "hits_addend from the response body",
			in: configsJSON(`{"actions":[{"remote_address":{}}],"hits_addend":{"response_body":{"json_pointer":"usage/total_tokens"}}},
				{"actions":[{"remote_address":{}}],"hits_addend":{"number":1,"response_body":{"json_pointer":"/usage"}}},
				{"actions":[{"remote_address":{}}],"hits_addend":{"response_body":{"json_pointer":"/a~2b"}}},
				{"actions":[{"remote_address":{}}],"hits_addend":{"response_body":{"json_pointer":"/usage/total_tokens"}}}`),
			want: []string{
				cfg0 + `.hits_addend.response_body.json_pointer: must be a JSON pointer starting with "/" (e.g. "/usage/total_tokens"), got "usage/total_tokens"`,
				"rateLimitPolicies[0].gatewayActions[0].configurations[1].hits_addend: exactly one of number, dynamic_metadata and response_body must be set",
				`rateLimitPolicies[0].gatewayActions[0].configurations[2].hits_addend.response_body.json_pointer: "~" must be followed by "0" or "1" in a JSON pointer, got "/a~2b"`,
			},
		},
		{
			name: "rules",
			in:   policyJSON(`,"gatewayActions":[{"rules":[{"paths":["/ok","/ok/*","admin","/a*b",""],"methods":["GET","G T"],"hosts":["*.ok.com","bad_host"]}]}]`),
			want: []string{
				`rateLimitPolicies[0].gatewayActions[0].rules[0].paths[2]: invalid path "admin": must start with "/"`,
				`rateLimitPolicies[0].gatewayActions[0].rules[0].paths[3]: invalid path "/a*b": "*" is allowed only at the end`,
				"rateLimitPolicies[0].gatewayActions[0].rules[0].paths[4]: must not be empty",
				"rateLimitPolicies[0].gatewayActions[0].rules[0].methods[1]: invalid HTTP method \"G T\": must be a token (letters, digits and !#$%&'*+-.^_`|~)",
				`rateLimitPolicies[0].gatewayActions[0].rules[0].hosts[1]: invalid pattern "bad_host": `,
			},
		},
		{
			name: "route matches",
			in:   policyJSON(`,"routeMatches":[{"path":{"type":"RegularExpression","value":"admin"},"method":"G:T","headers":[{"name":"x","type":"RegularExpression","value":"["},{"name":"","type":"Prefix"}]}]`),
			want: []string{
				`rateLimitPolicies[0].routeMatches[0].path.type: unsupported value "RegularExpression": must be Exact or PathPrefix`,
				`rateLimitPolicies[0].routeMatches[0].path.value: invalid path "admin": must start with "/"`,
				`rateLimitPolicies[0].routeMatches[0].method: invalid HTTP method "G:T"`,
				`rateLimitPolicies[0].routeMatches[0].headers[0].value: invalid regular expression "[": `,
				"rateLimitPolicies[0].routeMatches[0].headers[1].name: required",
				`rateLimitPolicies[0].routeMatches[0].headers[1].type: unsupported value "Prefix": must be Exact or RegularExpression`,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Decode([]byte(tc.in))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			err = Validate(cfg)
			var got []string
			if err != nil {
				got = lines(t, err)
			}
			// Messages that quote a dependency's explanation are compared up to it.
			for i := range got {
				if i < len(tc.want) && strings.HasSuffix(tc.want[i], ": ") && strings.HasPrefix(got[i], tc.want[i]) {
					got[i] = tc.want[i]
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
			if _, cerr := Compile(cfg); (cerr == nil) != (tc.want == nil) {
				t.Errorf("Compile error = %v, want an error: %v", cerr, tc.want != nil)
			}
		})
	}
}

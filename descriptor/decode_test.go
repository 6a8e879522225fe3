package descriptor

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeStrict(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the error, one problem per line
	}{
		{
			name: "unknown fields at every depth, all reported",
			in: `{"rateLimitPolicies":[{"rateLimitDomain":"d","upstreamCluster":"c","hostnames":["a.com"],"hostname":"x",
				"gatewayActions":[{"configurations":[{"actions":[{"generic_key":{"descriptor_value":"v","descriptor_keys":"k"}}]}]}]}],"failureMode":true}`,
			want: "failureMode: unknown field\n" +
				"rateLimitPolicies[0].gatewayActions[0].configurations[0].actions[0].generic_key.descriptor_keys: unknown field\n" +
				"rateLimitPolicies[0].hostname: unknown field",
		},
		{
			name: "wrong types",
			in:   `{"failureModeDeny":"yes","rateLimitPolicies":[{"hostnames":"a.com","gatewayActions":[{"configurations":[{"hits_addend":{"number":-1}}]}]}]}`,
			want: "failureModeDeny: expected a boolean, got a string\n" +
				"rateLimitPolicies[0].gatewayActions[0].configurations[0].hits_addend.number: expected an integer from 0 to 18446744073709551615, got -1\n" +
				"rateLimitPolicies[0].hostnames: expected a list, got a string",
		},
		{
			name: "hits_addend.response_body",
			in:   `{"rateLimitPolicies":[{"gatewayActions":[{"configurations":[{"hits_addend":{"response_body":{"json_pointer":7,"jsonPointer":"/usage"}}},{"hits_addend":{"response_body":"/usage"}}]}]}]}`,
			want: "rateLimitPolicies[0].gatewayActions[0].configurations[0].hits_addend.response_body.jsonPointer: unknown field\n" +
				"rateLimitPolicies[0].gatewayActions[0].configurations[0].hits_addend.response_body.json_pointer: expected a string, got the number 7\n" +
				"rateLimitPolicies[0].gatewayActions[0].configurations[1].hits_addend.response_body: expected an object, got a string",
		},
		{name: "not an object", in: `[1]`, want: "expected a JSON object, got a list"},
		{name: "trailing data", in: `{} {}`, want: "invalid JSON: unexpected data after the top-level value"},
		{name: "empty", in: ``, want: "empty document"},
		{name: "syntax", in: `{"a":`, want: "invalid JSON: unexpected EOF"},
		{
			name: "legacy keys mixed with current ones",
			in:   `{"failure_mode_deny":true,"rateLimitPolicies":[]}`,
			want: "rateLimitPolicies: unknown field",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.in))
			if err == nil {
				t.Fatalf("Decode(%s) = nil error, want %q", tc.in, tc.want)
			}
			if diff := cmp.Diff(tc.want, strings.Join(lines(t, err), "\n")); diff != "" {
				t.Errorf("Decode(%s) error (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestDecodeLegacyConverts(t *testing.T) {
	in := `{"failure_mode_deny":true,"ratelimitpolicies":{
		"ns/b":{"hosts":["b.com"],"upstream_cluster":"c","domain":"db"},
		"ns/a":{"hosts":["*.a.com"],"upstream_cluster":"c","domain":"da",
			"rules":[{"operations":[{"paths":["/x"],"methods":["GET"]},{"hosts":["h.a.com"]}],"actions":[{"generic_key":{"descriptor_value":"x"}}]}],
			"global_actions":[{"remote_address":{}}]}}}`
	got, err := Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	want := &PluginConfig{
		FailureModeDeny: &yes,
		RateLimitPolicies: []Policy{
			{
				Name: "ns/a", RateLimitDomain: "da", UpstreamCluster: "c", Hostnames: []string{"*.a.com"},
				GatewayActions: []GatewayAction{
					{
						Rules:          []Rule{{Paths: []string{"/x"}, Methods: []string{"GET"}}, {Hosts: []string{"h.a.com"}}},
						Configurations: []Configuration{{Actions: []Action{{GenericKey: &GenericKey{DescriptorValue: "x"}}}}},
					},
					{Configurations: []Configuration{{Actions: []Action{{RemoteAddress: &RemoteAddress{}}}}}},
				},
			},
			{Name: "ns/b", RateLimitDomain: "db", UpstreamCluster: "c", Hostnames: []string{"b.com"}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decode(legacy) (-want +got):\n%s", diff)
	}
}

func TestDecodeNullKeepsZero(t *testing.T) {
	got, err := Decode([]byte(`{"failureModeDeny":null,"rateLimitPolicies":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&PluginConfig{}, got); diff != "" {
		t.Errorf("Decode(nulls) (-want +got):\n%s", diff)
	}
}

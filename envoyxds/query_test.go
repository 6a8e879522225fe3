package envoyxds

import (
	"encoding/json"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/rlpkit/rlpkit/descriptor"
)

func TestQueryActions(t *testing.T) {
	one, no := "1", false
	tests := []struct {
		action descriptor.Action
		want   string
	}{{
		descriptor.Action{RemoteAddressMatch: &descriptor.RemoteAddressMatch{DescriptorKey: "net", DescriptorValue: "%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%",
			AddressMatcher: descriptor.AddressMatcher{Ranges: []descriptor.CidrRange{{AddressPrefix: "10.0.0.0", PrefixLen: 8}}, InvertMatch: true}}},
		`{"remote_address_match":{"descriptor_value":"%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%","descriptor_key":"net","address_matcher":{"ranges":[{"address_prefix":"10.0.0.0","prefix_len":8}],"invert_match":true}}}`,
	}, {
		descriptor.Action{QueryParameterValueMatch: &descriptor.QueryParameterValueMatch{DescriptorValue: "v", ExpectMatch: &no,
			QueryParameters: []descriptor.QueryParameterMatcher{{Name: "a", ExactMatch: &one}, {Name: "b"}}}},
		`{"query_parameter_value_match":{"descriptor_value":"v","expect_match":false,"query_parameters":[{"name":"a","string_match":{"exact":"1"}},{"name":"b","present_match":true}]}}`,
	}, {
		descriptor.Action{QueryParameters: &descriptor.QueryParameters{QueryParameterName: "id", DescriptorKey: "id", SkipIfAbsent: true}},
		`{"query_parameters":{"query_parameter_name":"id","descriptor_key":"id","skip_if_absent":true}}`,
	}}
	for _, tc := range tests {
		var c collector
		got := c.action("a", &tc.action, false)
		js, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, string(js), tc.want) {
			t.Errorf("action = %s, want %s", js, tc.want)
		}
		if err := got.ValidateAll(); err != nil {
			t.Errorf("action %s: %v", js, err)
		}
	}
}

// jsonEqual compares two JSON documents as values.
func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal([]byte(a), &va); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(va, vb)
}

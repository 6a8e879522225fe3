package descriptor

import (
	"testing"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// TestOverrideUnits reads a limit override from dynamic metadata for every
// unit name: WEEK is a response unit only (envoy.type.v3.RateLimitUnit has
// none), so an override naming it attaches nothing, as in Envoy.
func TestOverrideUnits(t *testing.T) {
	e := mustCompile(t, &PluginConfig{RateLimitPolicies: []Policy{{
		RateLimitDomain: "d", UpstreamCluster: "c", Hostnames: []string{"*"},
		GatewayActions: []GatewayAction{{Configurations: []Configuration{{
			Actions: []Action{{GenericKey: &GenericKey{DescriptorValue: "v"}}},
			Limit:   &LimitOverride{DynamicMetadata: &DynamicMetadataSource{MetadataKey: MetadataKey{Key: "ns", Path: []PathSegment{{"limit"}}}}},
		}}}},
	}}})
	tests := []struct {
		unit string
		want *rlsmsg.Override
	}{
		{"SECOND", &rlsmsg.Override{RequestsPerUnit: 5, Unit: rlsmsg.UnitSecond}},
		{"MINUTE", &rlsmsg.Override{RequestsPerUnit: 5, Unit: rlsmsg.UnitMinute}},
		{"HOUR", &rlsmsg.Override{RequestsPerUnit: 5, Unit: rlsmsg.UnitHour}},
		{"DAY", &rlsmsg.Override{RequestsPerUnit: 5, Unit: rlsmsg.UnitDay}},
		{"MONTH", &rlsmsg.Override{RequestsPerUnit: 5, Unit: rlsmsg.UnitMonth}},
		{"YEAR", &rlsmsg.Override{RequestsPerUnit: 5, Unit: rlsmsg.UnitYear}},
		{"WEEK", nil},
		{"UNKNOWN", nil},
		{"minute", nil},
	}
	for _, tc := range tests {
		t.Run(tc.unit, func(t *testing.T) {
			res := e.Generate(&Request{Host: "x", DynamicMetadata: Metadata{"ns": map[string]any{
				"limit": map[string]any{"requests_per_unit": 5.0, "unit": tc.unit},
			}}})
			if len(res.Descriptors) != 1 {
				t.Fatalf("Generate() = %d descriptors, want 1", len(res.Descriptors))
			}
			got := res.Descriptors[0].Limit
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("Generate(unit %q).Descriptors[0].Limit = %+v, want %+v", tc.unit, got, tc.want)
			}
		})
	}
}

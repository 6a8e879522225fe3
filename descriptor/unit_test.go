package descriptor

import "testing"

func TestUnits(t *testing.T) {
	tests := []struct {
		unit    Unit
		name    string
		seconds uint32
	}{
		{UnitUnknown, "UNKNOWN", 0},
		{UnitSecond, "SECOND", 1},
		{UnitMinute, "MINUTE", 60},
		{UnitHour, "HOUR", 3600},
		{UnitDay, "DAY", 86400},
		{UnitMonth, "MONTH", 2592000},
		{UnitYear, "YEAR", 31536000},
		{UnitWeek, "WEEK", 604800},
		{Unit(8), "Unit(8)", 0},
		{Unit(-1), "Unit(-1)", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.unit.String(); got != tc.name {
				t.Errorf("Unit(%d).String() = %q, want %q", int32(tc.unit), got, tc.name)
			}
			if got := tc.unit.Seconds(); got != tc.seconds {
				t.Errorf("%v.Seconds() = %d, want %d", tc.unit, got, tc.seconds)
			}
			wantForSeconds, wantParse, wantOK := tc.unit, tc.unit, true
			if tc.seconds == 0 {
				wantForSeconds, wantParse, wantOK = UnitUnknown, UnitUnknown, false
			}
			if tc.seconds > 0 {
				if got := UnitForSeconds(tc.seconds); got != wantForSeconds {
					t.Errorf("UnitForSeconds(%d) = %v, want %v", tc.seconds, got, wantForSeconds)
				}
			}
			if got, ok := ParseUnit(tc.name); got != wantParse || ok != wantOK {
				t.Errorf("ParseUnit(%q) = %v, %v, want %v, %v", tc.name, got, ok, wantParse, wantOK)
			}
		})
	}
	for _, s := range []uint32{0, 2, 120, 7 * 86400 * 2} {
		if got := UnitForSeconds(s); got != UnitUnknown {
			t.Errorf("UnitForSeconds(%d) = %v, want UNKNOWN", s, got)
		}
	}
	for _, s := range []string{"", "second", "FORTNIGHT"} {
		if got, ok := ParseUnit(s); ok {
			t.Errorf("ParseUnit(%q) = %v, true, want UNKNOWN, false", s, got)
		}
	}
}

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
		want *Override
	}{
		{"SECOND", &Override{5, UnitSecond}},
		{"MINUTE", &Override{5, UnitMinute}},
		{"HOUR", &Override{5, UnitHour}},
		{"DAY", &Override{5, UnitDay}},
		{"MONTH", &Override{5, UnitMonth}},
		{"YEAR", &Override{5, UnitYear}},
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

package kuadrantv1

import (
	"strings"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestValidateSectionName: a sectionName is checked with Gateway API's SectionName
// pattern, which the CRD applies: dot-separated DNS labels.
func TestValidateSectionName(t *testing.T) {
	tests := []struct {
		section string
		want    string // "" for valid, else a part of the error
	}{
		{"public", ""},
		{"rule-1", ""},
		{"public.v1", ""},
		{"a.b-c.d", ""},
		{"Rule_1", `spec.targetRef.sectionName: Invalid value: "Rule_1"`},
		{"-public", "spec.targetRef.sectionName"},
		{"public.", "spec.targetRef.sectionName"},
		{strings.Repeat("a", 254), "spec.targetRef.sectionName"},
	}
	for _, tc := range tests {
		section := gatewayv1.SectionName(tc.section)
		p := &RateLimitPolicy{Spec: RateLimitPolicySpec{
			TargetRef: gatewayv1.LocalPolicyTargetReferenceWithSectionName{
				LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{Group: gatewayv1.GroupName, Kind: "Gateway", Name: "gw"},
				SectionName:                &section,
			},
			RateLimitPolicySpecProper: RateLimitPolicySpecProper{Limits: map[string]Limit{"l": {Rates: []Rate{{Limit: 1, Window: "1s"}}}}},
		}}
		got := ValidateRateLimitPolicy(p).ToAggregate()
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("ValidateRateLimitPolicy(sectionName %q) = %v, want no error", tc.section, got)
		case tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want)):
			t.Errorf("ValidateRateLimitPolicy(sectionName %q) = %v, want an error with %q", tc.section, got, tc.want)
		}
	}
}

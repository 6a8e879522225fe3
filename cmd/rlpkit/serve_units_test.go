package main

import (
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
)

// TestServeUnitMultiplier: a limit whose window is not one unit reports current_limit with
// the longest unit that divides it and unit_multiplier, as cmd/ratelimit does, not UNKNOWN.
func TestServeUnitMultiplier(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "limits.yaml", `- {namespace: d, max_value: 5, seconds: 10, variables: [user]}
- {namespace: e, max_value: 5, seconds: 120, variables: [user]}
- {namespace: f, max_value: 5, seconds: 60, variables: [user]}
`)
	s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file)
	for _, tc := range []struct {
		domain string
		unit   rlsv3.RateLimitResponse_RateLimit_Unit
		mult   uint32
	}{{"d", rlsv3.RateLimitResponse_RateLimit_SECOND, 10}, {"e", rlsv3.RateLimitResponse_RateLimit_MINUTE, 2}, {"f", rlsv3.RateLimitResponse_RateLimit_MINUTE, 0}} {
		resp := s.mustCall(t, rlsRequest(tc.domain, 0, rlsDesc("user", "alice")))
		cl := resp.GetStatuses()[0].GetCurrentLimit()
		if cl.GetUnit() != tc.unit || cl.GetUnitMultiplier().GetValue() != tc.mult {
			t.Errorf("domain %s: current_limit %v x %d, want %v x %d", tc.domain, cl.GetUnit(), cl.GetUnitMultiplier().GetValue(), tc.unit, tc.mult)
		}
	}
}

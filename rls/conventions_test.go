package rls

import (
	"context"
	"errors"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
)

// TestConventions: the same evaluator answers with each set of conventions
// its codes and messages; what does not depend on them (an override with
// unit UNKNOWN is invalid) is the same in both.
func TestConventions(t *testing.T) {
	limits := []limitador.Limit{{Namespace: "shop", MaxValue: 1, Seconds: 60, Variables: []string{"user"}}}
	down := failingStore{errors.New("connection refused")}
	tests := []struct {
		conv      *Conventions
		store     counter.Store
		req       *rlsv3.RateLimitRequest
		code      codes.Code
		message   string
		noEvalYet bool
	}{
		{&RLPKit, nil, request("", 0, desc("user", "a")), codes.InvalidArgument, "rls: invalid request: domain: empty", false},
		{&EnvoyRateLimit, nil, request("", 0, desc("user", "a")), codes.Unknown, "ratelimit: invalid request: domain: empty", false},
		{&RLPKit, nil, request("shop", 0, desc()), codes.InvalidArgument, "rls: invalid request: descriptors[0].entries: empty", false},
		{&RLPKit, nil, request("shop", 0, withOverride(desc("user", "a"), 1, typev3.RateLimitUnit_UNKNOWN)), codes.InvalidArgument,
			"rls: invalid request: descriptors[0].limit.unit: UNKNOWN is not a unit: want SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR", false},
		{&EnvoyRateLimit, nil, request("shop", 0, withOverride(desc("user", "a"), 1, typev3.RateLimitUnit_UNKNOWN)), codes.Unknown,
			"ratelimit: invalid request: descriptors[0].limit.unit: UNKNOWN is not a unit: want SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR", false},
		{&RLPKit, down, request("shop", 0, desc("user", "a")), codes.Unavailable, "rls: counter store unavailable: connection refused", false},
		{&EnvoyRateLimit, down, request("shop", 0, desc("user", "a")), codes.Unknown, "ratelimit: counter store unavailable: connection refused", false},
		{&RLPKit, nil, request("shop", 0, desc("user", "a")), codes.Unavailable, "no rate limit configuration loaded", true},
		{&EnvoyRateLimit, nil, request("shop", 0, desc("user", "a")), codes.Unknown, "no rate limit configuration loaded", true},
	}
	for _, tc := range tests {
		store := tc.store
		if store == nil {
			store = counter.NewMemoryStore(counter.MemoryOptions{})
		}
		s := NewService(Options{Store: store, Conventions: tc.conv})
		if !tc.noEvalYet {
			if err := s.SetLimits(limits); err != nil {
				t.Fatal(err)
			}
		}
		if s.Loaded() == tc.noEvalYet {
			t.Errorf("Loaded() = %v with an evaluator set: %v", s.Loaded(), !tc.noEvalYet)
		}
		_, err := s.ShouldRateLimit(context.Background(), tc.req)
		if st := status.Convert(err); st.Code() != tc.code || st.Message() != tc.message {
			t.Errorf("%s conventions: ShouldRateLimit = %v, want %v %q", tc.conv.Prefix, err, tc.code, tc.message)
		}
	}
}

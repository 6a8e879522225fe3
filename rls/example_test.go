package rls_test

import (
	"context"
	"fmt"
	"time"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/rls"
)

// A Service over the memory store, asked directly; a server registers it
// with rlsv3.RegisterRateLimitServiceServer instead.
func Example() {
	limits := []limitador.Limit{{Namespace: "shop", MaxValue: 2, Seconds: 60, Variables: []string{"user"}, Name: "per user"}}
	now := time.Date(2024, 1, 1, 12, 0, 15, 0, time.UTC)
	svc, err := rls.New(limits, rls.Options{
		Store:           counter.NewMemoryStore(counter.MemoryOptions{}),
		Clock:           func() time.Time { return now },
		ResponseHeaders: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	req := &rlsv3.RateLimitRequest{Domain: "shop", Descriptors: []*rlcommon.RateLimitDescriptor{{
		Entries: []*rlcommon.RateLimitDescriptor_Entry{{Key: "user", Value: "alice"}},
	}}}
	for range 3 {
		resp, err := svc.ShouldRateLimit(context.Background(), req)
		if err != nil {
			fmt.Println(err)
			return
		}
		st := resp.GetStatuses()[0]
		fmt.Printf("%s: %d of %d/%s left, reset in %v;", resp.GetOverallCode(), st.GetLimitRemaining(),
			st.GetCurrentLimit().GetRequestsPerUnit(), st.GetCurrentLimit().GetUnit(), st.GetDurationUntilReset().AsDuration())
		for _, h := range resp.GetResponseHeadersToAdd() {
			fmt.Printf(" %s: %s", h.GetKey(), h.GetValue())
		}
		fmt.Println()
	}
	// Output:
	// OK: 1 of 2/MINUTE left, reset in 1m0s; RateLimit-Limit: 2 RateLimit-Remaining: 1 RateLimit-Reset: 60
	// OK: 0 of 2/MINUTE left, reset in 1m0s; RateLimit-Limit: 2 RateLimit-Remaining: 0 RateLimit-Reset: 60
	// OVER_LIMIT: 0 of 2/MINUTE left, reset in 1m0s; RateLimit-Limit: 2 RateLimit-Remaining: 0 RateLimit-Reset: 60 Retry-After: 60
}

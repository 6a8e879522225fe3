package rls

import (
	"context"
	"strconv"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"

	"github.com/rlpkit/rlpkit/limit"
)

// benchLimits admit everything the benchmarks send, so every decision
// reaches the store and consumes.
var benchLimits = []limit.Limit{
	{Namespace: "shop", MaxValue: 1 << 30, Seconds: 60, Variables: []string{"user"}, Name: "per user"},
	{Namespace: "shop", MaxValue: 1 << 30, Seconds: 1, Conditions: []string{"path == '/cart'"}, Name: "cart"},
}

func benchRequests(n int) []*rlsv3.RateLimitRequest {
	reqs := make([]*rlsv3.RateLimitRequest, n)
	for i := range reqs {
		reqs[i] = request("shop", 0, desc("path", "/cart", "user", "u"+strconv.Itoa(i)))
	}
	return reqs
}

// BenchmarkShouldRateLimit is one decision without the network: two limits
// applying to one descriptor, 1,024 users, the memory store.
func BenchmarkShouldRateLimit(b *testing.B) {
	s := newService(b, benchLimits, true)
	reqs := benchRequests(1024)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := s.ShouldRateLimit(ctx, reqs[i%len(reqs)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkShouldRateLimitGRPC is the same decision over gRPC on loopback,
// client and server in this process, as many concurrent calls as
// RunParallel runs goroutines (see -cpu and SetParallelism).
func BenchmarkShouldRateLimitGRPC(b *testing.B) {
	client := serveLoopback(b, newService(b, benchLimits, true))
	reqs := benchRequests(1024)
	ctx := context.Background()
	b.SetParallelism(16)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := client.ShouldRateLimit(ctx, reqs[i%len(reqs)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

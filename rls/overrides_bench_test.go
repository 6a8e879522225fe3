package rls

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"testing"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
)

// overrideRequest returns a request of n descriptors, each with distinct
// entries and a limit override: the request whose counters are all the
// caller's own, the largest batch a client can make a server count.
func overrideRequest(domain string, n int) *rlsv3.RateLimitRequest {
	descs := make([]*rlcommon.RateLimitDescriptor, n)
	for i := range descs {
		descs[i] = withOverride(desc("user", "u"+strconv.Itoa(i)), 1<<30, typev3.RateLimitUnit_MINUTE)
	}
	return request(domain, 0, descs...)
}

// uncapped lifts the request caps: the work must be proportional to the
// request even where a server lets such requests in.
var uncapped = RequestCaps{MaxDescriptors: math.MaxInt32, MaxEntries: math.MaxInt32, MaxKeyBytes: math.MaxInt32}

// overrideServices returns a Service per evaluator over a fresh memory
// store, without request caps: Limitador-style limits and
// envoyproxy/ratelimit's configuration.
func overrideServices(tb testing.TB) map[string]*Service {
	tb.Helper()
	ev, err := envoyratelimit.NewEvaluator(envoyratelimit.Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := envoyratelimit.Load([]envoyratelimit.File{{Key: "config.shop", Data: []byte("domain: shop\ndescriptors:\n  - key: k\n    rate_limit: {unit: minute, requests_per_unit: 2}\n")}}, envoyratelimit.LoadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	ers := NewService(Options{Conventions: &EnvoyRateLimit, Clock: fixedClock(t0), Caps: uncapped})
	ers.SetEvaluator(ev.WithConfig(cfg), cfg.Limits())
	lim, err := New(benchLimits, Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), Clock: fixedClock(t0), Caps: uncapped})
	if err != nil {
		tb.Fatal(err)
	}
	return map[string]*Service{"limitador": lim, "envoyratelimit": ers}
}

// BenchmarkShouldRateLimitOverrides is one request of many descriptors,
// each with its own limit override, through each evaluator and the memory
// store, past the default caps: the work must grow linearly with the
// descriptors.
func BenchmarkShouldRateLimitOverrides(b *testing.B) {
	services := overrideServices(b)
	for _, format := range []string{"limitador", "envoyratelimit"} {
		for _, n := range []int{1_000, 30_000} {
			b.Run(fmt.Sprintf("format=%s/descriptors=%d", format, n), func(b *testing.B) {
				s, req := services[format], overrideRequest("shop", n)
				ctx := context.Background()
				for b.Loop() {
					resp, err := s.ShouldRateLimit(ctx, req)
					if err != nil {
						b.Fatal(err)
					}
					if resp.OverallCode != rlsv3.RateLimitResponse_OK {
						b.Fatalf("overall %v, want OK", resp.OverallCode)
					}
				}
			})
		}
	}
}

package rls

import (
	"context"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
)

// BenchmarkCheckReportGRPC is a check then a report over gRPC on loopback,
// as BenchmarkShouldRateLimitGRPC, in each mode: what a token-limited
// request costs the server beside ShouldRateLimit's one call.
func BenchmarkCheckReportGRPC(b *testing.B) {
	for _, mode := range []Mode{ModeLimitador, ModeReserve} {
		b.Run(mode.String(), func(b *testing.B) {
			s := newService(b, benchLimits, false)
			s.opts.CheckReport = CheckReport{Mode: mode, DefaultEstimate: 100}
			k := serveKuadrant(b, s)
			reqs := benchRequests(1024)
			ctx := context.Background()
			b.SetParallelism(16)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				out := new(rlsv3.RateLimitResponse)
				for pb.Next() {
					req := reqs[i%len(reqs)]
					for _, m := range []string{"CheckRateLimit", "Report"} {
						if err := k.conn.Invoke(ctx, "/"+KuadrantServiceName+"/"+m, req, out); err != nil {
							b.Fatal(err)
						}
					}
					i++
				}
			})
		})
	}
}

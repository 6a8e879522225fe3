package main

import (
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/protobuf/proto"
)

// BenchmarkRequest measures one request through the module on the harness: headers in,
// descriptors generated, the RateLimitRequest encoded and handed to the host, the reply
// decoded and the request continued, response headers, done and delete. "canned" answers
// inside the host (the module's and the harness's cost); "rls" asks package rls on loopback.
// It reports the module's linear memory at the end.
func BenchmarkRequest(b *testing.B) {
	ok, _ := proto.Marshal(&rlsv3.RateLimitResponse{OverallCode: rlsv3.RateLimitResponse_OK})
	cfg, limits := toystore(b)
	for _, bc := range []struct {
		name string
		opt  func(testing.TB) hostOption
	}{
		{"canned", func(testing.TB) hostOption { return withCannedCluster("rate-limit-cluster", ok) }},
		{"rls", func(tb testing.TB) hostOption { return withCluster("rate-limit-cluster", startRLS(tb, limits)) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h, configured := newHost(b, module, cfg, bc.opt(b))
			if !configured {
				b.Fatalf("proxy_on_configure failed:\n%s", h.dump())
			}
			headers, props := get("GET", "api.toystore.com", "/toy/42", "203.0.113.7:41000", [2]string{"user-agent", "bench"})
			b.ReportAllocs()
			for b.Loop() {
				s := h.request(headers, props)
				h.deliver(h.next())
				h.respond(s, [][2]string{{":status", "200"}})
				h.end(s)
			}
			b.ReportMetric(float64(h.memory())/(1<<20), "MiB-linear-memory")
		})
	}
}

// BenchmarkRequestWithoutCall measures a request no policy covers: headers read,
// descriptors generated (none), continue.
func BenchmarkRequestWithoutCall(b *testing.B) {
	cfg, _ := toystore(b)
	h, configured := newHost(b, module, cfg)
	if !configured {
		b.Fatalf("proxy_on_configure failed:\n%s", h.dump())
	}
	headers, props := get("GET", "www.example.com", "/", "203.0.113.7:41000")
	b.ReportAllocs()
	for b.Loop() {
		h.end(h.request(headers, props))
	}
}

// BenchmarkInstantiate measures what Envoy does per worker thread when it loads the plugin:
// instantiate the (already compiled) module, _initialize, create the root context, vm start
// and configure with the toystore PluginConfig. It reports the module's size.
func BenchmarkInstantiate(b *testing.B) {
	cfg, _ := toystore(b)
	newHost(b, module, cfg) // compile once, outside the loop
	b.ReportAllocs()
	for b.Loop() {
		h, ok := newHost(b, module, cfg)
		if !ok {
			b.Fatal("proxy_on_configure failed")
		}
		h.rt.Close(h.ctx)
	}
	b.ReportMetric(float64(len(module)), "module-bytes")
}

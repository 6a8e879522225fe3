package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc/metadata"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

const (
	parentTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentSpan  = "00f067aa0ba902b7"
)

// tracingEnv is a service with tracing on over protocol, exporting to
// endpoint (set in the process's environment, where the exporters read
// it), with one limit of 2 per hour on domain d, key k.
func tracingEnv(t *testing.T, protocol, endpoint string) map[string]string {
	t.Helper()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(2))
	env := baseEnv(root)
	env["TRACING_ENABLED"] = "true"
	if protocol != "" {
		env["TRACING_EXPORTER_PROTOCOL"] = protocol
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
	env["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
	return env
}

// callWith sends a request for d, k=v with the metadata kv (key, value...).
func callWith(t *testing.T, s *server, kv ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, kv...)
	req := &rlsv3.RateLimitRequest{Domain: "d", Descriptors: []*rlv3.RateLimitDescriptor{{Entries: []*rlv3.RateLimitDescriptor_Entry{{Key: "k", Value: "v"}}}}}
	if _, err := s.client.ShouldRateLimit(ctx, req); err != nil {
		t.Fatal(err)
	}
}

// one returns the only span called name.
func one(t *testing.T, c *collector, name string) gotSpan {
	t.Helper()
	got := c.named(name)
	if len(got) != 1 {
		var names []string
		for _, s := range c.got() {
			names = append(names, s.Name)
		}
		t.Fatalf("%d spans %q, want 1; received %q", len(got), name, names)
	}
	return got[0]
}

// checkAttrs checks that span has the attributes of want.
func checkAttrs(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: attribute %q = %q, want %q (all: %v)", what, k, got[k], v, got)
		}
	}
}

const grpcSpan = "envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit"

// Over OTLP/gRPC, with Redis: the server span continues the caller's
// traceparent, the decision's span is its child and the Redis round
// trip's span the decision's, each with the reference's names and
// attributes, under the resource of TRACING_SERVICE_*.
func TestTracingGRPCSpansOfACall(t *testing.T) {
	c, endpoint := startGRPCCollector(t)
	env := tracingEnv(t, "grpc", endpoint)
	rs := redistest.Start(t)
	env["BACKEND_TYPE"], env["REDIS_SOCKET_TYPE"], env["REDIS_URL"] = "redis", "tcp", rs.Addr
	env["TRACING_SERVICE_NAME"], env["TRACING_SERVICE_NAMESPACE"], env["TRACING_SERVICE_INSTANCE_ID"] = "rl", "edge", "rl-0"
	s := start(t, env)
	callWith(t, s, "traceparent", "00-"+parentTrace+"-"+parentSpan+"-01")
	if code := s.stop(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, s.log)
	}

	srv := one(t, c, grpcSpan)
	if hexID(srv.TraceId) != parentTrace || hexID(srv.ParentSpanId) != parentSpan {
		t.Errorf("server span in trace %s under %s, want the traceparent's %s under %s", hexID(srv.TraceId), hexID(srv.ParentSpanId), parentTrace, parentSpan)
	}
	if srv.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("server span kind %v", srv.Kind)
	}
	checkAttrs(t, "server span", attrs(srv.Attributes), map[string]string{
		"rpc.system": "grpc", "rpc.service": "envoy.service.ratelimit.v3.RateLimitService", "rpc.method": "ShouldRateLimit",
		"rpc.grpc.status_code": "0", "net.sock.peer.addr": "127.0.0.1",
	})
	checkAttrs(t, "resource", srv.resource, map[string]string{"service.name": "rl", "service.namespace": "edge", "service.instance.id": "rl-0"})

	dec := one(t, c, spanShouldRateLimit)
	if hexID(dec.TraceId) != parentTrace || hexID(dec.ParentSpanId) != hexID(srv.SpanId) {
		t.Errorf("%q not a child of the server span", spanShouldRateLimit)
	}
	checkAttrs(t, spanShouldRateLimit, attrs(dec.Attributes), map[string]string{"domain": "d", "request string": "domain=d [k=v]"})
	if dec.scope != "ratelimit" {
		t.Errorf("%q in scope %q, want the reference's ratelimit", spanShouldRateLimit, dec.scope)
	}

	red := one(t, c, spanRedis)
	if hexID(red.ParentSpanId) != hexID(dec.SpanId) {
		t.Errorf("%q not a child of %q", spanRedis, spanShouldRateLimit)
	}
	checkAttrs(t, spanRedis, attrs(red.Attributes), map[string]string{"pipeline length": "1"})
}

// Over OTLP/HTTP, the reference's default protocol: a call without trace
// context starts a trace; the instance id is a random UUID when unset, an
// empty namespace is left out, and OTEL_RESOURCE_ATTRIBUTES adds to the
// resource without overriding TRACING_SERVICE_NAME.
func TestTracingHTTPDefaultProtocol(t *testing.T) {
	c, endpoint := startHTTPCollector(t)
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test,service.name=other")
	s := start(t, tracingEnv(t, "", endpoint))
	callWith(t, s)
	s.stop()

	srv := one(t, c, grpcSpan)
	if len(srv.ParentSpanId) != 0 {
		t.Errorf("server span has parent %s, want a root", hexID(srv.ParentSpanId))
	}
	if dec := one(t, c, spanShouldRateLimit); hexID(dec.ParentSpanId) != hexID(srv.SpanId) {
		t.Errorf("%q not a child of the server span", spanShouldRateLimit)
	}
	if got := c.named(spanRedis); len(got) != 0 {
		t.Errorf("BACKEND_TYPE=memory: %d Redis spans", len(got))
	}
	checkAttrs(t, "resource", srv.resource, map[string]string{"service.name": "RateLimit", "deployment.environment": "test"})
	if id := srv.resource["service.instance.id"]; !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(id) {
		t.Errorf("service.instance.id = %q, want a random UUID", id)
	}
	if ns, ok := srv.resource["service.namespace"]; ok {
		t.Errorf("service.namespace = %q, want none", ns)
	}
}

// TRACING_SAMPLING_RATE applies to the traces started here; a sampled or
// unsampled parent decides for its trace (a parent-based sampler).
func TestTracingSamplingRate(t *testing.T) {
	for _, tc := range []struct {
		rate, flags string // flags "" sends no traceparent
		want        int
	}{
		{"0", "", 0},
		{"0", "01", 1},
		{"1", "00", 0},
		{"1", "", 1},
	} {
		c, endpoint := startHTTPCollector(t)
		env := tracingEnv(t, "http", endpoint)
		env["TRACING_SAMPLING_RATE"] = tc.rate
		s := start(t, env)
		var md []string
		if tc.flags != "" {
			md = []string{"traceparent", "00-" + parentTrace + "-" + parentSpan + "-" + tc.flags}
		}
		callWith(t, s, md...)
		callWith(t, s, md...)
		s.stop() // exports every span still buffered
		if got := len(c.named(grpcSpan)); got != 2*tc.want {
			t.Errorf("rate %s, parent flags %q: %d server spans of 2 calls, want %d", tc.rate, tc.flags, got, 2*tc.want)
		}
		if tc.want == 0 && len(c.got()) != 0 {
			t.Errorf("rate %s, parent flags %q: %d spans exported, want none", tc.rate, tc.flags, len(c.got()))
		}
	}
}

// A Zipkin B3 context (the single header or X-B3-*) is continued too, as
// the reference's propagators do.
func TestTracingB3Parent(t *testing.T) {
	c, endpoint := startHTTPCollector(t)
	s := start(t, tracingEnv(t, "http", endpoint))
	callWith(t, s, "b3", parentTrace+"-"+parentSpan+"-1")
	callWith(t, s, "x-b3-traceid", parentTrace[16:], "x-b3-spanid", parentSpan, "x-b3-sampled", "1")
	s.stop()
	got := c.named(grpcSpan)
	if len(got) != 2 {
		t.Fatalf("%d server spans, want 2", len(got))
	}
	for i, want := range []string{parentTrace, "0000000000000000" + parentTrace[16:]} {
		if hexID(got[i].TraceId) != want || hexID(got[i].ParentSpanId) != parentSpan {
			t.Errorf("call %d: trace %s under %s, want %s under %s", i, hexID(got[i].TraceId), hexID(got[i].ParentSpanId), want, parentSpan)
		}
	}
}

// POST /json's decision joins the trace of the request's traceparent.
func TestTracingJSONParent(t *testing.T) {
	c, endpoint := startHTTPCollector(t)
	s := start(t, tracingEnv(t, "http", endpoint))
	req, _ := http.NewRequest("POST", "http://"+s.addrs.http+"/json", strings.NewReader(`{"domain":"d","descriptors":[{"entries":[{"key":"k","value":"v"}]}]}`))
	req.Header.Set("traceparent", "00-"+parentTrace+"-"+parentSpan+"-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST /json: %s", resp.Status)
	}
	s.stop()
	dec := one(t, c, spanShouldRateLimit)
	if hexID(dec.TraceId) != parentTrace || hexID(dec.ParentSpanId) != parentSpan {
		t.Errorf("%q in trace %s under %s, want %s under %s", spanShouldRateLimit, hexID(dec.TraceId), hexID(dec.ParentSpanId), parentTrace, parentSpan)
	}
}

// A call that fails on the server's side marks the server span an error,
// with the gRPC code.
func TestTracingFailedCall(t *testing.T) {
	c, endpoint := startHTTPCollector(t)
	env := tracingEnv(t, "http", endpoint)
	env["RUNTIME_ROOT"] = t.TempDir() // no configuration: every call fails
	s := start(t, env)
	if _, err := s.call(t, "d", "k=v"); err == nil {
		t.Fatal("call without configuration succeeded")
	}
	s.stop()
	srv := one(t, c, grpcSpan)
	if srv.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || !strings.Contains(srv.Status.GetMessage(), "no rate limit configuration loaded") {
		t.Errorf("server span status %v, want an error with the call's message", srv.Status)
	}
	checkAttrs(t, "server span", attrs(srv.Attributes), map[string]string{"rpc.grpc.status_code": "2"})
}

// A collector that refuses the spans is logged at warn, and the service
// still answers and stops cleanly.
func TestTracingExportFailureLogged(t *testing.T) {
	var refused atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refused.Add(1)
		http.Error(w, "no", http.StatusBadRequest) // not retried by the exporter
	}))
	defer hs.Close()
	s := start(t, tracingEnv(t, "http", hs.URL))
	callWith(t, s)
	if code := s.stop(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if refused.Load() == 0 || !strings.Contains(s.log.String(), "level=WARN msg=\"tracing: exporting") {
		t.Errorf("%d exports refused; log:\n%s", refused.Load(), s.log)
	}
}

// A Redis that fails marks the Redis span an error, and the server span
// too (the call fails with Unknown).
func TestTracingRedisFailure(t *testing.T) {
	c, endpoint := startGRPCCollector(t)
	env := tracingEnv(t, "grpc", endpoint)
	rs := redistest.Start(t)
	env["BACKEND_TYPE"], env["REDIS_SOCKET_TYPE"], env["REDIS_URL"], env["REDIS_TIMEOUT"] = "redis", "tcp", rs.Addr, "1s"
	s := start(t, env)
	rs.Kill()
	if _, err := s.call(t, "d", "k=v"); err == nil {
		t.Fatal("call with Redis down succeeded")
	}
	s.stop()
	red := one(t, c, spanRedis)
	if red.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || red.Status.GetMessage() == "" {
		t.Errorf("Redis span status %v, want an error with its message", red.Status)
	}
	if srv := one(t, c, grpcSpan); srv.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("server span status %v, want an error", srv.Status)
	}
}

package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc"

	"github.com/rlpkit/rlpkit/internal/serving"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// inProcess returns an instance over a memory store with a limit on d, k
// (its configuration loaded), traced by tr (nil: off).
func inProcess(t testing.TB, tr *tracer) *instance {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "ratelimit/config")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := "domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 1000000000}\n"
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	env := baseEnv(root)
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	s, _, err := readSettings(lookup, environ(env))
	if err != nil {
		t.Fatal(err)
	}
	log := serving.NewLogger(io.Discard, "text", s.logLevel)
	store := tr.store(counter.NewMemoryStore(counter.MemoryOptions{}))
	srv, err := newServer(s, log, store, newStoreHealth(s, log), tr)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

var allocRequest = &rlsv3.RateLimitRequest{Domain: "d", Descriptors: []*rlv3.RateLimitDescriptor{{Entries: []*rlv3.RateLimitDescriptor_Entry{{Key: "k", Value: "v"}}}}}

func callAllocs(t *testing.T, srv *instance) float64 {
	t.Helper()
	ctx := context.Background()
	return testing.AllocsPerRun(200, func() {
		if _, err := srv.svc.ShouldRateLimit(ctx, allocRequest); err != nil {
			t.Fatal(err)
		}
	})
}

// With tracing off, nothing is added to a call: every hook hands back
// what it is given, no interceptor is installed, and a call allocates
// less than one with tracing on, even unsampled (which this measure
// would show if a hook stayed in place).
func TestTracingOffAddsNothingToACall(t *testing.T) {
	var off *tracer
	store := counter.Store(counter.NewMemoryStore(counter.MemoryOptions{}))
	h := new(nopHandler)
	if off.store(store) != store || off.httpHandler(h) != http.Handler(h) || off.serverOptions() != nil {
		t.Error("tracing off: the store or the /json handler is wrapped, or the gRPC server gets options")
	}
	offAllocs := callAllocs(t, inProcess(t, nil))
	unsampled := tracerOf(sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0)))))
	onAllocs := callAllocs(t, inProcess(t, unsampled))
	t.Logf("allocations per call: tracing off %.0f, on and unsampled %.0f", offAllocs, onAllocs)
	if onAllocs <= offAllocs {
		t.Errorf("allocations per call: off %.0f, on %.0f; want fewer off", offAllocs, onAllocs)
	}
}

type nopHandler struct{}

func (*nopHandler) ServeHTTP(http.ResponseWriter, *http.Request) {}

// BenchmarkTracing measures a decision (the in-process ShouldRateLimit
// over the memory store, with the server span's interceptor when tracing
// is on) with tracing off, on and unsampled, and on and sampled (spans
// batched to an exporter that drops them).
func BenchmarkTracing(b *testing.B) {
	info := &grpc.UnaryServerInfo{FullMethod: "/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit"}
	for _, bc := range []struct {
		name string
		tr   *tracer
	}{
		{"off", nil},
		{"unsampled", tracerOf(sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0)))))},
		{"sampled", tracerOf(sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter())))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := inProcess(b, bc.tr)
			handler := func(ctx context.Context, _ any) (any, error) { return srv.svc.ShouldRateLimit(ctx, allocRequest) }
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if bc.tr == nil {
					_, err = handler(ctx, nil)
				} else {
					_, err = bc.tr.intercept(ctx, nil, info, handler)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		if bc.tr != nil {
			bc.tr.tp.Shutdown(context.Background())
		}
	}
}

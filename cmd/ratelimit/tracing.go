package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	grpccodes "google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// The spans' names, the reference's.
const (
	spanShouldRateLimit = "ShouldRateLimit Execution"
	spanRedis           = "Redis Pipeline Execution"
)

// tracingShutdownTimeout bounds the export of the spans left at stop.
const tracingShutdownTimeout = 5 * time.Second

// tracer is the OpenTelemetry tracing of TRACING_ENABLED=true. A nil
// *tracer is tracing off: each of its methods then returns what it is
// given, so that nothing is added to a call.
type tracer struct {
	tp      *sdktrace.TracerProvider
	server  trace.Tracer // the gRPC server span
	service trace.Tracer // spanShouldRateLimit
	redis   trace.Tracer // spanRedis
	prop    propagation.TextMapPropagator
}

// newTracer returns the tracing of t, nil when it is off: a tracer
// provider exporting in batches over OTLP (t.protocol), which the
// exporter configures from the OTEL_EXPORTER_OTLP_* variables, sampling
// as its parent did or, for a trace started here, at t.samplingRate. An
// export that fails is logged at warn.
func newTracer(t tracingSettings, log *slog.Logger) (*tracer, error) {
	if !t.enabled {
		return nil, nil
	}
	var exp sdktrace.SpanExporter
	var err error
	if t.protocol == "grpc" {
		exp, err = otlptracegrpc.New(context.Background())
	} else {
		exp, err = otlptracehttp.New(context.Background())
	}
	if err != nil {
		return nil, fmt.Errorf("TRACING_EXPORTER_PROTOCOL=%s: creating the OTLP exporter: %w", t.protocol, err)
	}
	id := t.serviceInstanceID
	if id == "" {
		id = randomUUID()
	}
	attrs := []attribute.KeyValue{semconv.ServiceName(t.serviceName), semconv.ServiceInstanceID(id)}
	if t.serviceNamespace != "" {
		attrs = append(attrs, semconv.ServiceNamespace(t.serviceNamespace))
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(t.samplingRate))),
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewWithAttributes(semconv.SchemaURL, attrs...)),
	)
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("tracing: exporting spans", "err", err) }))
	log.Info("tracing enabled", "protocol", t.protocol, "service_name", t.serviceName,
		"service_namespace", t.serviceNamespace, "service_instance_id", id, "sampling_rate", t.samplingRate)
	return tracerOf(tp), nil
}

// tracerOf returns the tracing with the spans of tp. The spans of the
// decisions and of Redis are in the reference's instrumentation scopes,
// "ratelimit" and "redis.fixedCacheImpl"; the server span, which the
// reference's gRPC instrumentation opens, in cmd/ratelimit's.
func tracerOf(tp *sdktrace.TracerProvider) *tracer {
	return &tracer{
		tp:      tp,
		server:  tp.Tracer("github.com/rlpkit/rlpkit/cmd/ratelimit"),
		service: tp.Tracer("ratelimit"),
		redis:   tp.Tracer("redis.fixedCacheImpl"),
		prop:    propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, b3Propagator{}),
	}
}

// shutdown exports the spans still buffered and stops the provider.
func (t *tracer) shutdown(log *slog.Logger) {
	if t == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), tracingShutdownTimeout)
	defer cancel()
	if err := t.tp.Shutdown(ctx); err != nil {
		log.Warn("tracing: exporting the last spans", "err", err)
	}
}

// serverOptions returns the gRPC server's options for tracing: an
// interceptor opening the server span of every RateLimitService call.
func (t *tracer) serverOptions() []grpc.ServerOption {
	if t == nil {
		return nil
	}
	return []grpc.ServerOption{grpc.ChainUnaryInterceptor(t.intercept)}
}

// intercept opens the server span of a RateLimitService call, as the
// reference's OpenTelemetry gRPC instrumentation names it
// ("envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit", kind
// server, rpc.* and net.sock.peer.* attributes), a child of the trace
// context of the call's metadata (W3C traceparent, or B3). Other services
// (health, reflection) are not traced.
func (t *tracer) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if !strings.HasPrefix(info.FullMethod, "/envoy.service.ratelimit.") {
		return handler(ctx, req)
	}
	md, _ := metadata.FromIncomingContext(ctx)
	ctx = t.prop.Extract(ctx, metadataCarrier(md))
	name := strings.TrimPrefix(info.FullMethod, "/")
	ctx, span := t.server.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer))
	defer span.End()
	recording := span.IsRecording() // attributes only for the spans kept
	if recording {
		service, method, _ := strings.Cut(name, "/")
		span.SetAttributes(attribute.String("rpc.system", "grpc"), attribute.String("rpc.service", service), attribute.String("rpc.method", method))
		span.SetAttributes(peerAttributes(ctx)...)
	}
	resp, err := handler(ctx, req)
	if recording {
		st, _ := status.FromError(err)
		if err != nil && serverFault(st.Code()) {
			span.SetStatus(codes.Error, st.Message())
		}
		span.SetAttributes(attribute.Int64("rpc.grpc.status_code", int64(st.Code())))
	}
	return resp, err
}

// peerAttributes are the client's address and port, when it has them (not
// over a Unix socket).
func peerAttributes(ctx context.Context) []attribute.KeyValue {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return nil
	}
	host, port, err := net.SplitHostPort(p.Addr.String())
	if err != nil {
		return nil
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return nil
	}
	return []attribute.KeyValue{attribute.String("net.sock.peer.addr", host), attribute.Int("net.sock.peer.port", n)}
}

// serverFault reports whether a server span ending with code is an error,
// as the OpenTelemetry conventions for gRPC servers have it: not when the
// client's request or its rights were at fault.
func serverFault(c grpccodes.Code) bool {
	switch c {
	case grpccodes.Unknown, grpccodes.DeadlineExceeded, grpccodes.Unimplemented, grpccodes.Internal, grpccodes.Unavailable, grpccodes.DataLoss:
		return true
	}
	return false
}

// evaluator returns e with a span per decision, spanShouldRateLimit, with
// the request's domain and a description of it ("request string"); the
// counter store's spans are its children.
func (t *tracer) evaluator(e limit.Evaluator) limit.Evaluator {
	if t == nil {
		return e
	}
	return tracedEvaluator{e, t.service}
}

type tracedEvaluator struct {
	limit.Evaluator
	t trace.Tracer
}

func (e tracedEvaluator) Evaluate(ctx context.Context, now time.Time, req *rlsmsg.Request, res *limit.Result) error {
	if dropped(ctx) {
		return e.Evaluator.Evaluate(ctx, now, req, res)
	}
	ctx, span := e.t.Start(ctx, spanShouldRateLimit)
	defer span.End()
	if span.IsRecording() {
		span.SetAttributes(attribute.String("domain", req.Domain), attribute.String("request string", describeRequest(req)))
	}
	return e.Evaluator.Evaluate(ctx, now, req, res)
}

// describeRequest writes req on one line: the domain, the request's
// hits_addend when set, then each descriptor as rlsmsg.Descriptor.Describe
// writes it, in brackets.
func describeRequest(req *rlsmsg.Request) string {
	var b strings.Builder
	b.WriteString("domain=" + req.Domain)
	if req.HitsAddend != 0 {
		b.WriteString(" hits_addend=" + strconv.FormatUint(uint64(req.HitsAddend), 10))
	}
	for i := range req.Descriptors {
		b.WriteString(" [" + req.Descriptors[i].Describe() + "]")
	}
	return b.String()
}

// store returns s with a span per round trip, spanRedis, with the number
// of counters it updates ("pipeline length").
func (t *tracer) store(s counter.Store) counter.Store {
	if t == nil {
		return s
	}
	return tracedStore{s, t.redis}
}

type tracedStore struct {
	counter.Store
	t trace.Tracer
}

func (s tracedStore) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	if dropped(ctx) {
		return s.Store.Update(ctx, now, updates, decisions)
	}
	ctx, span := s.t.Start(ctx, spanRedis)
	defer span.End()
	if span.IsRecording() {
		span.SetAttributes(attribute.Int("pipeline length", len(updates)))
	}
	err := s.Store.Update(ctx, now, updates, decisions)
	if err != nil && span.IsRecording() {
		span.SetStatus(codes.Error, err.Error())
	}
	return err
}

// dropped reports whether ctx's span is one the sampler dropped: its
// children would be dropped too (the sampler follows the parent), so they
// are not started.
func dropped(ctx context.Context) bool {
	sc := trace.SpanContextFromContext(ctx)
	return sc.IsValid() && !sc.IsSampled()
}

// httpHandler returns h with the trace context of the request's headers
// in its context, so that the spans of a POST /json call join the
// caller's trace.
func (t *tracer) httpHandler(h http.Handler) http.Handler {
	if t == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(t.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))))
	})
}

// metadataCarrier reads and writes gRPC metadata for a propagator.
type metadataCarrier metadata.MD

func (c metadataCarrier) Get(key string) string {
	if v := metadata.MD(c).Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c metadataCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

func (c metadataCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// randomUUID returns a random (version 4) UUID, the service instance id
// when TRACING_SERVICE_INSTANCE_ID is not set.
func randomUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

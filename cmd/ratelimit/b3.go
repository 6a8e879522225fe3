package main

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// b3Propagator reads a Zipkin B3 trace context, the single "b3" header or
// the X-B3-* headers, as the reference accepts it besides W3C's
// traceparent (Envoy with a Zipkin tracer sends B3). It only extracts: the
// service calls no one. A sampling state of 1 or d (debug), or X-B3-Flags
// 1, makes the parent sampled; any other, or none, not sampled.
type b3Propagator struct{}

var _ propagation.TextMapPropagator = b3Propagator{}

// Inject writes nothing.
func (b3Propagator) Inject(context.Context, propagation.TextMapCarrier) {}

// Fields are the headers Extract reads.
func (b3Propagator) Fields() []string {
	return []string{"b3", "x-b3-traceid", "x-b3-spanid", "x-b3-sampled", "x-b3-flags"}
}

// Extract returns ctx with the remote span context of carrier's B3
// headers, or ctx as it is when they are absent or invalid.
func (b3Propagator) Extract(ctx context.Context, carrier propagation.TextMapCarrier) context.Context {
	var traceID, spanID, sampled string
	if single := carrier.Get("b3"); single != "" {
		parts := strings.Split(single, "-")
		if len(parts) < 2 {
			return ctx
		}
		traceID, spanID = parts[0], parts[1]
		if len(parts) > 2 {
			sampled = parts[2]
		}
	} else {
		traceID, spanID, sampled = carrier.Get("x-b3-traceid"), carrier.Get("x-b3-spanid"), carrier.Get("x-b3-sampled")
		if carrier.Get("x-b3-flags") == "1" {
			sampled = "d"
		}
	}
	if len(traceID) == 16 {
		traceID = "0000000000000000" + traceID
	}
	tid, err := trace.TraceIDFromHex(strings.ToLower(traceID))
	if err != nil {
		return ctx
	}
	sid, err := trace.SpanIDFromHex(strings.ToLower(spanID))
	if err != nil {
		return ctx
	}
	var flags trace.TraceFlags
	switch strings.ToLower(sampled) {
	case "1", "d", "true":
		flags = trace.FlagsSampled
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: flags, Remote: true})
	if !sc.IsValid() {
		return ctx
	}
	return trace.ContextWithRemoteSpanContext(ctx, sc)
}

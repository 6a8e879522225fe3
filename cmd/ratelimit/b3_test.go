package main

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

func TestB3Extract(t *testing.T) {
	const tid, sid = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for _, tc := range []struct {
		name    string
		headers map[string]string
		trace   string // "" for no span context
		sampled bool
	}{
		{"single sampled", map[string]string{"b3": tid + "-" + sid + "-1"}, tid, true},
		{"single debug with parent", map[string]string{"b3": tid + "-" + sid + "-d-" + sid}, tid, true},
		{"single not sampled", map[string]string{"b3": tid + "-" + sid + "-0"}, tid, false},
		{"single deferred", map[string]string{"b3": tid + "-" + sid}, tid, false},
		{"single 64-bit trace id", map[string]string{"b3": tid[16:] + "-" + sid + "-1"}, "0000000000000000" + tid[16:], true},
		{"single upper case", map[string]string{"b3": "4BF92F3577B34DA6A3CE929D0E0E4736-" + sid + "-1"}, tid, true},
		{"single sampling only", map[string]string{"b3": "0"}, "", false},
		{"single bad span id", map[string]string{"b3": tid + "-xyz-1"}, "", false},
		{"single zero trace id", map[string]string{"b3": "00000000000000000000000000000000-" + sid + "-1"}, "", false},
		{"multi sampled", map[string]string{"X-B3-TraceId": tid, "X-B3-SpanId": sid, "X-B3-Sampled": "1"}, tid, true},
		{"multi debug flag", map[string]string{"X-B3-TraceId": tid, "X-B3-SpanId": sid, "X-B3-Flags": "1"}, tid, true},
		{"multi legacy true", map[string]string{"X-B3-TraceId": tid, "X-B3-SpanId": sid, "X-B3-Sampled": "true"}, tid, true},
		{"multi no span id", map[string]string{"X-B3-TraceId": tid}, "", false},
		{"none", map[string]string{}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			carrier := propagation.MapCarrier{}
			for k, v := range tc.headers {
				carrier[strings.ToLower(k)] = v // as gRPC metadata keys are
			}
			sc := trace.SpanContextFromContext(b3Propagator{}.Extract(context.Background(), carrier))
			switch {
			case tc.trace == "" && sc.IsValid():
				t.Errorf("Extract(%v) = %v, want no span context", tc.headers, sc)
			case tc.trace != "" && (sc.TraceID().String() != tc.trace || sc.SpanID().String() != sid || sc.IsSampled() != tc.sampled || !sc.IsRemote()):
				t.Errorf("Extract(%v) = trace %s span %s sampled %v remote %v, want %s %s %v remote", tc.headers,
					sc.TraceID(), sc.SpanID(), sc.IsSampled(), sc.IsRemote(), tc.trace, sid, tc.sampled)
			}
		})
	}
}

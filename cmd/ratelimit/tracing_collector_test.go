package main

import (
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// collector is an OTLP trace receiver on loopback, over gRPC or HTTP,
// keeping every span it is sent.
type collector struct {
	collectortrace.UnimplementedTraceServiceServer
	mu      sync.Mutex
	spans   []gotSpan
	exports int
}

// gotSpan is a received span with its resource and scope.
type gotSpan struct {
	resource map[string]string
	scope    string
	*tracepb.Span
}

func (c *collector) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	c.keep(req)
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

func (c *collector) keep(req *collectortrace.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.exports++
	for _, rs := range req.ResourceSpans {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				c.spans = append(c.spans, gotSpan{res, ss.GetScope().GetName(), sp})
			}
		}
	}
}

// got returns the spans received so far.
func (c *collector) got() []gotSpan {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]gotSpan(nil), c.spans...)
}

// named returns the received spans called name.
func (c *collector) named(name string) []gotSpan {
	var out []gotSpan
	for _, s := range c.got() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// startGRPCCollector serves the OTLP/gRPC trace service on loopback and
// returns its endpoint URL.
func startGRPCCollector(t *testing.T) (*collector, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	gs := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(gs, c)
	go gs.Serve(l)
	t.Cleanup(gs.Stop)
	return c, "http://" + l.Addr().String()
}

// startHTTPCollector serves OTLP/HTTP (protobuf) on loopback at
// /v1/traces and returns its endpoint URL.
func startHTTPCollector(t *testing.T) (*collector, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		req := &collectortrace.ExportTraceServiceRequest{}
		if err == nil {
			err = proto.Unmarshal(body, req)
		}
		if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "want an ExportTraceServiceRequest in protobuf", http.StatusBadRequest)
			return
		}
		c.keep(req)
		out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	})
	hs := &http.Server{Handler: mux}
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })
	return c, "http://" + l.Addr().String()
}

// attrs returns key-values as strings (ints in decimal).
func attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			out[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			out[kv.Key] = itoa(int(v.IntValue))
		case *commonpb.AnyValue_BoolValue:
			out[kv.Key] = map[bool]string{true: "true", false: "false"}[v.BoolValue]
		default:
			out[kv.Key] = kv.Value.String()
		}
	}
	return out
}

func hexID(b []byte) string { return hex.EncodeToString(b) }

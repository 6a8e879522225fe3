package rls

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc/encoding"
	protocodec "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/rlpkit/rlpkit/limit/limitador"
)

// benchLimits admit everything the benchmarks send, so every decision
// reaches the store and consumes.
var benchLimits = []limitador.Limit{
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

// BenchmarkServerCall is what a server does for one call besides HTTP/2:
// decode the request, decide, encode the response, with gRPC's proto codec
// on go-control-plane's messages (the path of
// rlsv3.RegisterRateLimitServiceServer) and with Codec on the model (the
// path of Register, which serve and cmd/ratelimit take), 1 and 3
// descriptors per call.
func BenchmarkServerCall(b *testing.B) {
	for _, descs := range []int{1, 3} {
		for _, c := range []struct {
			name string
			call callFunc
		}{{"proto", protoCall}, {"rlsmsg", modelCall}} {
			b.Run(fmt.Sprintf("descriptors=%d/codec=%s", descs, c.name), func(b *testing.B) {
				s := newService(b, benchLimits, false)
				data := encodedRequests(b, 1024, descs)
				ctx := context.Background()
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if err := c.call(ctx, s, data[i%len(data)]); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// encodedRequests returns n requests of descs descriptors each, encoded.
func encodedRequests(tb testing.TB, n, descs int) []mem.BufferSlice {
	data := make([]mem.BufferSlice, n)
	for i := range data {
		req := request("shop", 0, desc("path", "/cart", "user", "u"+strconv.Itoa(i)))
		for j := 1; j < descs; j++ {
			req.Descriptors = append(req.Descriptors, desc("user", "u"+strconv.Itoa(i), "n", strconv.Itoa(j)))
		}
		b, err := proto.Marshal(req)
		if err != nil {
			tb.Fatal(err)
		}
		data[i] = mem.BufferSlice{mem.SliceBuffer(b)}
	}
	return data
}

// callFunc is one way of serving a call: decode data as gRPC does, answer
// it and encode the answer.
type callFunc func(ctx context.Context, s *Service, data mem.BufferSlice) error

// protoCall serves a call with gRPC's proto codec and ShouldRateLimit on
// go-control-plane's messages.
func protoCall(ctx context.Context, s *Service, data mem.BufferSlice) error {
	codec := encoding.GetCodecV2(protocodec.Name)
	req := new(rlsv3.RateLimitRequest)
	if err := codec.Unmarshal(data, req); err != nil {
		return err
	}
	resp, err := s.ShouldRateLimit(ctx, req)
	if err != nil {
		return err
	}
	out, err := codec.Marshal(resp)
	out.Free()
	return err
}

// modelCall serves a call as a server from ServerOptions and Register
// does: Codec decodes into a call, the handler answers it, Codec encodes
// it.
func modelCall(ctx context.Context, s *Service, data mem.BufferSlice) error {
	v, err := handleShouldRateLimit(s, ctx, func(m any) error { return Codec{}.Unmarshal(data, m) }, nil)
	if err != nil {
		return err
	}
	out, err := Codec{}.Marshal(v)
	out.Free()
	return err
}

// TestServerCallAllocs pins the allocations of a call on Register's path:
// the request's string copy, the evaluator's work and the encoded bytes.
// Under the race detector, whose sync.Pool drops objects at random, it only
// checks that it allocates less than the path of go-control-plane's
// messages.
func TestServerCallAllocs(t *testing.T) {
	for _, tt := range []struct {
		descs int
		want  float64
	}{{1, 5}, {3, 5}} {
		s := newService(t, benchLimits, false)
		data := encodedRequests(t, 16, tt.descs)
		ctx := context.Background()
		allocs := func(call callFunc) float64 {
			i := 0
			return testing.AllocsPerRun(200, func() {
				if err := call(ctx, s, data[i%len(data)]); err != nil {
					t.Fatal(err)
				}
				i++
			})
		}
		got, proto := allocs(modelCall), allocs(protoCall)
		if got >= proto {
			t.Errorf("a call with %d descriptors: %v allocations with Codec, %v with gRPC's proto codec; want fewer", tt.descs, got, proto)
		}
		if !raceEnabled && got > tt.want {
			t.Errorf("a call with %d descriptors: %v allocations, want at most %v", tt.descs, got, tt.want)
		}
	}
}

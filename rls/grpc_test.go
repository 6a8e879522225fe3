package rls

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"
)

// serveLoopback serves s on a loopback port and returns a client for it.
func serveLoopback(t testing.TB, s *Service) rlsv3.RateLimitServiceClient {
	t.Helper()
	return serveLoopbackWith(t, func(srv *grpc.Server) { Register(srv, s) }, s.ServerOptions()...)
}

// serveLoopbackWith serves what register registers on a loopback port with
// opts and returns a client of it.
func serveLoopbackWith(t testing.TB, register func(*grpc.Server), opts ...grpc.ServerOption) rlsv3.RateLimitServiceClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(opts...)
	register(srv)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return rlsv3.NewRateLimitServiceClient(conn)
}

// TestGRPC checks that answers and error codes cross the wire unchanged,
// on every way of serving a Service: Register with ServerOptions (the
// model's path), go-control-plane's registration with ServerOptions (Codec
// hands its messages to the proto codec) and with gRPC's defaults, and
// Register behind an interceptor.
func TestGRPC(t *testing.T) {
	var intercepted atomic.Int64
	count := grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if info.FullMethod == "/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit" {
			intercepted.Add(1)
		}
		return h(ctx, req)
	})
	for _, way := range []struct {
		name   string
		client func(*Service) rlsv3.RateLimitServiceClient
	}{
		{"Register", func(s *Service) rlsv3.RateLimitServiceClient { return serveLoopback(t, s) }},
		{"generated, ServerOptions", func(s *Service) rlsv3.RateLimitServiceClient {
			return serveLoopbackWith(t, func(srv *grpc.Server) { rlsv3.RegisterRateLimitServiceServer(srv, s) }, s.ServerOptions()...)
		}},
		{"generated, defaults", func(s *Service) rlsv3.RateLimitServiceClient {
			return serveLoopbackWith(t, func(srv *grpc.Server) { rlsv3.RegisterRateLimitServiceServer(srv, s) })
		}},
		{"Register, interceptor", func(s *Service) rlsv3.RateLimitServiceClient {
			return serveLoopbackWith(t, func(srv *grpc.Server) { Register(srv, s) }, append(s.ServerOptions(), count)...)
		}},
	} {
		t.Run(way.name, func(t *testing.T) { testGRPC(t, way.client(newService(t, shopLimits, true))) })
	}
	if n := intercepted.Load(); n != 4 {
		t.Errorf("the interceptor saw %d calls, want 4", n)
	}
}

func testGRPC(t *testing.T, client rlsv3.RateLimitServiceClient) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	steps := []struct {
		req     *rlsv3.RateLimitRequest
		want    *rlsv3.RateLimitResponse
		code    codes.Code
		headers map[string]string
	}{
		{req: request("shop", 0, desc("user", "alice")), want: resp(ok, limited(ok, "per user", 2, minute, 1, 60*time.Second)),
			headers: map[string]string{HeaderLimit: "2", HeaderRemaining: "1", HeaderReset: "60"}},
		{req: request("shop", 2, desc("user", "alice")), want: resp(over, limited(over, "per user", 2, minute, 1, 60*time.Second)),
			headers: map[string]string{HeaderLimit: "2", HeaderRemaining: "1", HeaderReset: "60", HeaderRetryAfter: "60"}},
		{req: request("shop", 0, desc()), code: codes.InvalidArgument},
		{req: request("", 0, desc("user", "alice")), code: codes.InvalidArgument},
	}
	for i, st := range steps {
		got, err := client.ShouldRateLimit(ctx, st.req)
		if code := grpcstatus.Code(err); code != st.code {
			t.Fatalf("step %d: ShouldRateLimit(%v) error %v, want code %v", i, st.req, err, st.code)
		}
		if err != nil {
			continue
		}
		if diff := cmp.Diff(st.headers, headerMap(got)); diff != "" {
			t.Errorf("step %d: headers (-want +got):\n%s", i, diff)
		}
		got.ResponseHeadersToAdd = nil
		if diff := cmp.Diff(st.want, got, protocmp.Transform()); diff != "" {
			t.Errorf("step %d: ShouldRateLimit(%v) mismatch (-want +got):\n%s", i, st.req, diff)
		}
	}
}

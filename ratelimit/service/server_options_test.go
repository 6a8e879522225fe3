package service

import (
	"context"
	"net"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/testing/protocmp"
)

// TestServerOptions serves two Services alike, one behind a gRPC server
// with ServerOptions, and checks that every answer crosses the wire
// unchanged, response headers and an over-limit answer included.
func TestServerOptions(t *testing.T) {
	served, direct := newService(t, Options{ResponseHeaders: true}), newService(t, Options{ResponseHeaders: true})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(ServerOptions()...)
	rlsv3.RegisterRateLimitServiceServer(srv, served)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	client := rlsv3.NewRateLimitServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := rreq("d", d("k", "a"), d("h", "a"), d("none", "x"))
	for i := range 3 { // the limit on k admits 2 a minute
		want, err := direct.ShouldRateLimit(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := client.ShouldRateLimit(ctx, req)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("call %d over gRPC (-direct +served):\n%s", i, diff)
		}
	}
	if _, err := client.ShouldRateLimit(ctx, rreq("")); err == nil {
		t.Error("ShouldRateLimit(empty domain) over gRPC = nil error, want the Service's")
	}
}

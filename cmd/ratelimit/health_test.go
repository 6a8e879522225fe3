package main

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func TestGRPCHealthAndHealthcheck(t *testing.T) {
	s := start(t, baseEnv(t.TempDir()))
	conn, err := grpc.NewClient(s.addrs.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "ratelimit"})
	if err != nil || r.Status != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("gRPC health of ratelimit = %v %v, want SERVING", r, err)
	}
	// Without HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED, healthy with no config.
	if code, body := get(t, "http://"+s.addrs.http+"/healthcheck"); code != 200 || body != "OK" {
		t.Errorf("/healthcheck = %d %q, want 200 OK", code, body)
	}
	if code := s.stop(); code != 0 {
		t.Errorf("run after a stop = %d, want 0", code)
	}
}

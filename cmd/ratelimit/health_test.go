package main

import (
	"context"
	"os"
	"path/filepath"
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

// With HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED, gRPC health and
// /healthcheck both follow whether a domain is loaded: failing before the
// first file, passing once one loads, failing again once every file is
// removed, as the reference's do.
func TestHealthFollowsLoadedDomains(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "ratelimit/config")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env := baseEnv(root)
	env["HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED"] = "true"
	env["RUNTIME_WATCH_ROOT"] = "false"
	s := start(t, env)
	conn, err := grpc.NewClient(s.addrs.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	healthy := func() (grpcOK, httpOK bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: "ratelimit"})
		code, _ := get(t, "http://"+s.addrs.http+"/healthcheck")
		return err == nil && r.Status == healthpb.HealthCheckResponse_SERVING, code == 200
	}
	if g, h := healthy(); g || h {
		t.Errorf("no domain loaded: gRPC healthy %v, /healthcheck healthy %v; want both failing", g, h)
	}
	writeFile(t, filepath.Join(dir, "a.yaml"), limitYAML(1))
	eventually(t, "healthy once a domain loads", func() bool { g, h := healthy(); return g && h })
	if err := os.Remove(filepath.Join(dir, "a.yaml")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "failing once every file is removed", func() bool { g, h := healthy(); return !g && !h })
}

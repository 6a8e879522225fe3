package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// grpcHealth returns the gRPC health of service "ratelimit".
func grpcHealth(t *testing.T, s *server) healthpb.HealthCheckResponse_ServingStatus {
	t.Helper()
	conn, err := grpc.NewClient(s.addrs.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "ratelimit"})
	if err != nil {
		t.Fatalf("gRPC health: %v", err)
	}
	return r.GetStatus()
}

// TestRedisFailsFast kills Redis under the drop-in: once a call has found
// the outage, every call answers Unknown with the store-down error without
// sending anything to Redis; the log has one outage line and, once Redis is
// back on the same port, one recovery line; then calls are decided again.
// Health stays SERVING, as the reference's does without
// REDIS_HEALTH_CHECK_ACTIVE_CONNECTION.
func TestRedisFailsFast(t *testing.T) {
	srv := redistest.Start(t)
	hook := &redistest.Commands{}
	env := redisEnv(t, srv, "single")
	env["LOG_FORMAT"] = "json"
	s := startWith(t, env, func(st *settings) { st.redisHook = hook })
	if _, err := s.call(t, "d", "k=a"); err != nil {
		t.Fatal(err)
	}

	srv.Kill()
	if _, err := s.call(t, "d", "k=a"); status.Code(err) != codes.Unknown {
		t.Fatalf("the call finding Redis killed: %v, want Unknown", err)
	}
	sent := hook.Scripts()
	const n = 50
	for i := range n {
		_, err := s.call(t, "d", "k=a")
		if status.Code(err) != codes.Unknown || !strings.Contains(err.Error(), "store known to be down") {
			t.Fatalf("call %d with Redis known down: %v, want Unknown: ...store known to be down...", i, err)
		}
	}
	if got := hook.Scripts() - sent; got != 0 {
		t.Errorf("%d calls with Redis known down sent %d scripts, want none", n, got)
	}
	if got := grpcHealth(t, s); got != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("gRPC health with Redis down = %v, want SERVING (REDIS_HEALTH_CHECK_ACTIVE_CONNECTION is false)", got)
	}

	srv.Restart(t)
	eventually(t, "the recovery to be logged", func() bool { return strings.Contains(s.log.String(), `"@message":"store reachable again"`) })
	if r, err := s.call(t, "d", "k=b"); err != nil || r.Statuses[0].LimitRemaining != 1 {
		t.Errorf("call after the recovery = %v %v, want OK remaining 1", r, err)
	}
	log := s.log.String()
	if down, up := strings.Count(log, `"@message":"store unreachable`), strings.Count(log, `"@message":"store reachable again"`); down != 1 || up != 1 {
		t.Errorf("the log has %d outage and %d recovery lines, want one each:\n%s", down, up, log)
	}
}

// TestRedisHealthCheckActiveConnection: with
// REDIS_HEALTH_CHECK_ACTIVE_CONNECTION=true, gRPC health and /healthcheck
// fail while Redis is down mid-run and pass again once it answers (no port
// opens before Redis answers at start, as the reference's).
func TestRedisHealthCheckActiveConnection(t *testing.T) {
	srv := redistest.Start(t)
	env := redisEnv(t, srv, "single")
	env["REDIS_HEALTH_CHECK_ACTIVE_CONNECTION"] = "true"
	s := start(t, env)
	check := func(when string, want healthpb.HealthCheckResponse_ServingStatus, wantCode int) {
		t.Helper()
		if got := grpcHealth(t, s); got != want {
			t.Errorf("%s: gRPC health = %v, want %v", when, got, want)
		}
		if code, body := get(t, "http://"+s.addrs.http+"/healthcheck"); code != wantCode {
			t.Errorf("%s: /healthcheck = %d %q, want %d", when, code, body, wantCode)
		}
	}
	check("Redis up at start", healthpb.HealthCheckResponse_SERVING, 200)

	srv.Kill()
	if _, err := s.call(t, "d", "k=a"); status.Code(err) != codes.Unknown {
		t.Fatalf("call with Redis killed: %v, want Unknown", err)
	}
	// A call that met a pooled connection Redis closed may only have made the store
	// probe; health follows once the probe's dial is refused.
	eventually(t, "health to fail while Redis is down", func() bool { return grpcHealth(t, s) == healthpb.HealthCheckResponse_NOT_SERVING })
	check("Redis down mid-run", healthpb.HealthCheckResponse_NOT_SERVING, 500)

	srv.Restart(t)
	eventually(t, "health to pass once Redis is up", func() bool { return grpcHealth(t, s) == healthpb.HealthCheckResponse_SERVING })
	check("Redis up again", healthpb.HealthCheckResponse_SERVING, 200)
}

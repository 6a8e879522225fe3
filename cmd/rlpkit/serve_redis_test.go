package main

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/google/go-cmp/cmp"
	goredis "github.com/redis/go-redis/v9"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

func TestServeEndToEndRedis(t *testing.T) {
	r := redistest.Start(t)
	testServeEndToEnd(t, "--redis", r.URL())
}

// monitor records the commands Redis receives from clients (not those its
// scripts run) until stop, which returns them by name. It speaks MONITOR on a
// connection of its own: every command arrives as a status line such as
// +1700000000.123456 [0 127.0.0.1:5000] "evalsha" "..." ("lua" for scripts).
func monitor(t *testing.T, r *redistest.Server) (stop func() map[string]int) {
	t.Helper()
	// The marker connects first, so its handshake is not recorded.
	marker := redisClient(t, r)
	if err := marker.Ping(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", r.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	rd := bufio.NewReader(conn)
	if _, err := conn.Write([]byte("MONITOR\r\n")); err != nil {
		t.Fatal(err)
	}
	if line, err := rd.ReadString('\n'); err != nil || line != "+OK\r\n" {
		t.Fatalf("MONITOR answered %q, %v", line, err)
	}
	return func() map[string]int {
		if err := marker.Echo(context.Background(), "rlpkit-monitor-end").Err(); err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("reading MONITOR: %v", err)
			}
			if strings.Contains(line, "rlpkit-monitor-end") {
				return got
			}
			_, rest, _ := strings.Cut(line, "[")
			source, cmd, ok := strings.Cut(rest, "] ")
			if !ok {
				t.Fatalf("MONITOR line %q", line)
			}
			if strings.HasSuffix(source, " lua") {
				continue
			}
			name, _, _ := strings.Cut(cmd, " ")
			got[strings.ToLower(strings.Trim(name, `"`))]++
		}
	}
}

func redisClient(t *testing.T, r *redistest.Server) *goredis.Client {
	t.Helper()
	c := goredis.NewClient(&goredis.Options{Addr: r.Addr})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestServeRedisOneRoundTrip records the commands Redis receives with
// MONITOR: one EVALSHA per call, whatever the number of descriptors and
// counters (the MGET, SET and TIME the script runs inside Redis are not round
// trips).
func TestServeRedisOneRoundTrip(t *testing.T) {
	r := redistest.Start(t)
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL())
	// The first calls load the scripts (NOSCRIPT, then EVAL): one for
	// fixed windows only, one for the other algorithms (the token bucket).
	s.mustCall(t, rlsRequest("shop", 0, rlsDesc("ip", "warm-up")))
	s.mustCall(t, rlsRequest("shop", 0, rlsDesc("path", "/cart", "user", "warm-up")))
	stop := monitor(t, r)
	const calls = 20
	for i := range calls {
		// Three descriptors, four counters: cart per user and per ip apply
		// to the first, per ip to the second, an override to the third.
		user := "u" + strconv.Itoa(i)
		s.mustCall(t, rlsRequest("shop", 0,
			rlsDesc("path", "/cart", "user", user, "ip", "10.1.0."+strconv.Itoa(i)),
			rlsDesc("ip", "10.2.0."+strconv.Itoa(i)),
			rlsOverride(rlsDesc("user", user), 10, 2)))
	}
	got := stop()
	if len(got) != 1 || got["evalsha"] != calls {
		t.Errorf("Redis ran %v for %d calls, want evalsha %d and nothing else", got, calls, calls)
	}
}

// TestServeSharedRedis runs two servers on one Redis: together they admit
// exactly the limit.
func TestServeSharedRedis(t *testing.T) {
	r := redistest.Start(t)
	file := writeFile(t, t.TempDir(), "limits.yaml", "- {namespace: shop, max_value: 50, seconds: 31536000, variables: [user]}\n")
	servers := []*testServer{
		startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL()),
		startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL()),
	}
	const (
		workers = 8
		each    = 20
	)
	var admitted, rejected atomic.Int64
	perServer := make([]atomic.Int64, len(servers))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				k := (w + i) % len(servers)
				resp, err := servers[k].call(t, rlsRequest("shop", 0, rlsDesc("user", "alice")))
				if err != nil {
					t.Errorf("worker %d call %d: %v", w, i, err)
					return
				}
				if resp.GetOverallCode() == rlsv3.RateLimitResponse_OK {
					admitted.Add(1)
					perServer[k].Add(1)
				} else {
					rejected.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if admitted.Load() != 50 || rejected.Load() != workers*each-50 {
		t.Errorf("two servers admitted %d and rejected %d of %d calls, want exactly 50 admitted", admitted.Load(), rejected.Load(), workers*each)
	}
	if perServer[0].Load() == 0 || perServer[1].Load() == 0 {
		t.Errorf("admitted per server %d and %d, want both to have admitted some", perServer[0].Load(), perServer[1].Load())
	}
}

// TestServeRedisFault kills Redis under a running server: calls answer
// Unavailable before their deadline and the server stays up; once Redis is
// back (empty, without the script), decisions resume.
func TestServeRedisFault(t *testing.T) {
	r := redistest.Start(t)
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL())
	req := rlsRequest("shop", 0, rlsDesc("ip", "10.0.0.1"))
	if got := summary(t, s.mustCall(t, req)); !equal(got, []string{"OK", `OK "per ip" 5/YEAR remaining 4`}) {
		t.Fatalf("before the fault: %v", got)
	}

	r.Kill()
	for i := range 5 {
		// The first call waits for go-redis's retries, at most
		// --redis-timeout (1s), well before the call's deadline; the next
		// ones are answered at once (TestServeRedisFailsFast).
		// (TestBoundedStoreBudget covers deadlines shorter than the
		// timeout.)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := s.client.ShouldRateLimit(ctx, req)
		cancel()
		if status.Code(err) != codes.Unavailable {
			t.Fatalf("call %d with Redis down: %v, want Unavailable", i, err)
		}
	}
	// A call that met a pooled connection Redis closed only makes the breaker probe;
	// the probe's refused dial makes the store down, and health follows.
	waitFor(t, "health NOT_SERVING with Redis down", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h, err := healthpb.NewHealthClient(s.conn).Check(ctx, &healthpb.HealthCheckRequest{})
		return err == nil && h.GetStatus() == healthpb.HealthCheckResponse_NOT_SERVING
	})
	if m := scrape(t, s); !strings.Contains(m, `rlpkit_rls_errors_total{code="Unavailable",domain="shop"} 5`+"\n") {
		t.Errorf("metrics do not count 5 Unavailable calls:\n%s", grepLines(m, "rlpkit_rls_errors"))
	}
	if !strings.Contains(s.log.String(), "store unreachable") {
		t.Errorf("log does not report the store failure:\n%s", s.log)
	}

	r.Restart(t)
	var got []string
	waitFor(t, "decisions to resume", func() bool {
		resp, err := s.call(t, req)
		if err != nil {
			return false
		}
		got = summary(t, resp)
		return true
	})
	// The restarted Redis is empty: the counter starts again.
	if !equal(got, []string{"OK", `OK "per ip" 5/YEAR remaining 4`}) {
		t.Errorf("after the restart: %v", got)
	}
	if got := summary(t, s.mustCall(t, req)); !equal(got, []string{"OK", `OK "per ip" 5/YEAR remaining 3`}) {
		t.Errorf("second call after the restart: %v", got)
	}
	waitFor(t, "the recovery to be logged", func() bool { return strings.Contains(s.log.String(), "store reachable again") })
}

// TestServeRedisHung freezes Redis: a call whose caller set a long deadline
// still answers Unavailable after --redis-timeout.
func TestServeRedisHung(t *testing.T) {
	r := redistest.Start(t)
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL(), "--redis-timeout", "200ms")
	req := rlsRequest("shop", 0, rlsDesc("ip", "10.0.0.1"))
	s.mustCall(t, req)
	r.Pause(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := s.client.ShouldRateLimit(ctx, req); status.Code(err) != codes.Unavailable {
		t.Errorf("call with Redis frozen: %v, want Unavailable", err)
	}
	r.Resume(t)
	waitFor(t, "decisions to resume", func() bool {
		_, err := s.call(t, req)
		return err == nil
	})
}

// TestServeRedisDownAtStart starts with Redis not answering: the server
// serves, answers Unavailable and says why, then decides once Redis is up.
func TestServeRedisDownAtStart(t *testing.T) {
	r := redistest.Start(t)
	r.Kill()
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL())
	if !strings.Contains(s.log.String(), "store unreachable") {
		t.Errorf("log does not warn that Redis is down:\n%s", s.log)
	}
	req := rlsRequest("shop", 0, rlsDesc("ip", "10.0.0.1"))
	if _, err := s.call(t, req); status.Code(err) != codes.Unavailable {
		t.Errorf("call with Redis down: %v, want Unavailable", err)
	}
	r.Restart(t)
	waitFor(t, "decisions to begin", func() bool {
		_, err := s.call(t, req)
		return err == nil
	})
}

// TestServeReadinessRedis kills Redis and brings it back under a server
// logging JSON: /readyz and gRPC health go from ready to not ready and back,
// the per-limit store errors count the call that failed, and the log has one
// line per change of state however many probes and calls there are.
func TestServeReadinessRedis(t *testing.T) {
	r := redistest.Start(t)
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL(), "--log-format", "json")
	req := rlsRequest("shop", 0, rlsDesc("ip", "10.0.0.1"))
	health := func() healthpb.HealthCheckResponse_ServingStatus {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h, err := healthpb.NewHealthClient(s.conn).Check(ctx, &healthpb.HealthCheckRequest{Service: rlsv3.RateLimitService_ServiceDesc.ServiceName})
		if err != nil {
			t.Fatalf("health Check: %v", err)
		}
		return h.GetStatus()
	}
	ready := func() bool {
		code, _ := s.get(t, "/readyz")
		return code == http.StatusOK
	}
	if !ready() || health() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("with Redis up: ready %v, health %v; want ready and SERVING", ready(), health())
	}
	for range 3 {
		s.mustCall(t, req)
	}

	r.Kill()
	waitFor(t, "/readyz to fail", func() bool { return !ready() })
	if _, body := s.get(t, "/readyz"); !strings.HasPrefix(body, "not ready: redis store unreachable: ") {
		t.Errorf("GET /readyz with Redis down: %q, want the reason", body)
	}
	if got := health(); got != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("health with Redis down: %v, want NOT_SERVING", got)
	}
	if _, err := s.call(t, req); status.Code(err) != codes.Unavailable || !strings.HasPrefix(status.Convert(err).Message(), "rls: counter store unavailable: ") {
		t.Errorf("call with Redis down: %v, want Unavailable: rls: counter store unavailable: ...", err)
	}
	for range 5 {
		ready()
	}
	m := scrape(t, s)
	for _, want := range []string{
		`rlpkit_limit_store_errors_total{domain="shop",limit="per ip"} 1`,
		`rlpkit_limit_hits_total{domain="shop",limit="per ip"} 4`,
		`rlpkit_store_reachable 0`,
	} {
		if !strings.Contains(m, want+"\n") {
			t.Errorf("metrics with Redis down lack %q:\n%s", want, grepLines(m, "rlpkit_"))
		}
	}

	r.Restart(t)
	waitFor(t, "/readyz to pass again", ready)
	if got := health(); got != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health with Redis back: %v, want SERVING", got)
	}
	for range 3 {
		s.mustCall(t, req)
		ready()
	}

	want := []string{
		"INFO serving addr,http_addr,inputs,limits,store",
		"ERROR store unreachable; calls answer Unavailable at once until a PING answers err,store",
		"INFO store reachable again store",
	}
	if diff := cmp.Diff(want, messages(t, s.log.String())); diff != "" {
		t.Errorf("log lines mismatch (-want +got):\n%s\nlog:\n%s", diff, s.log)
	}
}

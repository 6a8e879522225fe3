package main

import (
	"bufio"
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
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
// counters (the GET, SET and TIME the script runs inside Redis are not round
// trips).
func TestServeRedisOneRoundTrip(t *testing.T) {
	r := redistest.Start(t)
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL())
	// The first call loads the script (NOSCRIPT, then EVAL).
	s.mustCall(t, rlsRequest("shop", 0, rlsDesc("ip", "warm-up")))
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
		// go-redis retries its dials for longer than --redis-timeout (1s) at
		// first; the server answers Unavailable at that timeout, well before
		// the call's deadline. (TestBoundedStoreBudget covers deadlines
		// shorter than the timeout.)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := s.client.ShouldRateLimit(ctx, req)
		cancel()
		if status.Code(err) != codes.Unavailable {
			t.Fatalf("call %d with Redis down: %v, want Unavailable", i, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if h, err := healthpb.NewHealthClient(s.conn).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil || h.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("health with Redis down: %v, %v; want NOT_SERVING", h, err)
	}
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

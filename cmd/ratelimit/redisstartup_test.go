package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// pendingRun is a run started in the background, which may not serve yet.
type pendingRun struct {
	log    *syncBuffer
	readyc chan addrs
	exited chan struct{}
	code   int
	cancel context.CancelFunc
}

// runPending runs the service with env until the test ends, without
// waiting for it to serve.
func runPending(t *testing.T, env map[string]string) *pendingRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &pendingRun{log: &syncBuffer{}, readyc: make(chan addrs, 1), exited: make(chan struct{}), cancel: cancel}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	go func() {
		p.code = run(ctx, lookup, environ(env), p.log, func(a addrs) { p.readyc <- a })
		close(p.exited)
	}()
	t.Cleanup(func() { cancel(); <-p.exited })
	return p
}

// serving waits for p to serve and returns it as a server.
func (p *pendingRun) serving(t *testing.T) *server {
	t.Helper()
	s := &server{log: p.log}
	select {
	case s.addrs = <-p.readyc:
	case <-p.exited:
		t.Fatalf("run exited with %d before serving:\n%s", p.code, p.log)
	case <-time.After(10 * time.Second):
		t.Fatalf("run did not serve within 10s:\n%s", p.log)
	}
	s.stop = func() int { p.cancel(); <-p.exited; return p.code }
	conn, err := grpc.NewClient(s.addrs.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s.client = rlsv3.NewRateLimitServiceClient(conn)
	return s
}

// exit waits for p to exit without serving and returns its code and log.
func (p *pendingRun) exit(t *testing.T) (int, string) {
	t.Helper()
	select {
	case <-p.readyc:
		t.Fatalf("run served, want it to exit:\n%s", p.log)
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("run did not exit within 10s:\n%s", p.log)
	}
	return p.code, p.log.String()
}

// fastStartup makes the first connection's retries short.
func fastStartup(env map[string]string) map[string]string {
	env["REDIS_STARTUP_INITIAL_INTERVAL"] = "10ms"
	env["REDIS_STARTUP_MAX_INTERVAL"] = "40ms"
	return env
}

// TestRedisStartupWaitsForRedis: with Redis down at start, no port opens
// and the first connection is retried (logged each time) until Redis
// answers; then the service serves.
func TestRedisStartupWaitsForRedis(t *testing.T) {
	srv := redistest.Start(t)
	srv.Kill()
	p := runPending(t, fastStartup(redisEnv(t, srv, "single")))
	eventually(t, "three retries", func() bool {
		return strings.Count(p.log.String(), "retrying the Redis connection before serving") >= 3
	})
	select {
	case <-p.readyc:
		t.Fatalf("served while Redis was down at start:\n%s", p.log)
	case <-p.exited:
		t.Fatalf("exited with %d while Redis was down at start, want it to wait (REDIS_STARTUP_MAX_ELAPSED_TIME=0):\n%s", p.code, p.log)
	default:
	}
	srv.Restart(t)
	s := p.serving(t)
	if r, err := s.call(t, "d", "k=a"); err != nil || r.Statuses[0].LimitRemaining != 1 {
		t.Errorf("first call = %v %v, want OK remaining 1", r, err)
	}
}

// TestRedisStartupMaxElapsedTime: when Redis does not answer within
// REDIS_STARTUP_MAX_ELAPSED_TIME, the process exits 1 without serving,
// with the reference's message and the variable.
func TestRedisStartupMaxElapsedTime(t *testing.T) {
	srv := redistest.Start(t)
	srv.Kill()
	env := fastStartup(redisEnv(t, srv, "single"))
	env["REDIS_STARTUP_MAX_ELAPSED_TIME"] = "100ms"
	code, log := runPending(t, env).exit(t)
	if code != 1 || !strings.Contains(log, "timed out waiting for Redis connection to "+srv.Addr) || !strings.Contains(log, "REDIS_STARTUP_MAX_ELAPSED_TIME=100ms") {
		t.Errorf("run = %d, log:\n%s\nwant 1 and timed out waiting for Redis connection to %s ... REDIS_STARTUP_MAX_ELAPSED_TIME=100ms", code, log, srv.Addr)
	}
}

// fakeStartClock advances only by the waits asked of it.
type fakeStartClock struct {
	t     time.Time
	waits []time.Duration
}

func (c *fakeStartClock) clock() startupClock {
	return startupClock{
		now: func() time.Time { return c.t },
		after: func(d time.Duration) <-chan time.Time {
			c.waits = append(c.waits, d)
			c.t = c.t.Add(d)
			ch := make(chan time.Time, 1)
			ch <- c.t
			return ch
		},
		rand: func() float64 { return 0.5 },
	}
}

// TestStartupBackoff: the waits between attempts are the initial
// interval, then drawn between it and the doubled one, at most the
// maximum; a failure once the elapsed time is over ends the retries.
func TestStartupBackoff(t *testing.T) {
	st := startupSettings{initial: time.Second, max: 30 * time.Second}
	var got []time.Duration
	for n := range 7 {
		got = append(got, st.backoff(n, func() float64 { return 0.5 }))
	}
	want := []time.Duration{time.Second, 1500 * time.Millisecond, 2500 * time.Millisecond, 4500 * time.Millisecond,
		8500 * time.Millisecond, 16500 * time.Millisecond, 30 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoff (-want +got):\n%s", diff)
	}
	for n := range 40 {
		if d := st.backoff(n, func() float64 { return 0.999999 }); d < st.initial || d > st.max {
			t.Errorf("backoff(%d) = %v, outside [%v, %v]", n, d, st.initial, st.max)
		}
	}

	st.maxElapsed = 10 * time.Second
	c := &fakeStartClock{t: time.Unix(0, 0)}
	pings := 0
	down := errors.New("connection refused")
	err := connectAtStart(context.Background(), redisConn{prefix: "REDIS", url: "redis:6379"}, func(context.Context) error { pings++; return down },
		st, slog.New(slog.NewTextHandler(io.Discard, nil)), c.clock())
	// Waits 1 + 1.5 + 2.5 + 4.5 s leave 9.5 s elapsed: one more wait, then
	// the sixth PING fails after 18 s.
	if pings != 6 || err == nil || !strings.Contains(err.Error(), "timed out waiting for Redis connection to redis:6379 (REDIS_URL) after 18s") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("connectAtStart = %v after %d PINGs (waits %v), want the timeout after 18s and 6 PINGs", err, pings, c.waits)
	}

	pings = 0
	err = connectAtStart(context.Background(), redisConn{prefix: "REDIS"}, func(context.Context) error {
		if pings++; pings < 3 {
			return down
		}
		return nil
	}, st, slog.New(slog.NewTextHandler(io.Discard, nil)), (&fakeStartClock{}).clock())
	if err != nil || pings != 3 {
		t.Errorf("connectAtStart = %v after %d PINGs, want nil after 3", err, pings)
	}
}

// TestStartupStoppedWhileWaiting: a signal while Redis is awaited at start
// ends the process cleanly (exit 0).
func TestStartupStoppedWhileWaiting(t *testing.T) {
	srv := redistest.Start(t)
	srv.Kill()
	p := runPending(t, fastStartup(redisEnv(t, srv, "single")))
	eventually(t, "a retry", func() bool { return strings.Contains(p.log.String(), "retrying the Redis connection") })
	p.cancel()
	if code, log := p.exit(t); code != 0 {
		t.Errorf("stopped while waiting for Redis: exit %d, want 0:\n%s", code, log)
	}
}

// TestRedisStartupLogsTheDialError: the first lines about a Redis that
// refuses connections give the refused dial, not the PING's deadline that
// go-redis's dial retries ran into.
func TestRedisStartupLogsTheDialError(t *testing.T) {
	srv := redistest.Start(t)
	srv.Kill()
	env := fastStartup(redisEnv(t, srv, "single"))
	env["REDIS_STARTUP_MAX_ELAPSED_TIME"] = "100ms"
	_, log := runPending(t, env).exit(t)
	var lines []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "err=") || strings.Contains(l, "timed out waiting") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		t.Fatalf("no line gives an error:\n%s", log)
	}
	for _, l := range lines[:min(2, len(lines))] {
		if !strings.Contains(l, "connection refused") || strings.Contains(l, "deadline exceeded") {
			t.Errorf("line %q, want the refused dial and no deadline; log:\n%s", l, log)
		}
	}
}

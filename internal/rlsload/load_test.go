package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/limit/redis"
	"github.com/rlpkit/rlpkit/rls"
)

// serve starts an RLS on loopback with one limit of max per user.
func serve(t *testing.T, max uint32) string {
	t.Helper()
	return serveOn(t, max, counter.NewMemoryStore(counter.MemoryOptions{}))
}

func serveOn(t *testing.T, max uint32, store counter.Store) string {
	t.Helper()
	svc, err := rls.New([]limitador.Limit{{Namespace: "load", MaxValue: max, Seconds: 31536000, Variables: []string{"user"}}},
		rls.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	rlsv3.RegisterRateLimitServiceServer(srv, svc)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// TestRun drives a server whose limit rejects most calls, so both answers
// are counted, and checks the report adds up.
func TestRun(t *testing.T) {
	addr := serve(t, 3)
	var stdout, stderr bytes.Buffer
	args := []string{"-addr", addr, "-duration", "300ms", "-warmup", "0s", "-concurrency", "4", "-users", "5", "-descriptors", "2"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%v) = %d, stderr %s", args, code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"calls ", "decisions/s ", "latency ", "p99 ", "answers        OK "} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "OVER_LIMIT 0\n") || strings.Contains(out, "redis") {
		t.Errorf("report: want OVER_LIMIT answers and no Redis line:\n%s", out)
	}
}

// TestRunRedis reports the script calls per decision of a server on Redis:
// exactly one, with two descriptors per call, from a store that gives
// every call its own script call.
func TestRunRedis(t *testing.T) {
	r := redistest.Start(t)
	client, err := redis.NewClient(r.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	store, err := redis.New(client, redis.Options{BatchRequests: 1})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveOn(t, 1000000, store)
	var stdout, stderr bytes.Buffer
	args := []string{"-addr", addr, "-duration", "300ms", "-warmup", "50ms", "-concurrency", "4", "-descriptors", "2", "-redis", r.URL()}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%v) = %d, stderr %s", args, code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{", 1.000 per decision\n", "redis commands ", "evalsha "} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{{"-concurrency", "0"}, {"extra"}, {"-nope"}} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("run(%v) = %d, want 2", args, code)
		}
	}
}

func TestLoadCounts(t *testing.T) {
	addr := serve(t, 1)
	c := config{addr: addr, duration: 200 * time.Millisecond, timeout: time.Second, concurrency: 3, conns: 2, users: 2, descriptors: 1, domain: "load"}
	r, err := load(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if r.calls == 0 || r.ok+r.over != r.calls || len(r.errors) != 0 {
		t.Errorf("load: %d calls, %d OK, %d OVER_LIMIT, errors %v; want calls = OK + OVER_LIMIT and no errors", r.calls, r.ok, r.over, r.errors)
	}
	// The first call, sent before measuring, took user u0's only hit; u1
	// has one more to give.
	if r.ok != 1 {
		t.Errorf("load: %d OK, want 1", r.ok)
	}
}

func TestParseCommandStats(t *testing.T) {
	info := "# Commandstats\r\n" +
		"cmdstat_evalsha:calls=120,usec=3400,usec_per_call=28.33,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_eval:calls=1,usec=50,usec_per_call=50.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_config|resetstat:calls=1,usec=5,usec_per_call=5.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_info:calls=3,usec=5,usec_per_call=5.00,rejected_calls=0,failed_calls=0\r\n"
	got, err := parseCommandStats(info)
	if err != nil {
		t.Fatal(err)
	}
	want := &redisStats{total: 121, commands: []commandCount{{"evalsha", 120}, {"eval", 1}}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(redisStats{}, commandCount{})); diff != "" {
		t.Errorf("parseCommandStats mismatch (-want +got):\n%s", diff)
	}
	if _, err := parseCommandStats("cmdstat_get:usec=1\n"); err == nil {
		t.Errorf("parseCommandStats(no calls) = nil error, want one")
	}
}

// TestRunWindows drives a server with grpc-go's dynamic windows (-window
// 0) and with the smallest static ones.
func TestRunWindows(t *testing.T) {
	addr := serve(t, 1000)
	for _, window := range []string{"0", "65536"} {
		var stdout, stderr bytes.Buffer
		args := []string{"-addr", addr, "-duration", "100ms", "-warmup", "0s", "-concurrency", "2", "-window", window}
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Errorf("run(%v) = %d, stderr %s", args, code, stderr.String())
		}
	}
}

func TestWindowUsage(t *testing.T) {
	for _, window := range []string{"-1", "65535", "2147483648"} {
		var stdout, stderr bytes.Buffer
		args := []string{"-window", window}
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "-window 0 or from 65536 to 2147483647") {
			t.Errorf("run(%v) = %d, stderr %q; want 2 and the range of -window", args, code, stderr.String())
		}
	}
}

// TestLoadCallsBound ends the measured phase after -calls calls.
func TestLoadCallsBound(t *testing.T) {
	addr := serve(t, 1_000_000)
	c := config{addr: addr, duration: time.Minute, timeout: time.Second, concurrency: 4, conns: 2, users: 10, descriptors: 1, domain: "load", calls: 57, serverPID: os.Getpid()}
	r, err := load(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if r.calls != 57 || r.ok != 57 {
		t.Errorf("load with -calls 57: %d calls, %d OK (errors %v), want 57", r.calls, r.ok, r.errors)
	}
	if r.serverMemory.rss <= 0 {
		t.Errorf("load with -pid: server memory %+v, want VmRSS read", r.serverMemory)
	}
}

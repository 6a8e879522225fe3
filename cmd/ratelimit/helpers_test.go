package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// server is a ratelimit run in process.
type server struct {
	addrs  addrs
	log    *syncBuffer
	client rlsv3.RateLimitServiceClient
	stop   func() int
}

// baseEnv is what every test server gets: free ports, memory, no statsd.
func baseEnv(root string) map[string]string {
	return map[string]string{
		"RUNTIME_ROOT": root, "RUNTIME_SUBDIRECTORY": "ratelimit",
		"GRPC_HOST": "127.0.0.1", "GRPC_PORT": "0", "HOST": "127.0.0.1", "PORT": "0",
		"DEBUG_HOST": "127.0.0.1", "DEBUG_PORT": "0",
		"BACKEND_TYPE": "memory", "USE_STATSD": "false", "LOG_LEVEL": "info",
	}
}

func environ(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// start runs the service with env until the test ends.
func start(t *testing.T, env map[string]string) *server {
	t.Helper()
	return startWith(t, env, nil)
}

// startWith is start with the settings changed by tweak before serving.
func startWith(t *testing.T, env map[string]string, tweak func(*settings)) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{log: &syncBuffer{}}
	readyc := make(chan addrs, 1)
	done := make(chan int, 1)
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	go func() { done <- runTweaked(ctx, lookup, environ(env), s.log, func(a addrs) { readyc <- a }, tweak) }()
	select {
	case s.addrs = <-readyc:
	case code := <-done:
		cancel()
		t.Fatalf("run exited with %d before serving:\n%s", code, s.log)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatalf("run did not serve within 10s:\n%s", s.log)
	}
	var once sync.Once
	code := 0
	s.stop = func() int {
		once.Do(func() {
			cancel()
			code = <-done
		})
		return code
	}
	t.Cleanup(func() { s.stop() })
	conn, err := grpc.NewClient(s.addrs.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s.client = rlsv3.NewRateLimitServiceClient(conn)
	return s
}

// call sends one request of domain with single-entry descriptors "k=v".
func (s *server) call(t *testing.T, domain string, entries ...string) (*rlsv3.RateLimitResponse, error) {
	t.Helper()
	req := &rlsv3.RateLimitRequest{Domain: domain}
	for _, e := range entries {
		k, v, _ := strings.Cut(e, "=")
		req.Descriptors = append(req.Descriptors, &rlv3.RateLimitDescriptor{Entries: []*rlv3.RateLimitDescriptor_Entry{{Key: k, Value: v}}})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.client.ShouldRateLimit(ctx, req)
}

// writeFile writes a file, creating its directory.
func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// eventually retries cond for up to 5 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within 5s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// limitOf returns the requests_per_unit of the first status, or -1 when it
// has no limit or the call failed.
func limitOf(r *rlsv3.RateLimitResponse, err error) int {
	if err != nil || len(r.GetStatuses()) == 0 || r.Statuses[0].CurrentLimit == nil {
		return -1
	}
	return int(r.Statuses[0].CurrentLimit.RequestsPerUnit)
}

func limitYAML(n int) string {
	return "domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: " + itoa(n) + "}\n"
}

func itoa(n int) string { return uitoa(uint64(n)) }

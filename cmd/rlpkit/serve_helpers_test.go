package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// lockedBuffer collects a server's log lines; the server writes from several
// goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testServer is "rlpkit serve" running in the test's process.
type testServer struct {
	addr, httpAddr string
	log            *lockedBuffer
	conn           *grpc.ClientConn
	client         rlsv3.RateLimitServiceClient
	cancel         context.CancelFunc
	exit           chan int
}

// startServe runs "rlpkit serve args..." until the test ends (or stop) and
// returns once it listens, with a client connected to it.
func startServe(t *testing.T, args ...string) *testServer {
	t.Helper()
	return startServeWith(t, nil, args...)
}

// startServeWith is startServe with the parsed options changed by tweak
// before serving, as serveUntil would serve them.
func startServeWith(t *testing.T, tweak func(*serveOptions), args ...string) *testServer {
	t.Helper()
	if !contains(args, "--http-addr") && !contains(args, "--metrics-addr") {
		// Never the default :8080 in tests: it may be taken.
		args = append([]string{"--http-addr", "127.0.0.1:0"}, args...)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{log: &lockedBuffer{}, cancel: cancel, exit: make(chan int, 1)}
	ready := make(chan struct{})
	go func() {
		o, err := parseServe(args, noEnv, io.Discard)
		if err == nil {
			if tweak != nil {
				tweak(&o)
			}
			err = serve(ctx, o, newLogger(s.log, o.logFormat, o.logLevel), func(addr, httpAddr string) {
				s.addr, s.httpAddr = addr, httpAddr
				close(ready)
			})
		}
		s.exit <- exitFor("serve", err, s.log)
	}()
	select {
	case <-ready:
	case code := <-s.exit:
		cancel()
		t.Fatalf("rlpkit serve %s exited %d before serving:\n%s", strings.Join(args, " "), code, s.log)
	}
	conn, err := grpc.NewClient(s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	s.conn = conn
	s.client = rlsv3.NewRateLimitServiceClient(conn)
	t.Cleanup(func() {
		conn.Close()
		if code := s.stop(); code != exitOK {
			t.Errorf("rlpkit serve exited %d, want 0:\n%s", code, s.log)
		}
	})
	return s
}

// noEnv is an empty environment.
func noEnv(string) (string, bool) { return "", false }

// stop stops the server as a signal would and returns its exit status.
// Calling it again returns the same status.
func (s *testServer) stop() int {
	s.cancel()
	code := <-s.exit
	s.exit <- code
	return code
}

// call sends one request with a deadline.
func (s *testServer) call(t *testing.T, req *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.client.ShouldRateLimit(ctx, req)
}

// mustCall sends one request that must succeed.
func (s *testServer) mustCall(t *testing.T, req *rlsv3.RateLimitRequest) *rlsv3.RateLimitResponse {
	t.Helper()
	resp, err := s.call(t, req)
	if err != nil {
		t.Fatalf("ShouldRateLimit(%v): %v\nserver log:\n%s", req, err, s.log)
	}
	return resp
}

// writeFile writes a file in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// replaceFile replaces a file atomically, as careful tools (and Kubernetes)
// do, so that a poll never sees it half-written.
func replaceFile(t *testing.T, dir, name, content string) {
	t.Helper()
	tmp := writeFile(t, dir, "."+name+".tmp", content)
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it holds, failing the test after a generous
// deadline; the deadline only bounds a broken test, it asserts nothing.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func rlsDesc(kv ...string) *rlcommon.RateLimitDescriptor {
	d := &rlcommon.RateLimitDescriptor{}
	for i := 0; i+1 < len(kv); i += 2 {
		d.Entries = append(d.Entries, &rlcommon.RateLimitDescriptor_Entry{Key: kv[i], Value: kv[i+1]})
	}
	return d
}

func rlsHits(d *rlcommon.RateLimitDescriptor, n uint64) *rlcommon.RateLimitDescriptor {
	d.HitsAddend = wrapperspb.UInt64(n)
	return d
}

func rlsOverride(d *rlcommon.RateLimitDescriptor, rpu uint32, unit typev3.RateLimitUnit) *rlcommon.RateLimitDescriptor {
	d.Limit = &rlcommon.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: rpu, Unit: unit}
	return d
}

func rlsRequest(domain string, hits uint32, descs ...*rlcommon.RateLimitDescriptor) *rlsv3.RateLimitRequest {
	return &rlsv3.RateLimitRequest{Domain: domain, HitsAddend: hits, Descriptors: descs}
}

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// gateStore holds every update until release is closed (or its call ends),
// and says on entered when one arrives.
type gateStore struct {
	counter.Store
	entered chan struct{}
	release chan struct{}
}

func newGate() *gateStore {
	return &gateStore{entered: make(chan struct{}, 1), release: make(chan struct{})}
}

func (g *gateStore) wrap(o *serveOptions) {
	o.wrapStore = func(s counter.Store) counter.Store { g.Store = s; return g }
}

func (g *gateStore) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	select {
	case <-g.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return g.Store.Update(ctx, now, updates, decisions)
}

type callResult struct {
	resp *rlsv3.RateLimitResponse
	err  error
}

// inFlight starts a call that the gate holds and returns once the server is
// evaluating it.
func inFlight(t *testing.T, s *testServer, g *gateStore) <-chan callResult {
	t.Helper()
	done := make(chan callResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		resp, err := s.client.ShouldRateLimit(ctx, rlsRequest("shop", 0, rlsDesc("ip", "10.0.0.1")))
		done <- callResult{resp, err}
	}()
	select {
	case <-g.entered:
	case r := <-done:
		t.Fatalf("call ended before reaching the store: %v, %v", r.resp, r.err)
	}
	return done
}

// TestServeGracefulStop stops the server while a call is in flight: the
// call completes and the server exits 0.
func TestServeGracefulStop(t *testing.T) {
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	g := newGate()
	s := startServeWith(t, g.wrap, "--addr", "127.0.0.1:0", "--limits", file, "--shutdown-timeout", "1m")
	done := inFlight(t, s, g)
	exit := make(chan int, 1)
	go func() { exit <- s.stop() }()
	waitFor(t, "the stop to begin", func() bool { return strings.Contains(s.log.String(), "msg=stopping") })
	close(g.release)
	r := <-done
	if got := summary(t, r.resp); r.err != nil || !equal(got, []string{"OK", `OK "per ip" 5/YEAR remaining 4`}) {
		t.Errorf("the call in flight during the stop = %v, %v; want it answered OK", got, r.err)
	}
	if code := <-exit; code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
	if strings.Contains(s.log.String(), "timed out") {
		t.Errorf("the graceful stop timed out:\n%s", s.log)
	}
}

// TestServeGracefulStopTimeout stops the server while a call is held longer
// than --shutdown-timeout: the call is ended and the server exits 0.
func TestServeGracefulStopTimeout(t *testing.T) {
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	g := newGate()
	s := startServeWith(t, g.wrap, "--addr", "127.0.0.1:0", "--limits", file, "--shutdown-timeout", "10ms")
	done := inFlight(t, s, g)
	if code := s.stop(); code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
	if r := <-done; status.Code(r.err) != codes.Unavailable {
		t.Errorf("the call held past the timeout = %v, %v; want Unavailable", r.resp, r.err)
	}
	if !strings.Contains(s.log.String(), "graceful stop timed out") {
		t.Errorf("log does not say the graceful stop timed out:\n%s", s.log)
	}
}

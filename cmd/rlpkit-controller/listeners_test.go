package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/healthz"

	"github.com/rlpkit/rlpkit/internal/serving"
)

// halfOpenWait is how long a test waits for the server to close a
// half-open connection before failing: far beyond the small timeouts set.
const halfOpenWait = 10 * time.Second

// startBounded serves h within b on a loopback port, as newManager's
// servers are run, until the test ends, and returns the address.
func startBounded(t *testing.T, h http.Handler, b serving.HTTPBounds) string {
	t.Helper()
	srv, err := boundedServer("test", "127.0.0.1:0", h, b)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { srv.Start(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return srv.Listener.Addr().String()
}

// The metrics and health ports close connections that send nothing, stop
// half-way or stay idle.
func TestListenersCloseHalfOpenConnections(t *testing.T) {
	small := serving.HTTPBounds{ReadHeader: 50 * time.Millisecond, Read: 100 * time.Millisecond, Idle: 50 * time.Millisecond, MaxConns: 16}
	ports := map[string]string{
		"metrics": startBounded(t, metricsHandler(), small),
		"health":  startBounded(t, probesHandler(map[string]healthz.Checker{"ping": healthz.Ping}, nil), small),
	}
	for name, addr := range ports {
		for _, c := range []struct{ name, send string }{
			{"nothing sent", ""},
			{"headers never ended", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "},
			{"a body shorter than announced", "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"},
			{"kept alive, then idle", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"},
		} {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				conn, err := net.DialTimeout("tcp", addr, halfOpenWait)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				if _, err := io.WriteString(conn, c.send); err != nil {
					t.Fatal(err)
				}
				conn.SetReadDeadline(time.Now().Add(halfOpenWait))
				if _, err := io.Copy(io.Discard, conn); errors.Is(err, os.ErrDeadlineExceeded) {
					t.Errorf("%s: %s: still open after %v", name, c.name, halfOpenWait)
				}
			})
		}
	}
}

// The probes answer as controller-runtime's: /healthz and /readyz with
// their checks, a failing check 500.
func TestProbes(t *testing.T) {
	notReady := func(*http.Request) error { return errors.New("the caches have not synced") }
	addr := startBounded(t, probesHandler(map[string]healthz.Checker{"ping": healthz.Ping}, map[string]healthz.Checker{"caches": notReady}), serving.DefaultHTTP)
	for _, tc := range []struct {
		path string
		want int
	}{{"/healthz", 200}, {"/healthz/ping", 200}, {"/readyz", 500}, {"/readyz/caches", 500}} {
		resp, err := http.Get("http://" + addr + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("GET %s = %d, want %d", tc.path, resp.StatusCode, tc.want)
		}
	}
	metrics := startBounded(t, metricsHandler(), serving.DefaultHTTP)
	resp, err := http.Get("http://" + metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET /metrics = %d", resp.StatusCode)
	}
}

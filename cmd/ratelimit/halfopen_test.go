package main

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// halfOpenWait is how long a test waits for the server to close a
// half-open connection before failing: far beyond the small timeouts set.
const halfOpenWait = 10 * time.Second

// smallBounds are timeouts short enough for a test to see them act.
var smallBounds = map[string]string{
	"RLPKIT_HTTP_READ_HEADER_TIMEOUT": "50ms", "RLPKIT_HTTP_IDLE_TIMEOUT": "50ms",
	"RLPKIT_HTTP_READ_TIMEOUT": "100ms", "RLPKIT_DEBUG_WRITE_TIMEOUT": "1s",
	"RLPKIT_GRPC_CONNECTION_TIMEOUT": "50ms",
	// gRPC's least keepalive interval is 1 s.
	"RLPKIT_GRPC_KEEPALIVE_TIME": "1s", "RLPKIT_GRPC_KEEPALIVE_TIMEOUT": "50ms",
}

// TestHalfOpenConnectionsClosed opens, to every port, connections that
// send nothing or stop half-way through a request, and checks that the
// server closes each.
func TestHalfOpenConnectionsClosed(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit", "config", "d.yaml"), limitYAML(10))
	env := baseEnv(root)
	env["USE_PROMETHEUS"], env["PROMETHEUS_ADDR"] = "true", "127.0.0.1:0"
	for k, v := range smallBounds {
		env[k] = v
	}
	s := start(t, env)
	for _, port := range []struct{ name, addr string }{{"HTTP", s.addrs.http}, {"debug", s.addrs.debug}, {"Prometheus", s.addrs.prom}} {
		for _, c := range []struct{ name, send string }{
			{"nothing sent", ""},
			{"headers never ended", "GET /healthcheck HTTP/1.1\r\nHost: x\r\nX-Slow: "},
			{"a body shorter than announced", "POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"},
			{"kept alive, then idle", "GET /healthcheck HTTP/1.1\r\nHost: x\r\n\r\n"},
		} {
			t.Run(port.name+"/"+c.name, func(t *testing.T) {
				mustBeClosed(t, sendRaw(t, port.addr, c.send), port.name+": "+c.name)
			})
		}
	}
	t.Run("gRPC/nothing sent", func(t *testing.T) {
		mustBeClosed(t, sendRaw(t, s.addrs.grpc, ""), "gRPC: a TCP connection that sends nothing")
	})
	t.Run("gRPC/half a preface", func(t *testing.T) {
		mustBeClosed(t, sendRaw(t, s.addrs.grpc, http2.ClientPreface[:12]), "gRPC: half an HTTP/2 preface")
	})
	t.Run("gRPC/preface then silence", func(t *testing.T) {
		c := sendRaw(t, s.addrs.grpc, http2.ClientPreface)
		if err := http2.NewFramer(c, c).WriteSettings(); err != nil {
			t.Fatal(err)
		}
		mustBeClosed(t, c, "gRPC: a connection that answers no keepalive ping")
	})
}

// TestBoundsVariables: the variables set the bounds, and an invalid one
// stops the start naming it.
func TestBoundsVariables(t *testing.T) {
	env := map[string]string{"RLPKIT_HTTP_MAX_CONNECTIONS": "7", "RLPKIT_GRPC_MAX_CONNECTION_IDLE": "0", "GRPC_MAX_CONNECTION_AGE": "1h"}
	s, _, err := readSettings(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b := s.bounds; b.http.MaxConns != 7 || b.grpc.MaxConnectionIdle != 0 || b.grpc.MaxConnectionAge != time.Hour || b.http.ReadHeader != 10*time.Second || b.debugBounds().Write != 5*time.Minute {
		t.Errorf("bounds = %+v", b)
	}
	for _, name := range []string{"RLPKIT_HTTP_READ_HEADER_TIMEOUT", "RLPKIT_HTTP_IDLE_TIMEOUT", "RLPKIT_GRPC_CONNECTION_TIMEOUT", "RLPKIT_GRPC_KEEPALIVE_TIME"} {
		bad := map[string]string{name: "0"}
		_, _, err := readSettings(func(k string) (string, bool) { v, ok := bad[k]; return v, ok }, nil)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=0: err %v, want one naming it", name, err)
		}
	}
}

// sendRaw opens a TCP connection to addr and writes what.
func sendRaw(t *testing.T, addr, what string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, halfOpenWait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, what); err != nil {
		t.Fatal(err)
	}
	return c
}

// mustBeClosed reads c until the server closes it; still open after
// halfOpenWait fails the test.
func mustBeClosed(t *testing.T, c net.Conn, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(halfOpenWait))
	if _, err := io.Copy(io.Discard, c); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("%s: still open after %v", what, halfOpenWait)
	}
}

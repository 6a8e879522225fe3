package main

import (
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// halfOpenWait is how long a test waits for the server to close a
// half-open connection before failing: far beyond the small timeouts set.
const halfOpenWait = 10 * time.Second

// TestServeClosesHalfOpenConnections opens, to both ports, connections
// that send nothing or stop half-way, and checks that serve closes each
// within the timeouts given.
func TestServeClosesHalfOpenConnections(t *testing.T) {
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	s := startServe(t, "--limits", file,
		"--http-read-header-timeout", "50ms", "--http-idle-timeout", "50ms", "--http-read-timeout", "100ms",
		"--grpc-connection-timeout", "50ms", "--grpc-keepalive-time", "1s", "--grpc-keepalive-timeout", "50ms")
	for _, c := range []struct{ name, send string }{
		{"nothing sent", ""},
		{"headers never ended", "GET /readyz HTTP/1.1\r\nHost: x\r\nX-Slow: "},
		{"a body shorter than announced", "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"},
		{"kept alive, then idle", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"},
	} {
		t.Run("HTTP/"+c.name, func(t *testing.T) {
			mustBeClosed(t, sendRaw(t, s.httpAddr, c.send), "HTTP: "+c.name)
		})
	}
	t.Run("gRPC/nothing sent", func(t *testing.T) {
		mustBeClosed(t, sendRaw(t, s.addr, ""), "gRPC: a TCP connection that sends nothing")
	})
	t.Run("gRPC/half a preface", func(t *testing.T) {
		mustBeClosed(t, sendRaw(t, s.addr, http2.ClientPreface[:12]), "gRPC: half an HTTP/2 preface")
	})
	t.Run("gRPC/preface then silence", func(t *testing.T) {
		c := sendRaw(t, s.addr, http2.ClientPreface)
		if err := http2.NewFramer(c, c).WriteSettings(); err != nil {
			t.Fatal(err)
		}
		mustBeClosed(t, c, "gRPC: a connection that answers no keepalive ping")
	})
}

func TestServeBoundsFlags(t *testing.T) {
	o, err := parseServe([]string{"--limits", "x.yaml"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.bounds.http.ReadHeader != 10*time.Second || o.bounds.grpc.Handshake != 10*time.Second || o.bounds.grpc.MaxConns != 10000 {
		t.Errorf("default bounds = %+v", o.bounds)
	}
	env := func(k string) (string, bool) {
		return map[string]string{"RLPKIT_GRPC_KEEPALIVE_TIME": "3m"}[k], k == "RLPKIT_GRPC_KEEPALIVE_TIME"
	}
	if o, err := parseServe([]string{"--limits", "x.yaml"}, env, io.Discard); err != nil || o.bounds.grpc.KeepaliveTime != 3*time.Minute {
		t.Errorf("RLPKIT_GRPC_KEEPALIVE_TIME=3m: keepalive %v, err %v", o.bounds.grpc.KeepaliveTime, err)
	}
	for _, args := range [][]string{
		{"--http-read-header-timeout", "0"}, {"--http-idle-timeout", "0"}, {"--grpc-connection-timeout", "0"},
		{"--grpc-keepalive-time", "0"}, {"--http-write-timeout", "-1s"}, {"--grpc-max-connections", "-1"},
	} {
		_, err := parseServe(append([]string{"--limits", "x.yaml"}, args...), noEnv, io.Discard)
		if err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: err %v, want one naming %s", args, err, args[0])
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

package faultsuite

import (
	"errors"
	"io"
	"net"
	"os"
	"regexp"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// halfOpenWait is how long the half-open check waits for a server to close
// a connection before failing: far beyond the small timeouts it sets.
const halfOpenWait = 15 * time.Second

// halfOpenHTTP are the connections sent to every HTTP listener: nothing,
// headers never ended, a body shorter than announced, and a kept-alive
// connection left idle after its request.
var halfOpenHTTP = []struct{ name, send string }{
	{"nothing sent", ""},
	{"headers never ended", "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "},
	{"a body shorter than announced", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"},
	{"kept alive, then idle", "GET / HTTP/1.1\r\nHost: x\r\n\r\n"},
}

var promServing = regexp.MustCompile(`msg=serving .*prometheus=(\S+)`)

// TestHalfOpenConnections starts "rlpkit serve" and cmd/ratelimit with
// small timeouts and opens, to every listener they have, connections that
// send nothing, stop half-way or go silent, plus, to each gRPC port, TCP
// connections that send nothing, half an HTTP/2 preface, or a preface
// then nothing (answering no keepalive ping); every one must be closed by
// the server, and the server must answer a good request afterwards.
func TestHalfOpenConnections(t *testing.T) {
	limits := "- {namespace: " + faultDomain + ", max_value: 1000000000, seconds: 3600, variables: [user]}\n"
	config := "domain: " + faultDomain + "\ndescriptors:\n  - key: user\n    rate_limit: {unit: hour, requests_per_unit: 1000000000}\n"
	t.Run("rlpkit serve", func(t *testing.T) {
		srv := startRlpkit(t, "--limits", writeTemp(t, "limits.yaml", limits),
			"--http-read-header-timeout", "100ms", "--http-idle-timeout", "100ms", "--http-read-timeout", "200ms",
			"--grpc-connection-timeout", "100ms", "--grpc-keepalive-time", "1s", "--grpc-keepalive-timeout", "100ms")
		checkHalfOpen(t, srv, map[string]string{"HTTP": srv.httpAddr})
	})
	t.Run("cmd/ratelimit", func(t *testing.T) {
		srv := startRatelimit(t, config, "BACKEND_TYPE=memory", "USE_PROMETHEUS=true", "PROMETHEUS_ADDR=127.0.0.1:0",
			"RLPKIT_HTTP_READ_HEADER_TIMEOUT=100ms", "RLPKIT_HTTP_IDLE_TIMEOUT=100ms", "RLPKIT_HTTP_READ_TIMEOUT=200ms",
			"RLPKIT_GRPC_CONNECTION_TIMEOUT=100ms", "RLPKIT_GRPC_KEEPALIVE_TIME=1s", "RLPKIT_GRPC_KEEPALIVE_TIMEOUT=100ms")
		http := map[string]string{"HTTP": srv.httpAddr, "debug": srv.debugAddr}
		if m := promServing.FindStringSubmatch(srv.log.String()); m != nil {
			http["Prometheus"] = m[1]
		} else {
			t.Errorf("no Prometheus address in the serving line:\n%s", srv.log)
		}
		checkHalfOpen(t, srv, http)
	})
}

// checkHalfOpen sends the half-open connections to srv's gRPC port and to
// each HTTP listener of httpAddrs (by name), all at once, and checks that
// every one is closed.
func checkHalfOpen(t *testing.T, srv *server, httpAddrs map[string]string) {
	t.Helper()
	type conn struct {
		what string
		c    net.Conn
	}
	var conns []conn
	for _, port := range sortedKeys(httpAddrs) {
		for _, h := range halfOpenHTTP {
			conns = append(conns, conn{port + ": " + h.name, openSend(t, httpAddrs[port], []byte(h.send))})
		}
	}
	preface := []byte(http2.ClientPreface)
	conns = append(conns,
		conn{"gRPC: nothing sent", openSend(t, srv.grpcAddr, nil)},
		conn{"gRPC: half an HTTP/2 preface", openSend(t, srv.grpcAddr, preface[:12])})
	silent := openSend(t, srv.grpcAddr, preface)
	if err := http2.NewFramer(silent, silent).WriteSettings(); err != nil {
		t.Fatal(err)
	}
	conns = append(conns, conn{"gRPC: a preface, then no answer to keepalive pings", silent})
	deadline := time.Now().Add(halfOpenWait)
	closed := 0
	for _, c := range conns {
		c.c.SetReadDeadline(deadline)
		if _, err := io.Copy(io.Discard, c.c); errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("%s: %s: still open after %v", srv.name, c.what, halfOpenWait)
			continue
		}
		closed++
	}
	t.Logf("%s: %d of %d half-open connections closed by the server", srv.name, closed, len(conns))
	good(t, srv)
}

// openSend opens a TCP connection to addr and writes b.
func openSend(t *testing.T, addr string, b []byte) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	return c
}

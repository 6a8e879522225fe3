package serving

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc"
)

// small are bounds short enough for a test to see them act.
var small = HTTPBounds{ReadHeader: 50 * time.Millisecond, Read: 100 * time.Millisecond, Write: 100 * time.Millisecond, Idle: 50 * time.Millisecond}

// serveHTTP serves an "ok" handler within b on a loopback port and
// returns its address.
func serveHTTP(t *testing.T, b HTTPBounds) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }), b)
	go srv.Serve(Limit(l, b.MaxConns))
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

// dialSend opens a connection to addr and writes what.
func dialSend(t *testing.T, addr, what string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, what); err != nil {
		t.Fatal(err)
	}
	return c
}

// closedByServer reads c until the server closes it; a connection still
// open after wait fails the test. It returns what was read.
func closedByServer(t *testing.T, c net.Conn, what string) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(wait))
	got, err := io.ReadAll(c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("%s: still open after %v", what, wait)
	}
	return got
}

func TestHTTPClosesHalfOpenConnections(t *testing.T) {
	addr := serveHTTP(t, small)
	for _, tc := range []struct{ name, send string }{
		{"nothing sent", ""},
		{"a request line without headers", "GET / HTTP/1.1\r\n"},
		{"headers never ended", "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "},
		{"a body shorter than announced", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			closedByServer(t, dialSend(t, addr, tc.send), tc.name)
		})
	}
}

func TestHTTPClosesIdleConnections(t *testing.T) {
	addr := serveHTTP(t, small)
	c := dialSend(t, addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Close {
		t.Fatal("the server closed the connection after the response; want it kept alive until idle")
	}
	closedByServer(t, c, "a kept-alive connection")
}

func TestHTTPMaxConns(t *testing.T) {
	b := HTTPBounds{MaxConns: 1} // no timeout: only the bound acts
	addr := serveHTTP(t, b)
	first := dialSend(t, addr, "GET / HTTP/1.1\r\nHost: x\r\n")
	second := dialSend(t, addr, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	// The second is not accepted while the first is open: no answer.
	second.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := second.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a connection beyond MaxConns was served: read %d, %v", n, err)
	}
	first.Close()
	resp, err := http.ReadResponse(bufio.NewReader(readWithin(second)), nil)
	if err != nil {
		t.Fatalf("the waiting connection was not served once the first closed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the waiting connection answered %s", resp.Status)
	}
}

// readWithin sets c's read deadline to wait and returns it.
func readWithin(c net.Conn) net.Conn {
	c.SetReadDeadline(time.Now().Add(wait))
	return c
}

// serveGRPC serves a gRPC server with b's options on a loopback port and
// returns its address.
func serveGRPC(t *testing.T, b GRPCBounds) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(b.ServerOptions()...)
	Register(srv, NewHealth())
	go srv.Serve(Limit(l, b.MaxConns))
	t.Cleanup(srv.Stop)
	return l.Addr().String()
}

func TestGRPCClosesHalfOpenConnections(t *testing.T) {
	// KeepaliveTime: gRPC's least, 1 s.
	addr := serveGRPC(t, GRPCBounds{Handshake: 50 * time.Millisecond, KeepaliveTime: time.Second, KeepaliveTimeout: 50 * time.Millisecond})
	t.Run("nothing sent", func(t *testing.T) {
		closedByServer(t, dialSend(t, addr, ""), "a TCP connection that sends nothing")
	})
	t.Run("half a preface", func(t *testing.T) {
		closedByServer(t, dialSend(t, addr, http2.ClientPreface[:10]), "half an HTTP/2 preface")
	})
	t.Run("preface then silence", func(t *testing.T) {
		// The server's keepalive ping goes unanswered.
		c := dialSend(t, addr, http2.ClientPreface)
		if err := http2.NewFramer(c, c).WriteSettings(); err != nil {
			t.Fatal(err)
		}
		closedByServer(t, c, "a connection that answers no ping")
	})
}

func TestGRPCMaxConnectionIdle(t *testing.T) {
	addr := serveGRPC(t, GRPCBounds{MaxConnectionIdle: 50 * time.Millisecond})
	c := dialSend(t, addr, http2.ClientPreface)
	fr := http2.NewFramer(c, readWithin(c))
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("a connection without a call was not sent a GOAWAY: %v", err)
		}
		if _, ok := f.(*http2.GoAwayFrame); ok {
			return
		}
	}
}

func TestGRPCMaxConns(t *testing.T) {
	addr := serveGRPC(t, GRPCBounds{MaxConns: 1})
	first := dialSend(t, addr, http2.ClientPreface)
	second := dialSend(t, addr, http2.ClientPreface)
	// The server's SETTINGS answer a preface: none on the second while the
	// first is open.
	second.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := second.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a connection beyond MaxConns was served: read %d, %v", n, err)
	}
	first.Close()
	if _, err := http2.NewFramer(nil, readWithin(second)).ReadFrame(); err != nil {
		t.Fatalf("the waiting connection was not served once the first closed: %v", err)
	}
}

func TestDefaultsBoundEverything(t *testing.T) {
	h := DefaultHTTP
	if h.ReadHeader <= 0 || h.Read <= 0 || h.Write <= 0 || h.Idle <= 0 || h.MaxConns <= 0 {
		t.Errorf("DefaultHTTP = %+v: every bound wanted", h)
	}
	g := DefaultGRPC
	if g.Handshake <= 0 || g.MaxConnectionIdle <= 0 || g.KeepaliveTime <= 0 || g.KeepaliveTimeout <= 0 || g.MinPingInterval <= 0 || g.MaxConns <= 0 {
		t.Errorf("DefaultGRPC = %+v: every bound but the age wanted", g)
	}
}

package serving

import (
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

// HTTPBounds are what an HTTP listener allows one connection: how long it
// may take over each part of a request, how long it may sit idle, and how
// many connections may be open at once. A zero duration means no bound
// (net/http's zero), which NewHTTPServer's callers never give for
// ReadHeader and Idle: they close the connections that send nothing or
// stop half-way through their headers.
type HTTPBounds struct {
	// ReadHeader bounds the request line and headers, from the moment
	// the connection is accepted or its previous response was written.
	ReadHeader time.Duration
	// Read bounds the whole request, body included.
	Read time.Duration
	// Write bounds the response, from the end of the request's headers:
	// the handler's work and the client's reading of it.
	Write time.Duration
	// Idle bounds the wait for the next request on a kept-alive
	// connection.
	Idle time.Duration
	// MaxConns is the most connections open at once; one more waits to
	// be accepted until another closes. 0: no bound.
	MaxConns int
}

// DefaultHTTP are the bounds of rlpkit's HTTP ports (metrics, health,
// /json, debug) unless set otherwise: a request's headers within 10 s, the
// whole request within 30 s and its response within 30 s more, 90 s idle
// between requests (net/http's client keeps idle connections as long), and
// 1024 connections at once.
var DefaultHTTP = HTTPBounds{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 30 * time.Second, Idle: 90 * time.Second, MaxConns: 1024}

// NewHTTPServer returns an http.Server serving h within b's timeouts.
// Serve it on Limit(listener, b.MaxConns) for b's connection bound.
func NewHTTPServer(h http.Handler, b HTTPBounds) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: b.ReadHeader,
		ReadTimeout:       b.Read,
		WriteTimeout:      b.Write,
		IdleTimeout:       b.Idle,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}

// maxHeaderBytes bounds an HTTP request's line and headers: a tenth of
// net/http's default of 1 MiB, ample for the probes, scrapes and JSON
// calls these ports serve.
const maxHeaderBytes = 64 << 10

// GRPCBounds are what a gRPC listener allows one connection.
type GRPCBounds struct {
	// Handshake bounds the time from accept to the end of the TLS
	// handshake and the client's HTTP/2 preface (grpc.ConnectionTimeout):
	// a connection that sends nothing is closed after it. 0: gRPC's
	// default, 120 s.
	Handshake time.Duration
	// MaxConnectionIdle closes, with a GOAWAY, a connection that has had
	// no call for that long; clients open a new one when they need it.
	MaxConnectionIdle time.Duration
	// MaxConnectionAge and MaxConnectionAgeGrace close a connection that
	// old, after a GOAWAY, once its calls end or the grace is over.
	MaxConnectionAge, MaxConnectionAgeGrace time.Duration
	// KeepaliveTime is how long a connection may be silent before the
	// server pings it; KeepaliveTimeout how long it then waits for the
	// answer before closing it, so that a peer gone without a FIN (a
	// half-open connection) is found.
	KeepaliveTime, KeepaliveTimeout time.Duration
	// MinPingInterval is the shortest interval between the client's own
	// keepalive pings that the server accepts, with or without calls in
	// flight; a client pinging more often is sent a GOAWAY
	// (too_many_pings).
	MinPingInterval time.Duration
	// MaxConns is the most connections open at once; one more waits to
	// be accepted until another closes. 0: no bound.
	MaxConns int
}

// DefaultGRPC are the bounds of rlpkit's gRPC ports unless set otherwise:
// the handshake within 10 s; a connection without a call for 15 minutes
// closed; a silent connection pinged after 1 minute and closed when the
// ping is not answered within 20 s; client pings accepted every 10 s or
// less often (grpc-go's clients ping every 10 s at the most), with or
// without calls; no age limit; 10,000 connections at once.
var DefaultGRPC = GRPCBounds{Handshake: 10 * time.Second, MaxConnectionIdle: 15 * time.Minute,
	KeepaliveTime: time.Minute, KeepaliveTimeout: 20 * time.Second, MinPingInterval: 10 * time.Second, MaxConns: 10000}

// ServerOptions returns the grpc.ServerOptions that apply b's timeouts
// and keepalive. Serve on Limit(listener, b.MaxConns) for its connection
// bound.
func (b GRPCBounds) ServerOptions() []grpc.ServerOption {
	opts := []grpc.ServerOption{
		grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionIdle:     b.MaxConnectionIdle,
			MaxConnectionAge:      b.MaxConnectionAge,
			MaxConnectionAgeGrace: b.MaxConnectionAgeGrace,
			Time:                  b.KeepaliveTime,
			Timeout:               b.KeepaliveTimeout,
		}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: b.MinPingInterval, PermitWithoutStream: true}),
	}
	if b.Handshake > 0 { // gRPC's zero would close every connection at once
		opts = append(opts, grpc.ConnectionTimeout(b.Handshake))
	}
	return opts
}

// Limit returns l accepting at most max connections open at once (l
// itself when max is 0 or less): the next waits in the kernel's backlog
// until one of them closes.
func Limit(l net.Listener, max int) net.Listener {
	if max <= 0 {
		return l
	}
	return netutil.LimitListener(l, max)
}

package main

import (
	"flag"
	"time"

	"github.com/rlpkit/rlpkit/internal/serving"
)

// boundsOptions are the listeners' timeouts and connection bounds.
type boundsOptions struct {
	grpc serving.GRPCBounds
	http serving.HTTPBounds
}

// addBoundsFlags defines the listeners' bounds on fs, into o, with
// internal/serving's defaults; cmd/ratelimit reads the same variables.
func addBoundsFlags(fs *flag.FlagSet, o *boundsOptions) {
	g, h := serving.DefaultGRPC, serving.DefaultHTTP
	fs.DurationVar(&o.grpc.Handshake, "grpc-connection-timeout", g.Handshake, "close a gRPC connection that has not finished its TLS handshake and HTTP/2 preface within this `duration`")
	fs.DurationVar(&o.grpc.MaxConnectionIdle, "grpc-max-connection-idle", g.MaxConnectionIdle, "close (GOAWAY) a gRPC connection without a call for this long (0: never)")
	fs.DurationVar(&o.grpc.MaxConnectionAge, "grpc-max-connection-age", 0, "close (GOAWAY) a gRPC connection this old, so that clients spread over new replicas (0: never)")
	fs.DurationVar(&o.grpc.MaxConnectionAgeGrace, "grpc-max-connection-age-grace", 0, "after --grpc-max-connection-age, the calls in flight have this long before the connection is closed (0: as long as they take)")
	fs.DurationVar(&o.grpc.KeepaliveTime, "grpc-keepalive-time", g.KeepaliveTime, "ping a gRPC connection silent for this long (1s at the least)")
	fs.DurationVar(&o.grpc.KeepaliveTimeout, "grpc-keepalive-timeout", g.KeepaliveTimeout, "close a gRPC connection whose ping is not answered within this long: a peer gone without closing it")
	fs.DurationVar(&o.grpc.MinPingInterval, "grpc-keepalive-min-time", g.MinPingInterval, "the shortest interval between a client's keepalive pings accepted; a client pinging more often is sent a GOAWAY")
	fs.IntVar(&o.grpc.MaxConns, "grpc-max-connections", g.MaxConns, "the most gRPC connections open at once; more wait to be accepted (0: no bound)")
	fs.DurationVar(&o.http.ReadHeader, "http-read-header-timeout", h.ReadHeader, "close an HTTP connection whose request headers are not all read within this long")
	fs.DurationVar(&o.http.Read, "http-read-timeout", h.Read, "the longest an HTTP request, body included, may take to arrive (0: no bound)")
	fs.DurationVar(&o.http.Write, "http-write-timeout", h.Write, "the longest an HTTP response may take, from the end of the request's headers (0: no bound)")
	fs.DurationVar(&o.http.Idle, "http-idle-timeout", h.Idle, "close a kept-alive HTTP connection without a request for this long")
	fs.IntVar(&o.http.MaxConns, "http-max-connections", h.MaxConns, "the most HTTP connections open at once; more wait to be accepted (0: no bound)")
}

// checkBoundsFlags refuses a negative bound, and 0 for the timeouts that
// close half-open connections, naming the flag or variable.
func checkBoundsFlags(o *serveOptions) error {
	b, src := o.bounds, o.sources
	positive := []struct {
		name string
		d    time.Duration
	}{
		{"grpc-connection-timeout", b.grpc.Handshake}, {"grpc-keepalive-time", b.grpc.KeepaliveTime},
		{"grpc-keepalive-timeout", b.grpc.KeepaliveTimeout}, {"http-read-header-timeout", b.http.ReadHeader},
		{"http-idle-timeout", b.http.Idle},
	}
	for _, f := range positive {
		if f.d <= 0 {
			return usagef("%s %v: want more than 0", src.name(f.name), f.d)
		}
	}
	nonNegative := []struct {
		name string
		d    time.Duration
	}{
		{"grpc-max-connection-idle", b.grpc.MaxConnectionIdle}, {"grpc-max-connection-age", b.grpc.MaxConnectionAge},
		{"grpc-max-connection-age-grace", b.grpc.MaxConnectionAgeGrace}, {"grpc-keepalive-min-time", b.grpc.MinPingInterval},
		{"http-read-timeout", b.http.Read}, {"http-write-timeout", b.http.Write},
	}
	for _, f := range nonNegative {
		if f.d < 0 {
			return usagef("%s %v: want 0 or more", src.name(f.name), f.d)
		}
	}
	for _, f := range []struct {
		name string
		n    int
	}{{"grpc-max-connections", b.grpc.MaxConns}, {"http-max-connections", b.http.MaxConns}} {
		if f.n < 0 {
			return usagef("%s %d: want 0 or more", src.name(f.name), f.n)
		}
	}
	return nil
}

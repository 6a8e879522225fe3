package main

import (
	"maps"
	"strconv"
	"time"

	"github.com/rlpkit/rlpkit/internal/serving"
)

// boundsSettings are the listeners' timeouts and connection bounds and the
// xDS client's, rlpkit's own variables (RLPKIT_*): the reference sets none,
// so that its HTTP ports hold a connection that never finishes its headers
// for ever.
type boundsSettings struct {
	http       serving.HTTPBounds // every HTTP port: PORT, DEBUG_PORT, PROMETHEUS_ADDR
	debugWrite time.Duration      // the debug port's write timeout: pprof profiles run 30 s
	grpc       serving.GRPCBounds // GRPC_PORT or GRPC_UDS
}

// boundsDefaults are the variables read here with their defaults,
// internal/serving's.
var boundsDefaults = map[string]string{
	"RLPKIT_HTTP_READ_HEADER_TIMEOUT": serving.DefaultHTTP.ReadHeader.String(),
	"RLPKIT_HTTP_READ_TIMEOUT":        serving.DefaultHTTP.Read.String(),
	"RLPKIT_HTTP_WRITE_TIMEOUT":       serving.DefaultHTTP.Write.String(),
	"RLPKIT_HTTP_IDLE_TIMEOUT":        serving.DefaultHTTP.Idle.String(),
	"RLPKIT_HTTP_MAX_CONNECTIONS":     strconv.Itoa(serving.DefaultHTTP.MaxConns),
	"RLPKIT_DEBUG_WRITE_TIMEOUT":      (5 * time.Minute).String(),
	"RLPKIT_GRPC_CONNECTION_TIMEOUT":  serving.DefaultGRPC.Handshake.String(),
	"RLPKIT_GRPC_MAX_CONNECTION_IDLE": serving.DefaultGRPC.MaxConnectionIdle.String(),
	"RLPKIT_GRPC_KEEPALIVE_TIME":      serving.DefaultGRPC.KeepaliveTime.String(),
	"RLPKIT_GRPC_KEEPALIVE_TIMEOUT":   serving.DefaultGRPC.KeepaliveTimeout.String(),
	"RLPKIT_GRPC_KEEPALIVE_MIN_TIME":  serving.DefaultGRPC.MinPingInterval.String(),
	"RLPKIT_GRPC_MAX_CONNECTIONS":     strconv.Itoa(serving.DefaultGRPC.MaxConns),
}

func init() { maps.Copy(implemented, boundsDefaults) }

// bounds reads boundsSettings, after server (GRPC_MAX_CONNECTION_AGE).
// The timeouts that close half-open connections must be positive; the
// others may be 0, no bound.
func (r *envReader) bounds(s *settings) {
	b := &s.bounds
	b.http = serving.HTTPBounds{
		ReadHeader: r.duration("RLPKIT_HTTP_READ_HEADER_TIMEOUT"),
		Read:       r.nonNegativeDuration("RLPKIT_HTTP_READ_TIMEOUT"),
		Write:      r.nonNegativeDuration("RLPKIT_HTTP_WRITE_TIMEOUT"),
		Idle:       r.duration("RLPKIT_HTTP_IDLE_TIMEOUT"),
		MaxConns:   r.int("RLPKIT_HTTP_MAX_CONNECTIONS", 0, 1<<24),
	}
	b.debugWrite = r.nonNegativeDuration("RLPKIT_DEBUG_WRITE_TIMEOUT")
	b.grpc = serving.GRPCBounds{
		Handshake:             r.duration("RLPKIT_GRPC_CONNECTION_TIMEOUT"),
		MaxConnectionIdle:     r.nonNegativeDuration("RLPKIT_GRPC_MAX_CONNECTION_IDLE"),
		MaxConnectionAge:      s.grpcMaxAge,
		MaxConnectionAgeGrace: s.grpcMaxAgeGrace,
		KeepaliveTime:         r.duration("RLPKIT_GRPC_KEEPALIVE_TIME"),
		KeepaliveTimeout:      r.duration("RLPKIT_GRPC_KEEPALIVE_TIMEOUT"),
		MinPingInterval:       r.nonNegativeDuration("RLPKIT_GRPC_KEEPALIVE_MIN_TIME"),
		MaxConns:              r.int("RLPKIT_GRPC_MAX_CONNECTIONS", 0, 1<<24),
	}
}

// debugBounds are the debug port's: the HTTP ports' with its own write
// timeout.
func (b boundsSettings) debugBounds() serving.HTTPBounds {
	d := b.http
	d.Write = b.debugWrite
	return d
}

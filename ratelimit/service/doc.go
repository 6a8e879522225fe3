// Package service serves envoyproxy/ratelimit's configuration (package
// ratelimit) as Envoy's Rate Limit Service: the gRPC ShouldRateLimit of
// envoy.service.ratelimit.v3 and the reference's HTTP POST /json, with its
// response headers. cmd/ratelimit and `rlpkit serve --ratelimit-config` are
// built on it.
//
// It is not a server: it opens no listener and reads no file. A program
// registers a Service on its *grpc.Server (created with ServerOptions),
// mounts JSONHandler, and calls SetConfig whenever it (re)loads the
// configuration.
//
// # Where it differs from the reference
//
//   - A request that cannot be evaluated fails, as in the reference, with
//     gRPC UNKNOWN (no configuration loaded, an empty domain, no
//     descriptors, a backend error), the message saying which; a limit
//     override with an invalid unit fails too, where the reference panics.
//     A descriptor asking for a refund (is_negative_hits) fails: nothing
//     here gives hits back.
//   - current_limit.unit_multiplier is set when a rule's unit_multiplier (an
//     extension) is more than 1.
package service

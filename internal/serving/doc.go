// Package serving is the machinery that rlpkit's two Rate Limit Service
// programs, "rlpkit serve" and cmd/ratelimit, run around package rls: their
// logger, the polling that reloads their configuration when its files
// change, their gRPC health service and reflection, and the graceful stop of
// their gRPC server, and the bounds every listener of theirs keeps on a
// connection (HTTPBounds, GRPCBounds: timeouts, keepalive, how many
// connections at once), so that connections that send nothing, stop half-way
// or vanish without a FIN are closed rather than held. The options of the
// gRPC server itself (stream workers, codec) are rls.ServerOptions.
//
// Each program keeps its own rules (what it watches, whether a change must
// settle before it reloads, which services its health answers for, how long
// a stop may take); this package holds what they do alike.
package serving

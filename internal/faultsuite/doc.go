// Package faultsuite proves rlpkit's Rate Limit Services under faults, on
// the processes users run: its tests build "rlpkit serve" and
// cmd/ratelimit (with the race detector when the tests run with it), start
// them and a redis-server on loopback ports, and drive them over gRPC and
// HTTP while they:
//
//   - freeze Redis (SIGSTOP, SIGCONT), kill it and bring it back (with an
//     append-only file, so that acknowledged counts survive, as in a
//     production Redis with persistence), under concurrent clients with
//     deadlines of a few milliseconds, for "rlpkit serve --redis",
//     "--redis-approximate" and cmd/ratelimit; then check that every key in
//     Redis is one a client asked for, that no counter holds more hits than
//     were sent for it, that no limit admitted more than its budget, and
//     that each outage was logged once when found and once when over;
//   - turn one user's counter key in Redis into a list while 31 other
//     clients call beside that user's, and check that only that user's
//     calls fail, though the store decides concurrent calls together;
//   - send requests of the largest size the servers accept and larger ones
//     beside a well-behaved client, whose latency is reported unloaded and
//     loaded, and check that the larger ones are refused;
//   - send 64 calls at once against a limit of 5 on every path where a
//     server calls its store more than once for a call (shadow_mode and
//     quota_mode rules, QUOTA_MODE, SHADOW_MODE, the local over-limit
//     cache, reference keys, REDIS_PERSECOND) and on the one-call paths
//     (Limitador's limits, examples/middleware), with Redis frozen while
//     they arrive, and check that exactly 5 are let through;
//   - send malformed protobuf, truncated frames and random bytes to the
//     gRPC port and to /json, and check that the server keeps answering and
//     that its goroutines come back to their count before;
//   - open, to every listener (gRPC, HTTP, debug, Prometheus), connections
//     that send nothing, stop half-way through their headers or body, stay
//     idle, or send an HTTP/2 preface and then answer no keepalive ping,
//     with small timeouts set, and check that the server closes each.
//
// The figures (admitted against budget, keys in Redis against keys sent,
// the well-behaved client's p99) are logged with t.Log, visible with -v;
// the tests assert only on counts, never on wall time. Every loop is
// bounded, so the suite ends in well under three minutes on two cores.
//
// It has no non-test code: it is part of rlpkit's tests, not its API.
package faultsuite

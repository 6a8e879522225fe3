// Command ratelimit is a drop-in replacement for envoyproxy/ratelimit's
// /bin/ratelimit: the same environment variables with the same defaults,
// the same configuration files and runtime directory, the same gRPC
// (envoy.service.ratelimit.v3 ShouldRateLimit, gRPC health service
// "ratelimit"), HTTP (POST /json, GET /healthcheck) and debug (/rlconfig,
// /stats, /metrics, /debug/pprof/) interfaces, and the same answers, served
// by package rls with envoyproxy/ratelimit's conventions (rls.EnvoyRateLimit)
// over package limit/envoyratelimit and rlpkit's counter stores.
//
// Usage: set the reference's environment variables and run it; it takes no
// arguments (others are reported and ignored, as the reference ignores
// them) but -h or --help, which prints the variables it reads with their
// defaults and the migration guide's path, and exits 0.
//
//	RUNTIME_ROOT=/data RUNTIME_SUBDIRECTORY=ratelimit USE_STATSD=false \
//	  BACKEND_TYPE=redis REDIS_SOCKET_TYPE=tcp REDIS_URL=redis:6379 ratelimit
//
// A variable of the reference that it does not implement is reported once at
// start, as a warning; an invalid value stops it with an error naming the
// variable (exit code 1), as does BACKEND_TYPE=memcache, which is not
// offered. BACKEND_TYPE=memory keeps the counters in the process, for a
// single instance.
//
// docs/migrating-from-envoy-ratelimit.md lists every variable, what stays the
// same and what differs; in short:
//
// # Where it differs from envoyproxy/ratelimit
//
//   - A request is decided all or nothing, in one Redis round trip: when any
//     descriptor is over its limit, no counter that had room moves; the
//     counters over count the rejected hits, as the reference does with
//     STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=true (false is not honoured).
//     With REDIS_PERSECOND all or nothing holds within each Redis, the
//     per-second one deciding first.
//   - Counters are kept in rlpkit's format (length-prefixed entries under the
//     domain's Redis Cluster hash tag; RLPKIT_REDIS_HASH_TAG=first-entry
//     spreads tenants), not shared with reference replicas unless
//     RLPKIT_REDIS_KEYS=reference keeps the reference's keys and counting
//     (limit/redis/refcount) for a fleet migrating one replica at a time.
//   - Rules may opt in to other algorithms, windows of several units and
//     several limits per descriptor (package limit/envoyratelimit).
//   - Concurrent calls share Redis round trips and script calls;
//     REDIS_PIPELINE_WINDOW is honoured for every REDIS_TYPE and
//     REDIS_PIPELINE_LIMIT bounds the requests one script call decides.
//   - Once Redis is known down calls fail at once, without a round trip,
//     until a PING in the background answers (limit/redis.Breaker); the
//     outage and the recovery are logged once each; with REDIS_TYPE=cluster
//     per master (only the dead master's slots fail, and
//     ratelimit_redis_node_reachable has one series per master).
//   - Requests are capped (RLPKIT_MAX_DESCRIPTORS_PER_REQUEST,
//     RLPKIT_MAX_ENTRIES_PER_DESCRIPTOR, RLPKIT_MAX_KEY_BYTES_PER_REQUEST),
//     and statistics keys holding request values are bounded
//     (RLPKIT_STATS_MAX_KEYS).
//   - Where the reference panics (Redis not reachable at start past
//     REDIS_STARTUP_MAX_ELAPSED_TIME, an unreadable TLS file, a bad value),
//     the process exits 1 with an error naming the variable.
//   - The runtime directory is polled every 250 ms rather than watched;
//     CONFIG_TYPE=GRPC_XDS_SOTW reads the configuration over xDS as the
//     reference does, NACKing an invalid one and keeping the one in force.
//   - Tracing (TRACING_ENABLED) emits the reference's spans, the Redis span
//     a child of the decision's rather than its sibling.
//   - Every listener bounds its connections (header, read, write and idle
//     timeouts, gRPC keepalive, connection caps; RLPKIT_HTTP_*,
//     RLPKIT_GRPC_*, RLPKIT_XDS_CLIENT_*), where the reference bounds none.
//   - A debug port listening beyond loopback (DEBUG_HOST=0.0.0.0, the
//     reference's default) is warned about at start.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rlpkit/rlpkit/internal/gcfloor"
)

func main() {
	if code, done := arguments(os.Args[1:], os.Stdout, os.Stderr); done {
		os.Exit(code)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopGC := gcfloor.Start(gcfloor.DefaultFloor, os.LookupEnv)
	code := run(ctx, os.LookupEnv, os.Environ(), os.Stderr, nil)
	stopGC()
	stop()
	os.Exit(code)
}

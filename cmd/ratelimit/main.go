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
// arguments.
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
// # Where it differs from envoyproxy/ratelimit
//
// A request is decided all or nothing, in one Redis round trip: when any
// descriptor is over its limit, no counter that had room moves, and the
// descriptors that were not over report their limit minus their current
// count; the counters over count the rejected hits, in a second round trip
// (fixed windows; other algorithms never count one). That is what the
// reference does with STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=true, so that
// a budget checked with hits_addend 0 and charged when the response is
// done (Envoy Gateway's costs) is over once a charge takes it past its
// limit. STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=false, the reference's
// default, also counts the request on the other counters there; here it is
// not honoured (a warning at start). A failure of the second round trip
// leaves the answer as it was and counts as a redis_error.
// Rules may opt in to other algorithms, windows of several units and
// several limits per descriptor (see package limit/envoyratelimit). Counters are kept
// in rlpkit's format, not shared with a reference instance: keys length-prefix
// every entry (the reference's "_"-joined keys let user "alice_path_/x" spend
// the budget of user "alice" on path "/x") and start with the domain's Redis
// Cluster hash tag, escaped, so that a whole domain lives on one Cluster node.
// RLPKIT_REDIS_HASH_TAG=first-entry (rlpkit's own variable; default domain)
// tags them by the domain and each descriptor's first entry instead,
// spreading tenants over the Cluster; a request whose descriptors start
// with different entries is then decided per tag, all or nothing within
// each, so it can be charged under one tag and refused under another. The runtime
// directory is polled every 250 ms rather than watched with file events.
// At start, as the reference, no port opens before Redis answers a PING:
// the first connection is retried after REDIS_STARTUP_INITIAL_INTERVAL
// (default 1s), then after intervals doubling up to
// REDIS_STARTUP_MAX_INTERVAL (30s), each drawn at random between the
// initial one and the doubled one, every retry logged at warn; when
// REDIS_STARTUP_MAX_ELAPSED_TIME (default 0: never) has passed, the
// process exits 1 with the reference's "timed out waiting for Redis
// connection" (the reference panics); a signal meanwhile ends it with 0.
// Redis down mid-run makes calls fail (gRPC UNKNOWN, as the
// reference, which has no fail-open either) while the process keeps
// serving; it never exits for it. Once Redis is known down the calls fail
// at once, without a round trip, until a PING in the background answers
// (limit/redis.Breaker); the outage and the recovery are logged once each,
// at error and warn (the default LOG_LEVEL shows both), and with
// REDIS_HEALTH_CHECK_ACTIVE_CONNECTION=true gRPC health and /healthcheck
// fail meanwhile, as the reference's do when its pool has no connection.
// With REDIS_TYPE=cluster the health is per master: one master down fails
// at once only the calls for its slots (until it answers or its replica is
// promoted), its outage and recovery are logged once each, the health
// checks pass while another master answers, and the Prometheus metrics
// have ratelimit_redis_node_reachable per master.
// A request is capped, where the reference takes anything up to gRPC's
// default receive limit of 4 MiB: RLPKIT_MAX_DESCRIPTORS_PER_REQUEST (default
// 1024), RLPKIT_MAX_ENTRIES_PER_DESCRIPTOR (64) and RLPKIT_MAX_KEY_BYTES_PER_REQUEST
// (262144, the bytes of the domain and the entries' keys and values),
// variables of rlpkit's own. A request over a cap fails (gRPC UNKNOWN, POST
// /json 400) with a message naming the cap, the request's figure and the
// variable; the gRPC receive limit and the /json body bound follow the caps
// (about 1.3 MiB and 3.75 MiB with the defaults).
// FORCE_START_WITHOUT_INITIAL_CONFIG has no effect with CONFIG_TYPE=FILE: as
// with the reference's file provider, the service always starts, and calls
// fail until a configuration loads.
//
// # Two Redis, pipelining, the pool
//
// REDIS_PERSECOND=true counts the per-second limits in a Redis of their
// own, set by REDIS_PERSECOND_URL, _TYPE, _SOCKET_TYPE, _POOL_SIZE, _AUTH,
// _SENTINEL_AUTH, _TLS (with the REDIS_TLS_* files, as the reference),
// _TIMEOUT, _PIPELINE_WINDOW, _PIPELINE_LIMIT, _CLUSTER_PIPELINE_PARALLELISM
// and _POOL_ON_EMPTY_BEHAVIOR, which mean for it what the REDIS_ ones mean
// for the main Redis. A per-second limit is one whose window is shorter
// than a minute: unit second, with a unit_multiplier below 60 (the
// reference has no multipliers and sends its unit: second limits there).
// All or nothing holds within each Redis. A request with counters in both
// is decided in the per-second Redis first: when it refuses, nothing is
// charged in either (the main Redis decides its counters in a batch made
// to fail, so that they are reported as with one Redis); when it admits
// and the main Redis then refuses, the per-second hits stay charged, and
// are forgotten with their window. So a request refused by a minute, hour
// or day limit may have spent one second's budget, never the reverse. The
// reference sends the main Redis's commands first and charges both
// whatever either says.
//
// REDIS_PIPELINE_WINDOW (default 0) is honoured as the batching window of
// the Redis client (limit/redis Options.Window), for every REDIS_TYPE
// where the reference honours it only for a Cluster (its write-flush
// interval): a call that would be sent at once, alone, waits up to the
// window for others, and the calls gathered are decided in one script
// call, each all or nothing in arrival order (a window under a
// millisecond waits about a millisecond in an idle process: Go's timer
// granularity). REDIS_PIPELINE_LIMIT (default 0, the reference
// ignores it) is the most requests one script call decides (Options.BatchRequests;
// 0 keeps 64) and ends a window early once that many wait. Without a
// window, calls queue only behind a script call in flight, and are then
// sent together, up to the limit. REDIS_CLUSTER_PIPELINE_PARALLELISM (default 1),
// with REDIS_TYPE=cluster, is how many pipelines of script calls may be in
// flight at once (Options.Pipelines), bounded by REDIS_POOL_SIZE as the
// reference bounds its parallel groups (0 means the pool size); a
// request's calls to several nodes always go out at once. REDIS_SENTINEL_AUTH
// (password, or user:password) authenticates to the sentinels themselves,
// REDIS_AUTH to the master. REDIS_POOL_ON_EMPTY_BEHAVIOR=WAIT (the default)
// is what the pool does, as the reference's: a call waits for a connection
// when all REDIS_POOL_SIZE are in use, within REDIS_TIMEOUT; CREATE and
// ERROR stop the process at start with an error naming the variable, as
// they stop the reference; another value is reported and waits.
// REDIS_POOL_ON_EMPTY_WAIT_DURATION, which the reference's README names
// but its code does not read, is reported and ignored.
//
// CONFIG_TYPE=GRPC_XDS_SOTW reads the configuration over xDS, as Envoy
// Gateway deploys the reference: one state-of-the-world ADS stream for
// RateLimitConfig resources, each checked as a file named after the
// resource; a valid response replaces the configuration atomically and is
// ACKed, an invalid one is NACKed with the validation messages and the
// configuration in force is kept, also while the server is unreachable.
// Without FORCE_START_WITHOUT_INITIAL_CONFIG=true no port opens before the
// first response, as with the reference. The reconnect wait is
// XDS_CLIENT_BACKOFF_INITIAL_INTERVAL times XDS_CLIENT_BACKOFF_RANDOM_FACTOR
// to the attempt, within the initial and the maximum interval (with the
// defaults always the initial 10 s, as the reference's). A TLS file that
// cannot be read stops the process at start, naming its variable, where the
// reference panics.
//
// TRACING_ENABLED=true exports OpenTelemetry spans over OTLP, as the
// reference: over HTTP (TRACING_EXPORTER_PROTOCOL, default http) or gRPC
// (grpc), where the exporters' own OTEL_EXPORTER_OTLP_* variables say;
// resource attributes service.name TRACING_SERVICE_NAME (default
// RateLimit), service.namespace TRACING_SERVICE_NAMESPACE (left out when
// empty, where the reference writes it empty) and service.instance.id
// TRACING_SERVICE_INSTANCE_ID (default a random UUID); a parent-based
// sampler, TRACING_SAMPLING_RATE (default 1) deciding for the traces that
// start here. A ShouldRateLimit call continues the trace of its W3C
// traceparent or B3 metadata with the reference's spans: the gRPC server
// span "envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit",
// below it "ShouldRateLimit Execution" (domain, request string) and,
// with Redis, below that "Redis Pipeline Execution" (pipeline length) for
// each round trip. Unlike the reference's, the Redis span is the
// decision's child rather than its sibling, pipeline length counts
// counters rather than INCRBY and EXPIRE commands, request string is
// rlpkit's one-line description ("domain=d [k=v]"), health checks are not
// traced, and POST /json joins its request's traceparent. With tracing
// on, a TRACING_SAMPLING_RATE outside 0 to 1, a TRACING_EXPORTER_PROTOCOL
// other than http or grpc and an OTEL_EXPORTER_OTLP_ENDPOINT (or
// _TRACES_ENDPOINT) that is not an http(s) URL stop the process with an
// error naming the variable. Tracing off adds nothing to a call.
//
// RLPKIT_REDIS_KEYS=reference (rlpkit's own variable; default rlpkit) keeps
// the counters as the reference does, so that a fleet moved one replica at a
// time shares its budgets with the reference's replicas on the same Redis:
// the reference's keys byte for byte (CACHE_KEY_PREFIX, the domain, "_",
// key_value_ per entry, the window's start in Unix seconds; no hash tag of
// rlpkit's), and per descriptor INCRBY then EXPIRE (unit plus a jitter below
// EXPIRATION_JITTER_MAX_SECONDS) in one pipeline, with
// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT, LOCAL_CACHE_SIZE_IN_BYTES and the
// near_limit/over_limit split of the reference (limit/redis/refcount). The
// trade-off is the reference's: it is not all or nothing, so a request over
// on one descriptor still charges the others, and rejected hits are counted.
// It needs BACKEND_TYPE=redis, and refuses at load a rule of another
// algorithm than the fixed window. Switching later to the default changes
// every key: the counters start from zero once, so within the windows that
// hold that switch a client may spend each limit once more (the rollout is
// in the migration guide).
//
// Statistics keys holding request values (detailed_metric and
// value_to_metric rules, limit overrides) are bounded: at most
// RLPKIT_STATS_MAX_KEYS (default 1000) keep the reference's names, the others
// count in ratelimit.service.rate_limit.<domain>._other; a key unused for a
// whole period of 5 minutes gives its slot to a new one and its counts move
// to _other. Prometheus labels every override of a domain key="_override",
// never by its entries. Configured keys are not bounded.
//
// The debug port keeps the reference's DEBUG_HOST default, 0.0.0.0; when it
// listens beyond loopback a warning is logged at start, naming the address
// and what it serves (/debug/pprof/, /rlconfig): set DEBUG_HOST=127.0.0.1 or
// restrict the port. The migration guide is docs/migrating-from-envoy-ratelimit.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rlpkit/rlpkit/internal/gcfloor"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopGC := gcfloor.Start(gcfloor.DefaultFloor, os.LookupEnv)
	code := run(ctx, os.LookupEnv, os.Environ(), os.Stderr, nil)
	stopGC()
	stop()
	os.Exit(code)
}

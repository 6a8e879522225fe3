// Package redis is a counter.Store on Redis, for rate limits shared by many
// gateway replicas or RLS servers: the counters of limit/counter's fixed
// window, sliding window (both estimates), token bucket and GCRA, kept in Redis
// through github.com/redis/go-redis/v9, with the same decisions as
// counter.MemoryStore for the same traffic.
//
// It is not a rate-limit service (package rls serves Envoy's protocol over
// limit.Evaluator and a Store) and has no in-flight limiter: counter.InFlight
// counts holders in process and is not a Store algorithm.
//
// # One round trip
//
// Every Store.Update is one EVALSHA of one Lua script, whatever the number
// of updates: the script reads every counter of the batch, decides whether
// all are admitted, writes the changed ones (all or none) with their TTL,
// and returns the states it read. The decisions are then computed in Go by
// counter.Policy.Decide over those states, so they are the memory store's by
// construction; the script only reproduces the admission test and the new
// states, in integer microseconds below 2^53 (exact in Lua's doubles). Should
// the two ever disagree, Update returns an error. A batch of fixed windows
// runs a smaller script, fixed.lua; the others run update.lua. A server that
// lost the script answers NOSCRIPT and go-redis sends it once with EVAL.
//
// # Sharing round trips
//
// Concurrent Updates share round trips without waiting for each other: an
// Update that finds Options.Pipelines pipelines in flight queues, and the
// next pipeline sends the whole queue. Queued Updates that share a script
// (and, on a Cluster, a hash tag) are decided by one script call, up to
// Options.BatchRequests of them, each all or nothing in arrival order, as if
// each had its own call. No timer holds an Update back unless
// Options.Window asks for one (off by default, as envoyproxy/ratelimit's
// REDIS_PIPELINE_WINDOW is); an Update that finds nothing in flight yields
// its processor once, so that calls about to reach the store share its
// round trip. A caller may reuse its keys' memory as soon as Update returns
// (counter.Store's contract): queued calls send copies.
//
// # Keys, Redis Cluster and time
//
// The evaluators start every counter key with a Redis Cluster hash tag (see
// limit.TagBy): by default the domain's, so every request is one script, all
// or nothing, and a whole domain lives on one node; tagged by the first
// descriptor entry, tenants spread over the nodes and a request may span
// tags, which a Cluster or Ring client refuses unless Options.SplitHashTags
// decides it one tag at a time (see there for what that costs). A
// standalone or Sentinel client decides any batch in one script.
//
// Every written key expires when its state is fresh again under any max
// (its algorithm and window decide, never max, so a reload that lowers max
// keeps counting on the same state) plus Options.TTLMargin (500 ms by
// default), the margin covering clocks that lag the writer's. By default
// Update decides at its now argument, so replicas should keep their clocks
// in step; with Options.ServerTime the script reads Redis's clock, every
// replica agrees and there is no margin. Instants must lie between 1970 and
// 2112 (2^52 µs).
//
// # Failures
//
// Errors are returned, never taken as allowed or rejected. Deadlines bound
// an Update when the client was made with ContextTimeoutEnabled (NewClient
// does); WithDeadline gives one an earlier deadline without a timer. A
// connection dropped after the script ran but before its reply leaves the
// hits counted, and go-redis may retry: an outage errs towards rejecting,
// never towards admitting more. A Breaker (Options.Breaker) remembers an
// outage: while Redis is known down every Update fails at once with an
// error wrapping counter.ErrStoreDown, and a PING in the background ends
// the outage; see Breaker for what counts as down and why there is no
// half-open trial call.
//
// # Redis Cluster: health per master, redirections, failover
//
// On a Cluster the health is per master: a dead master fails at once only
// the calls whose hash tags it holds, while the other masters' calls keep
// their answers and their latency (each master has its own pipelines, one
// round trip per master per batch). Each probe reloads the map of slots and
// PINGs every master, so that once a replica is promoted in a dead master's
// place its slots answer again; Breaker.Nodes and BreakerOptions.OnNodeChange
// tell each master's changes. For the other masters to go on, the Cluster
// must serve them while one is down: cluster-require-full-coverage no
// (Redis's default, yes, refuses every slot while any is uncovered). A call
// in flight to a master (or Redis) when it is found down ends then with the
// Breaker's error rather than after go-redis's dial retries; a probe that
// runs out of time on failed dials names the dial's error.
//
// MOVED and ASK are followed (by go-redis, within the pipeline); a script
// call answered TRYAGAIN (its keys split by a slot's migration) is sent
// again, after a wait doubling from 5 ms to 100 ms, while its deadline
// allows. go-redis is told not to resend script calls itself on a Cluster,
// which it would do for a whole node's share of a pipeline whose first
// command got a retryable answer, counting the others twice.
//
// A failover loses the writes its new primary had not yet received
// (replication is asynchronous). Options.AckReplicas ends each pipeline with
// WAIT, failing the Updates whose writes too few replicas acknowledged, so
// that no admitted hit is among them, for a second round trip per pipeline
// (standalone and Sentinel clients).
//
// The scripts use only Redis 5 features (EVALSHA, the struct library,
// effects replication for TIME); they are tested with Redis 7.
//
// # Where it differs from upstream
//
// The textbook Redis fixed window, a GET then an INCR, takes two round
// trips that race, and its keys never expire unless the limiter sets a TTL;
// here one atomic script both checks and counts, and every key expires when
// its count stops mattering (envoyproxy/ratelimit gives a key its whole
// window from every increment). Unlike envoyproxy/ratelimit, a rejected hit
// is never counted by the store, and a request with several counters
// changes all or none of them (limit/envoyratelimit then counts the
// rejected hits of the fixed windows over in a second call, as the
// reference does with STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=true).
// envoyproxy/ratelimit pipelines INCRBY and EXPIRE commands; this store
// batches whole decisions into script calls.
package redis
